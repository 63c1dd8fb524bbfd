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
. "$(dirname "$0")/../clipcase.sh"
cd "$TMP" || exit 1

clip_listed "the audio types" '["ultravox","qwen2a","voxtral","musicflamingo","meralion","glma","qwen3a","gemma4ua","dots3note_a","lfm2a"]'



# One boot per type, each where its figure tells: the heads at 2048 wide
# with flash attention (the encoder's buffer below theirs), the encoder
# 384 wide (the convolutions' bias added beside the matmul's reshape, not
# in place: 10.99 MiB planned were 12.45 with it) and its attention
# without flash attention. AUDIO_ALL=1 boots every type both ways
# (AUDIO_SETS: the towers' further sets).
if [ -n "${AUDIO_ALL:-}" ]; then
	for t in ultravox qwen2a voxtral musicflamingo meralion glma qwen3a gemma4ua dots3note_a lfm2a; do
		clip_case "$t-fa" "type=$t ${AUDIO_SETS:-}" "FLASH_ATTN=on"
		clip_case "$t-nofa" "type=$t ${AUDIO_SETS:-}" "FLASH_ATTN=off"
	done
else
	clip_case uv-fa "type=ultravox projection_dim=2048" "FLASH_ATTN=on"
	clip_case q2a-nofa "type=qwen2a embd=384" "FLASH_ATTN=off"
	clip_case vx-fa "type=voxtral embd=384" "FLASH_ATTN=on"
	clip_case mf-fa "type=musicflamingo projection_dim=2048" "FLASH_ATTN=on"
	clip_case mer-fa "type=meralion projection_dim=2048" "FLASH_ATTN=on"
	clip_case glma-fa "type=glma projection_dim=2048" "FLASH_ATTN=on"
	clip_case glma-nofa "type=glma" "FLASH_ATTN=off"
	clip_case q3a-fa "type=qwen3a embd=2048" "FLASH_ATTN=on"
	clip_case g4ua-nofa "type=gemma4ua projection_dim=2048" "FLASH_ATTN=off"
	clip_case d3a-nofa "type=dots3note_a embd=2048" "FLASH_ATTN=off"
	clip_case lfm2a-fa "type=lfm2a embd=2048" "FLASH_ATTN=on"
fi
echo "# worst projector compute error: ${CLIP_WORST}%"

# A tower with a vision and an audio encoder (qwen2.5-omni's) has two
# buffers the builders do not add up: estimated, and said to be
must "$ZEALOT" synth clip --set type=qwen2vl_merger -o two-mm.gguf || exit 1
python3 "$ROOT/tests/gguf-addkv.py" two-mm.gguf two-mm2.gguf clip.has_audio_encoder=true
printf 'MODEL_FILE=text256.gguf\nMMPROJ_FILE=two-mm2.gguf\nCTX_SIZE=512\n' >two.env
run "$ZEALOT" plan --json two.env
check "two encoders: plan --json says the projector compute is estimated, and why" \
	json_is '.unmirrored' '["projector compute estimated (type qwen2vl_merger not mirrored: a vision and an audio encoder, two buffers)"]'
