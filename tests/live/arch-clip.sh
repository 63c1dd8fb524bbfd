# The projector (mmproj, MMPROJ_FILE) against the real engine: the
# compute buffer tools/mtmd/clip.cpp reserves at load (warmup: the graph of
# one image of the warmup size, flash attention on unless the endpoint
# turns it off) is replayed over the engine's own clip graph for the
# projector types plan mirrors (src/plan/graph/graph_clip.c): mlp (llava,
# every block but the last, the patches' rows, mm.0, GELU, mm.2), gemma3
# (siglip's build_vit, the 4 x 4 average pool, the RMS norm, the input
# projection), qwen2vl_merger and qwen2.5vl_merger (two patch embeddings,
# the 2 x 2 merge, M-RoPE; 2.5's RMS norms, gated FFN and window attention
# over a mask every other block), qwen3vl_merger (fused qkv, the learned
# positions resized, a deepstack layer), idefics3 (siglip's blocks, the
# pixel shuffle), internvl (the class row, layer scales, the shuffle, a
# layer-normed MLP), pixtral (2D RoPE, the 2 x 2 patch merger by im2col,
# [IMG_BREAK] rows) and llama4 (the unfold convolution, the class row, 2D
# RoPE, the shuffle, the MLP), lightonocr (pixtral's without [IMG_BREAK]),
# janus_pro, phi4 and lfm2 (siglip's blocks, the positions resized, an
# MLP; lfm2's shuffle and norm), kimivl (2D RoPE, the shuffle, a
# per-patch norm), paddleocr (M-RoPE, a norm, the shuffle),
# nemotron_v2_vl (register rows, the shuffle, an RMS norm, squared ReLU)
# and dots_ocr (RMS blocks, M-RoPE, mm.post_norm, the shuffle). Each tower
# is what
# `synth clip --set type=T` writes; it boots beside a small llama text
# model on the CPU engine, which loads and warms it up. The projector's
# weights equal the engine's "model size" and its compute buffer is within
# 0.5 % of the engine's reserve_compute_meta line; the plan is exact (the
# projector named nowhere as estimated). A tower synth writes that the
# builder does not fit (the bonsai preset: no second patch embedding) is
# planned with the estimate, and the plan says so.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # plan_mirrors
. "$(dirname "$0")/../clipcase.sh"
cd "$TMP" || exit 1

run "$ZEALOT" archs --json
check "archs: clip counts its mirrored projector types (17 here, more in arch-clip2.sh and arch-clip-audio.sh)" \
	json_is '[.archs[]|select(.arch=="clip")|.projectors|.mirrored == (.types|length) and .mirrored >= 17]' '[true]'
check "archs: clip is still not counted mirrored as a model (S18)" \
	json_is '[.archs[]|select(.arch=="clip")|.mirrored]' '[false]'



clip_case mlp-nofa "image=672" "FLASH_ATTN=off"
clip_case g3-fa "type=gemma3 image=672" "FLASH_ATTN=on"
clip_case q2-nofa "type=qwen2vl_merger" "FLASH_ATTN=off"
clip_case q25-fa "type=qwen2.5vl_merger" "FLASH_ATTN=on"
clip_case q25-nofa "type=qwen2.5vl_merger" "FLASH_ATTN=off"
clip_case q3-fa "type=qwen3vl_merger embd=128" "FLASH_ATTN=on"
clip_case id3-nofa "type=idefics3 image=448" "FLASH_ATTN=off"
clip_case ivl-fa "type=internvl image=448" "FLASH_ATTN=on"
clip_case pix-nofa "type=pixtral" "FLASH_ATTN=off"
clip_case lo-fa "type=lightonocr" "FLASH_ATTN=on"
clip_case l4-fa "type=llama4 image=448" "FLASH_ATTN=on"
clip_case jp-nofa "type=janus_pro image=448" "FLASH_ATTN=off"
clip_case phi-fa "type=phi4 image=448 embd=512" "FLASH_ATTN=on"
clip_case lf-nofa "type=lfm2" "FLASH_ATTN=off"
clip_case kv-fa "type=kimivl" "FLASH_ATTN=on"
clip_case po-nofa "type=paddleocr" "FLASH_ATTN=off"
clip_case nm-fa "type=nemotron_v2_vl image=448" "FLASH_ATTN=on"
clip_case dt-nofa "type=dots_ocr" "FLASH_ATTN=off"
echo "# worst projector compute error: ${CLIP_WORST}%"

# A tower the builders do not fit is estimated, and said to be
must "$ZEALOT" synth clip --preset bonsai-9b-mmproj -o bonsai-mm.gguf || exit 1
printf 'MODEL_FILE=text256.gguf\nMMPROJ_FILE=bonsai-mm.gguf\nCTX_SIZE=512\n' >est.env
run "$ZEALOT" plan --json est.env
check "estimated: plan --json says the projector compute is estimated, and why" \
	json_is '.unmirrored' '["projector compute estimated (type qwen3vl_merger not mirrored: no second patch embedding)"]'
check "estimated: the plan is not exact" json_is '.exact' 'false'
run "$ZEALOT" plan est.env
check "estimated: plan's output says so too" grep -q "projector compute estimated (type qwen3vl_merger" "$TMP/out"
