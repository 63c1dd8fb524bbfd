# More MoE kin of issue 32 against the real engine, one boot each on a
# tiny shape: dbrx, arctic, grok, dots1, bailingmoe, bailingmoe2,
# smallthinker, hunyuan_vl, deepseek2-ocr, plm, minicpm3, exaone-moe,
# granite_swa, grovemoe, hy_v3, cohere2moe, laguna, mimo2, step35,
# muse-glimmer, afmoe.
# Each synthetic
# payload is booted through `zealot argv` (engine.sh boot_for_ledger) and
# answers /health and a completion; every exact term of the plan (model,
# KV, output) equals the boot ledger and every compute buffer is within
# 0.5 % of it (plancase.sh); and the plan names the graph as mirrored.
# The worst compute error of each family is printed as a TAP comment.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh"
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

# dbrx: layer norms, the fused qkv clamped, softmax experts ff wide
mirrored_case dbrx dbrx "vocab=4096" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=256"
# arctic: a dense FFN embd wide beside experts over the layer's input
mirrored_case arctic arctic "vocab=4096 experts_used=1" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=128"
# the experts (over the layer's input) reached before attn_output
mirrored_case arctic-fa arctic "vocab=4096" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=on UBATCH_SIZE=512"
# grok: without flash attention KQ soft-capped; grok-2's dense FFN beside
# GELU experts ff_exp wide, the output norms
mirrored_case grok grok "vocab=4096 ff_exp=256" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off"
# FLASH_ATTN=on: the engine forces it off for grok (llama_init_from_model)
mirrored_case grok-fa grok "vocab=4096 shared=0" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on"
# dots1: q/k norms, a dense lead, sigmoid experts over a selection bias
# beside the shared one, weights normalised and scaled
mirrored_case dots1 dots1 "vocab=4096 layers=3" "CTX_SIZE=4096 PARALLEL=3 FLASH_ATTN=on CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
# bailingmoe: routed and shared experts in every layer
mirrored_case bailingmoe bailingmoe "vocab=4096 shared=2" "CTX_SIZE=4096 PARALLEL=1 UBATCH_SIZE=64"
# bailingmoe2: dots1's FFN, q/k norms over the views of one fused qkv
mirrored_case bailingmoe2 bailingmoe2 "vocab=4096 lead_dense=2 rope_dims=32" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=128"
# smallthinker: the router over the layer's input, its routing reached
# after the attention, before its projection
mirrored_case smallthinker smallthinker "vocab=4096" "CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024"
# hunyuan_vl: hunyuan-dense's block (q/k normed after RoPE)
mirrored_case hunyuan_vl hunyuan_vl "vocab=4096" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
# deepseek2-ocr: deepseek2's trunk without latents, gate and up fused
mirrored_case ds2ocr deepseek2-ocr "vocab=4096 gate_up=1 gating=1 probs_b=0" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=256"
# plm: K and V decompressed from a latent into a plain cache (K 64, V 48
# wide), a squared-ReLU FFN, the output tied
mirrored_case plm plm "vocab=4096 head_dim_v=48" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off"
# minicpm3: q through its latent too, the scales, a gated FFN
mirrored_case minicpm3 minicpm3 "vocab=4096" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=on UBATCH_SIZE=128"
# exaone-moe: dots1's layer over an iSWA cache (q, k, v expanded), RoPE
# on the window's layers only
mirrored_case exaone-moe exaone-moe "vocab=4096 layers=5" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=256"
# granite_swa: an iSWA cache with a sink per head, Granite's scales;
# softmax experts ff wide, gate and up fused; and dense
mirrored_case granite_swa granite_swa "vocab=4096 layers=5 gate_up=1" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=256"
mirrored_case granite_swa-dense granite_swa "vocab=4096 experts=0 swa=256" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=128"
# grovemoe: softmax experts, then chunk experts over their output, both
# routed from one router's logits (the choice over their sigmoid)
mirrored_case grovemoe grovemoe "vocab=4096" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=256"
# hy_v3: dots1's layer, gate and up fused, every row kept to the final
# norm
mirrored_case hy_v3 hy_v3 "vocab=4096 gate_up=1" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=128"
# cohere2moe: a parallel block over an iSWA cache (RoPE on the window's
# and the dense lead's layers), sigmoid experts beside the shared ones,
# their sum halved; every row kept to the final norm, the logits scaled
mirrored_case cohere2moe cohere2moe "vocab=4096 layers=5" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=256"
mirrored_case cohere2moe-nofa cohere2moe "vocab=4096 layers=5 gate_up=1 shared=2" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=128"
# laguna: dots1's attention gated per head (softplus) before its
# projection; sigmoid experts over a selection bias beside a shared one
mirrored_case laguna laguna "vocab=4096 layers=3" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=256"
mirrored_case laguna-nofa laguna "vocab=4096 layers=3" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=128"
# q8_0 caches: build_attn's V rotation undone before the gate
mirrored_case laguna-q8kv laguna "vocab=4096 layers=3" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=256 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
# mimo2: an iSWA cache with a sink per head, RoPE on every layer; a
# dense lead, sigmoid experts over a selection bias, no shared one
mirrored_case mimo2 mimo2 "vocab=4096 layers=5" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=256"
mirrored_case mimo2-nofa mimo2 "vocab=4096 layers=5 probs_b=0" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=128"
# step35: q/k norms, RoPE on every layer under iSWA, a sigmoid gate per
# head; every row kept to the end; experts beside the shared one
mirrored_case step35 step35 "vocab=4096 layers=5" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=256"
mirrored_case step35-nofa step35 "vocab=4096 layers=5 probs_b=0 shared=2" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=128"
# muse-glimmer: dense; the embeddings normed, a sigmoid gate per element
# on the attention, post norms; without flash attention the gate's MUL
# takes the attention's cont_2d over in place (the full layer last)
mirrored_case muse-glimmer muse-glimmer "vocab=4096 layers=5" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=256"
mirrored_case muse-glimmer-nofa muse-glimmer "vocab=4096 layers=4" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=128"
# afmoe: the embeddings scaled, RoPE off on every 4th layer, muse-glimmer's
# gate and post norms around deepseek2's FFN
mirrored_case afmoe afmoe "vocab=4096 layers=5 swa=256" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=on UBATCH_SIZE=128"
mirrored_case afmoe-nofa afmoe "vocab=4096 layers=5 swa=256" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=128"

for a in "${!PLAN_WORST_BY[@]}"; do echo "# worst compute error: $a ${PLAN_WORST_BY[$a]}%"; done
