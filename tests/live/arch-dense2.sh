# Dense decoders people serve, against the real engine: gemma
# (src/models/gemma.cpp: every layer full, no post norms, the output tied
# to the embedding). Each synthetic payload boots through `zealot argv`
# (boot_for_ledger) and answers; every exact term of the plan (model, KV,
# output) equals the boot ledger and every compute buffer is within 0.5 %
# of it, flash attention on and off.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

run "$ZEALOT" archs
check "archs: gemma is mirrored" grep -qE '^ *gemma +mirrored ' "$TMP/out"

DENSE="layers=4 embd=512 heads=8 kv_heads=2 head_dim=64 ff=1024 vocab=4096"
mirrored_case gem-fa gemma "$DENSE" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
mirrored_case gem-nofa gemma "$DENSE" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"

for a in "${!PLAN_WORST_BY[@]}"; do echo "# worst compute error: $a ${PLAN_WORST_BY[$a]}%"; done
