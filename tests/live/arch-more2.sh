# More architectures against the real engine (src/models/NAME.cpp of the
# pinned engine): paddleocr (ernie4_5's tensors under qwen2vl's M-RoPE
# graph, the output projection's bias optional), cogvlm (fused MHA q, k
# and v, the image tokens' weights beside the text's, no output ids: every
# row to the logits), glm-dsa (deepseek32's graph; synth writes GLM-5.2's
# indexer types, so layers 3 to 5 of 6 reuse layer 2's top-k cells and
# hold no indexer keys), plamo2 (its own mamba mixer, no groups, dt, B
# and C RMS-normed; fused attention with per-head norms every 4th layer;
# post norms). Each synthetic payload
# boots through `zealot argv` (boot_for_ledger) and answers; every exact
# term of the plan (model, KV, output) equals the boot ledger and every
# compute buffer is within 0.5 % of it, flash attention on and off.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

MORE2="paddleocr cogvlm glm-dsa plamo2"
run "$ZEALOT" archs
for a in $MORE2; do
	check "archs: $a is mirrored" grep -qE "^ *$a +mirrored " "$TMP/out"
done

DENSE="layers=3 embd=512 heads=8 kv_heads=2 head_dim=64 ff=1024 vocab=1024"
mirrored_case pocr-fa paddleocr "$DENSE" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
mirrored_case pocr-nofa paddleocr "$DENSE" "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
SMALL="layers=3 vocab=1024"
mirrored_case cog-fa cogvlm "$SMALL" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
mirrored_case cog-nofa cogvlm "$SMALL" "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
# glm-dsa: 6 layers, indexers full on 0, 1 and 2 (GLM-5.2's pattern)
GLM="layers=6 lead_dense=1"
mirrored_case glm-fa glm-dsa "$GLM" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
mirrored_case glm-nofa glm-dsa "$GLM" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
mirrored_case glm-mtp glm-dsa "$GLM nextn=1" "CTX_SIZE=4096 PARALLEL=2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
# plamo2: layers 0-2 and 4 mixers, 3 and 7 attention
P2="layers=8 vocab=1024"
mirrored_case plamo2-fa plamo2 "$P2" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
mirrored_case plamo2-nofa plamo2 "$P2" "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
mirrored_case plamo2-p4 plamo2 "layers=4 vocab=1024" "CTX_SIZE=4096 PARALLEL=4 UBATCH_SIZE=128 CACHE_TYPE_K=q8_0"

for a in "${!PLAN_WORST_BY[@]}"; do echo "# worst compute error: $a ${PLAN_WORST_BY[$a]}%"; done
