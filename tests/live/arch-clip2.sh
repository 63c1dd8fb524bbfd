# The projector (mmproj) against the real engine, the vision types mirrored
# after arch-clip.sh's seventeen (src/plan/graph/graph_clip.c, its second
# round): glm4v (qwen-vl's two patch embeddings and 2 x 2 merge, the patch
# bias, an RMS norm of the patches, the learned positions resized, RMS
# blocks turned by M-RoPE, the merger's 2 x 2 conv2d, mm.model.fc, the
# post norm, GELU and a gated FFN), resampler (minicpmv: build_vit over
# the learned positions' rows, then the resampler's cross attention of 64
# queries over the patches, its sinusoidal positions), step3vl (2D RoPE
# blocks, two 3 x 3 stride-2 convolutions with spatial biases), kimik25
# (kimivl's graph over a 3D position table, interpolated), hunyuanvl (the
# positions an input, the perceiver's two convolutions, newline, begin and
# end rows), cogvlm (the class row, norms after the attention and the FFN,
# a gated projector FFN, boi and eoi rows), youtuvl (the image cut into
# merge units by conts, M-RoPE blocks, one windowed over a mask, the rows
# reordered and restored), exaone4_5 (GQA blocks: one key/value head of
# two, window attention every other block), gemma4v (clamped matmuls,
# per-head q/k norms, post norms, the 3 x 3 pool), gemma4uv (no blocks:
# an unfilled kernel's im2col, three patch norms), mimovl (GQA blocks of
# their own head size, column and row windows with sinks, the reorders),
# minimax_m3 (2D RoPE blocks, a per-patch MLP, then a merger MLP),
# dots3note_v (dots_ocr's graph, dense blocks). Each tower is what `synth clip --set
# type=T` writes; it boots beside a small llama text model on the CPU
# engine, which loads and warms it up (reserving the compute buffer of one
# image of the warmup size). The projector's weights equal the engine's
# "model size", its compute buffer is within 0.5 % of the engine's
# reserve_compute_meta line, and the plan is exact (the projector named
# nowhere as estimated).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # plan_mirrors
. "$(dirname "$0")/../clipcase.sh"
cd "$TMP" || exit 1

# The types this suite boots; archs lists each as mirrored
TYPES2='["glm4v","resampler","step3vl","kimik25","hunyuanvl","cogvlm","youtuvl","exaone4_5","gemma4v","gemma4uv","mimovl","minimax_m3","dots3note_v"]'
clip_listed "the second round's types" "$TYPES2"



# CLIP2_CASES runs other cases (each type's other flash-attention setting,
# checked by hand); by default one boot a type
for c in ${CLIP2_CASES:-glm-fa mcv-nofa s3-fa k25-nofa hy-fa cog-nofa yt-fa ex-nofa g4-fa g4u-nofa mimo-fa mm3-nofa d3n-fa}; do
	case $c in
	glm-fa) clip_case glm-fa "type=glm4v" "FLASH_ATTN=on" ;;
	glm-nofa) clip_case glm-nofa "type=glm4v" "FLASH_ATTN=off" ;;
	mcv-fa) clip_case mcv-fa "type=resampler image=448" "FLASH_ATTN=on" ;;
	mcv-nofa) clip_case mcv-nofa "type=resampler image=448" "FLASH_ATTN=off" ;;
	s3-fa) clip_case s3-fa "type=step3vl image=448" "FLASH_ATTN=on" ;;
	s3-nofa) clip_case s3-nofa "type=step3vl image=448" "FLASH_ATTN=off" ;;
	k25-fa) clip_case k25-fa "type=kimik25 embd=512" "FLASH_ATTN=on" ;;
	k25-nofa) clip_case k25-nofa "type=kimik25 image=448 embd=512" "FLASH_ATTN=off" ;;
	hy-fa) clip_case hy-fa "type=hunyuanvl" "FLASH_ATTN=on" ;;
	hy-nofa) clip_case hy-nofa "type=hunyuanvl" "FLASH_ATTN=off" ;;
	cog-fa) clip_case cog-fa "type=cogvlm image=448" "FLASH_ATTN=on" ;;
	cog-nofa) clip_case cog-nofa "type=cogvlm image=448" "FLASH_ATTN=off" ;;
	yt-fa) clip_case yt-fa "type=youtuvl" "FLASH_ATTN=on" ;;
	yt-nofa) clip_case yt-nofa "type=youtuvl" "FLASH_ATTN=off" ;;
	ex-fa) clip_case ex-fa "type=exaone4_5" "FLASH_ATTN=on" ;;
	ex-nofa) clip_case ex-nofa "type=exaone4_5" "FLASH_ATTN=off" ;;
	g4-fa) clip_case g4-fa "type=gemma4v" "FLASH_ATTN=on" ;;
	g4-nofa) clip_case g4-nofa "type=gemma4v" "FLASH_ATTN=off" ;;
	g4u-fa) clip_case g4u-fa "type=gemma4uv" "FLASH_ATTN=on" ;;
	g4u-nofa) clip_case g4u-nofa "type=gemma4uv" "FLASH_ATTN=off" ;;
	mimo-fa) clip_case mimo-fa "type=mimovl" "FLASH_ATTN=on" ;;
	mimo-nofa) clip_case mimo-nofa "type=mimovl" "FLASH_ATTN=off" ;;
	mm3-fa) clip_case mm3-fa "type=minimax_m3" "FLASH_ATTN=on" ;;
	mm3-nofa) clip_case mm3-nofa "type=minimax_m3" "FLASH_ATTN=off" ;;
	d3n-fa) clip_case d3n-fa "type=dots3note_v" "FLASH_ATTN=on" ;;
	d3n-nofa) clip_case d3n-nofa "type=dots3note_v" "FLASH_ATTN=off" ;;
	k25-fa448) clip_case k25-fa448 "type=kimik25 image=448 embd=512" "FLASH_ATTN=on" ;;
	esac
done
echo "# worst projector compute error: ${CLIP_WORST}%"
