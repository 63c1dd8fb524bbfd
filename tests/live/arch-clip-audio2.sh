# The second round of audio projectors against the real engine (see
# arch-clip-audio.sh for the recipe): parakeet (models/parakeet.cpp:
# subsampling convolutions, conformer blocks with relative-position
# attention and a batch-normed convolution module, an RMS norm and a
# squared-ReLU MLP) and gemma4a (models/gemma4a.cpp: two convolutions
# with channel norms, RMS-normed conformer blocks with chunked local
# attention, clamped matmuls, the embedder's norm and projection), mirrored in src/plan/graph/graph_clip_audio2.c. Each
# tower is what `synth clip --set type=T` writes; it boots beside a small
# llama text model on the CPU engine. Its weights equal the engine's
# "model size", its compute is within 0.5 % of the engine's
# reserve_compute_meta line, and the plan is exact.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # plan_mirrors
cd "$TMP" || exit 1

run "$ZEALOT" archs --json
check "archs: clip's mirrored projector types name the audio ones" \
	json_is '[.archs[]|select(.arch=="clip")|.projectors.types|contains(["parakeet","gemma4a"])]' '[true]'

# the text models: 256 wide, and 2048 wide (projection_dim=2048 towers,
# whose heads, not the encoder, set the buffer with flash attention)
must "$ZEALOT" synth llama --set embd=256 --set layers=2 --set vocab=1024 -o text.gguf || exit 1
must "$ZEALOT" synth llama --set embd=2048 --set layers=2 --set vocab=1024 -o text2k.gguf || exit 1
WORST=0

# audio_case NAME "synth sets" "endpoint keys": the tower, booted beside
# the text model as wide as its projection_dim; its weights and compute
# held to the boot's ledger.
audio_case() {
	local name=$1 sets=$2 keys=$3 s args=() err text=text.gguf
	for s in $sets; do args+=(--set "$s"); done
	case " $sets " in *" projection_dim=2048 "*) text=text2k.gguf ;; esac
	if ! "$ZEALOT" synth clip "${args[@]}" -o "$name-mm.gguf" 2>"$name.synth"; then
		check "$name: synth clip $sets writes it" false
		sed 's/^/#   /' "$name.synth"
		return 1
	fi
	cp "$text" "$name.gguf"
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

# One boot per type, 512 wide; neither has flash attention (the buffer is
# the same either way: the other setting booked by hand, within 0.02 %;
# 64 wide and a 2048-wide head too).
# AUDIO_ALL=1 boots each both ways (AUDIO_SETS: the towers' further sets).
if [ -n "${AUDIO_ALL:-}" ]; then
	for t in parakeet gemma4a; do
		audio_case "$t-fa" "type=$t ${AUDIO_SETS:-}" "FLASH_ATTN=on"
		audio_case "$t-nofa" "type=$t ${AUDIO_SETS:-}" "FLASH_ATTN=off"
	done
else
	audio_case pk-fa "type=parakeet embd=512" "FLASH_ATTN=on"
	audio_case g4a-nofa "type=gemma4a embd=512" "FLASH_ATTN=off"
fi
echo "# worst projector compute error: ${WORST}%"
