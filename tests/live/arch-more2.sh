# More architectures against the real engine (src/models/NAME.cpp of the
# pinned engine): paddleocr (ernie4_5's tensors under qwen2vl's M-RoPE
# graph, the output projection's bias optional), cogvlm (fused MHA q, k
# and v, the image tokens' weights beside the text's, no output ids: every
# row to the logits). Each synthetic payload
# boots through `zealot argv` (boot_for_ledger) and answers; every exact
# term of the plan (model, KV, output) equals the boot ledger and every
# compute buffer is within 0.5 % of it, flash attention on and off.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

MORE2="paddleocr cogvlm"
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

for a in "${!PLAN_WORST_BY[@]}"; do echo "# worst compute error: $a ${PLAN_WORST_BY[$a]}%"; done
