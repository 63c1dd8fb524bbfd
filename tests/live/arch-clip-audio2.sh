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
. "$(dirname "$0")/../clipcase.sh"
cd "$TMP" || exit 1

clip_listed "the second round's audio types" '["parakeet","gemma4a"]'



# One boot per type, 512 wide; neither has flash attention (the buffer is
# the same either way: the other setting booked by hand, within 0.02 %;
# 64 wide and a 2048-wide head too).
# AUDIO_ALL=1 boots each both ways (AUDIO_SETS: the towers' further sets).
if [ -n "${AUDIO_ALL:-}" ]; then
	for t in parakeet gemma4a; do
		clip_case "$t-fa" "type=$t ${AUDIO_SETS:-}" "FLASH_ATTN=on"
		clip_case "$t-nofa" "type=$t ${AUDIO_SETS:-}" "FLASH_ATTN=off"
	done
else
	clip_case pk-fa "type=parakeet embd=512" "FLASH_ATTN=on"
	clip_case g4a-nofa "type=gemma4a embd=512" "FLASH_ATTN=off"
fi
echo "# worst projector compute error: ${CLIP_WORST}%"
