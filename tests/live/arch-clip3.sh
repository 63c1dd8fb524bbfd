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
. "$(dirname "$0")/../clipcase.sh"
cd "$TMP" || exit 1

# The types this suite boots; archs lists each as mirrored
TYPES3='["ldp","ldpv2","adapter"]'
clip_listed "the third round's types" "$TYPES3"



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
echo "# worst projector compute error: ${CLIP_WORST}%"
