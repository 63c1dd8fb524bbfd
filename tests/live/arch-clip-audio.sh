# The audio projectors (mmproj towers with clip.has_audio_encoder) against
# the real engine: tools/mtmd/clip.cpp warms an audio tower up with
# warmup_audio_size (3000) mel frames, and its compute buffer is replayed
# over the engine's own graph for the audio types plan mirrors
# (src/plan/graph/graph_clip_audio.c): the whisper encoder
# (models/whisper-enc.cpp: two 1D convolutions, the learned positions,
# layer-normed blocks, qwen2a's, voxtral's and musicflamingo's 2 to 1
# average pool) with each type's head: ultravox (the stack, RMS norms,
# SwiGLU), qwen2a (one matrix), voxtral (the stack, an MLP),
# musicflamingo (an MLP), meralion (the stack, a norm, a GLU) and glma (a
# norm, the stack, an MLP, the BOI and EOI rows); qwen3a
# (models/qwen3a.cpp: 100-frame chunks, three 2D convolutions, conv_out,
# a chunk's positions repeated, the same blocks, an MLP), dots3note_a
# (models/dots3note.cpp: the same convolutions over the frames, RMS
# blocks turned by a rope over half of each head, a norm, an MLP) and
# lfm2a (models/conformer.cpp: subsampling convolutions, conformer
# blocks with relative-position attention and a convolution module) and
# gemma4ua
# (models/gemma4ua.cpp: no encoder, 640-sample frames RMS-normed and
# projected). Each tower is what
# `synth clip --set type=T` writes; it boots beside a small llama text
# model on the CPU engine, which loads and warms it up. Its weights equal
# the engine's "model size", its compute is within 0.5 % of the engine's
# reserve_compute_meta line, and the plan is exact.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # plan_mirrors
cd "$TMP" || exit 1

run "$ZEALOT" archs --json
check "archs: clip's mirrored projector types name the audio ones" \
	json_is '[.archs[]|select(.arch=="clip")|.projectors.types|contains(["ultravox","qwen2a","voxtral","musicflamingo","meralion","glma","qwen3a","gemma4ua","dots3note_a","lfm2a"])]' '[true]'

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

# One boot per type, each where its figure tells: the heads at 2048 wide
# with flash attention (the encoder's buffer below theirs), the encoder
# 384 wide (the convolutions' bias added beside the matmul's reshape, not
# in place: 10.99 MiB planned were 12.45 with it) and its attention
# without flash attention. AUDIO_ALL=1 boots every type both ways
# (AUDIO_SETS: the towers' further sets).
if [ -n "${AUDIO_ALL:-}" ]; then
	for t in ultravox qwen2a voxtral musicflamingo meralion glma qwen3a gemma4ua dots3note_a lfm2a; do
		audio_case "$t-fa" "type=$t ${AUDIO_SETS:-}" "FLASH_ATTN=on"
		audio_case "$t-nofa" "type=$t ${AUDIO_SETS:-}" "FLASH_ATTN=off"
	done
else
	audio_case uv-fa "type=ultravox projection_dim=2048" "FLASH_ATTN=on"
	audio_case q2a-nofa "type=qwen2a embd=384" "FLASH_ATTN=off"
	audio_case vx-fa "type=voxtral embd=384" "FLASH_ATTN=on"
	audio_case mf-fa "type=musicflamingo projection_dim=2048" "FLASH_ATTN=on"
	audio_case mer-fa "type=meralion projection_dim=2048" "FLASH_ATTN=on"
	audio_case glma-fa "type=glma projection_dim=2048" "FLASH_ATTN=on"
	audio_case glma-nofa "type=glma" "FLASH_ATTN=off"
	audio_case q3a-fa "type=qwen3a embd=2048" "FLASH_ATTN=on"
	audio_case g4ua-nofa "type=gemma4ua projection_dim=2048" "FLASH_ATTN=off"
	audio_case d3a-nofa "type=dots3note_a embd=2048" "FLASH_ATTN=off"
	audio_case lfm2a-fa "type=lfm2a embd=2048" "FLASH_ATTN=on"
fi
echo "# worst projector compute error: ${WORST}%"

# A tower with a vision and an audio encoder (qwen2.5-omni's) has two
# buffers the builders do not add up: estimated, and said to be
must "$ZEALOT" synth clip --set type=qwen2vl_merger -o two-mm.gguf || exit 1
python3 "$ROOT/tests/gguf-addkv.py" two-mm.gguf two-mm2.gguf clip.has_audio_encoder=true
printf 'MODEL_FILE=text.gguf\nMMPROJ_FILE=two-mm2.gguf\nCTX_SIZE=512\n' >two.env
run "$ZEALOT" plan --json two.env
check "two encoders: plan --json says the projector compute is estimated, and why" \
	json_is '.unmirrored' '["projector compute estimated (type qwen2vl_merger not mirrored: a vision and an audio encoder, two buffers)"]'
