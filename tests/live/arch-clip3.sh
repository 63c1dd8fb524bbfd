# The projector (mmproj) against the real engine, the vision types of the
# third round (src/plan/graph/graph_clip_vision3.c): ldp (MobileVLM:
# llava's tower of 24 x 24 patches, mlp.1, GELU, mlp.3, then two
# mb_blocks: a depthwise 3 x 3 convolution, layer norms, hardswish, the
# squeeze's pool, fc1, ReLU, fc2, hardsigmoid, the pointwise matrix; the
# second of stride 2) and ldpv2 (mlp.0, GELU, mlp.2, the 2 x 2 average
# pool, the peg's depthwise convolution and bias, the residual), adapter
# (glm_edge: every block, a 2 x 2 stride-2 convolution, a layer-normed
# SwiGLU adapter, boi and eoi rows). Each
# tower is what `synth clip --set type=T` writes; it boots beside a small
# llama text model on the CPU
# engine, which loads and warms it up (reserving the compute buffer of one
# image of the warmup size). The projector's weights equal the engine's
# "model size", its compute buffer is within 0.5 % of the engine's
# reserve_compute_meta line, and the plan is exact (the projector named
# nowhere as estimated).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # plan_mirrors
cd "$TMP" || exit 1

# The types this suite boots; archs lists each as mirrored
TYPES3='["ldp","ldpv2","adapter"]'
run "$ZEALOT" archs --json
check "archs: clip lists the third round's types as mirrored" \
	json_is "[.archs[]|select(.arch==\"clip\")|.projectors.types|contains($TYPES3)]" '[true]'

must "$ZEALOT" synth llama --set embd=256 --set layers=2 --set vocab=1024 -o text.gguf || exit 1
WORST=0

# clip_case NAME "synth sets" "endpoint keys": the tower, booted beside the
# text model; its weights and compute held to the boot's ledger.
clip_case() {
	local name=$1 sets=$2 keys=$3 s args=() err
	for s in $sets; do args+=(--set "$s"); done
	if ! "$ZEALOT" synth clip "${args[@]}" -o "$name-mm.gguf" 2>"$name.synth"; then
		check "$name: synth clip $sets writes it" false
		sed 's/^/#   /' "$name.synth"
		return 1
	fi
	cp text.gguf "$name.gguf"
	boot_for_ledger "$name" "CTX_SIZE=512 MMPROJ_FILE=$name-mm.gguf $keys"
	check_answered "$name" "$name.log"
	run "$ZEALOT" ledger "$name.log" --endpoint "$name.env" --json
	cp "$TMP/out" "$name.cmp"
	check "$name: the projector's weights equal the engine's model size" \
		json_is '[.comparison[]|select(.term=="projector" and .part=="weights")|.diff|fabs <= 0.01]' '[true]'
	err=$(jq '[.comparison[]|select(.term=="projector" and .part=="compute")|.error_pct|fabs]|max // 999' "$name.cmp")
	check "$name: the projector's compute within 0.5% of reserve_compute_meta's (${err}%)" \
		awk -v e="$err" 'BEGIN { exit !(e <= 0.5) }'
	jq -r '.comparison[]|select(.term=="projector")|"#   projector \(.part): plan \(.plan) ledger \(.ledger) (\(.error_pct)%)"' "$name.cmp"
	awk -v e="$err" -v w="$WORST" 'BEGIN { exit !(e > w) }' && WORST=$err
	check "$name: the plan is exact (the projector mirrored)" plan_mirrors "$name.env"
}

# CLIP3_CASES runs other cases (each type's other flash-attention setting,
# checked by hand); by default one boot a type
for c in ${CLIP3_CASES:-ldp-fa ldp2-nofa edge-fa}; do
	case $c in
	ldp-fa) clip_case ldp-fa "type=ldp" "FLASH_ATTN=on" ;;
	ldp-nofa) clip_case ldp-nofa "type=ldp" "FLASH_ATTN=off" ;;
	ldp2-fa) clip_case ldp2-fa "type=ldpv2" "FLASH_ATTN=on" ;;
	ldp2-nofa) clip_case ldp2-nofa "type=ldpv2" "FLASH_ATTN=off" ;;
	edge-fa) clip_case edge-fa "type=adapter" "FLASH_ATTN=on" ;;
	edge-nofa) clip_case edge-nofa "type=adapter" "FLASH_ATTN=off" ;;
	edge-nofa448) clip_case edge-nofa448 "type=adapter image=448 embd=256" "FLASH_ATTN=off" ;;
	edge-fa448) clip_case edge-fa448 "type=adapter image=448 embd=256" "FLASH_ATTN=on" ;;
	ldp-nofa512) clip_case ldp-nofa512 "type=ldp embd=512" "FLASH_ATTN=off" ;;
	ldp2-fa512) clip_case ldp2-fa512 "type=ldpv2 embd=512" "FLASH_ATTN=on" ;;
	esac
done
echo "# worst projector compute error: ${WORST}%"
