# MiniMax-01 (src/models/minimax-01.cpp of the pinned engine) against the
# real engine: lightning attention layers over a head x head state per
# head (hybrid memory: the recurrent cells beside a KV cache for the
# softmax layers), softmax-routed experts in every layer, residuals
# scaled. Each synthetic payload boots through `zealot argv`
# (boot_for_ledger) and answers; every exact term of the plan (model, KV,
# recurrent state, output) equals the boot ledger and every compute
# buffer is within 0.5 % of it, flash attention on and off. With more
# than one slot the engine reserves the prefill a third time as one
# sequence (inp_diag_decay grows with the square of a sequence's tokens):
# the fa and k1 cases hold the plan to that buffer.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

run "$ZEALOT" archs
check "archs: minimax-01 is mirrored" grep -qE "^ *minimax-01 +mirrored " "$TMP/out"

# layers 0-2 lightning, 3 softmax; layers 0 and 2 lightning around 1
mirrored_case mm01-fa minimax-01 "layers=4" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
mirrored_case mm01-nofa minimax-01 "layers=3 interval=2" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
# one expert a token (the experts' view made contiguous by the next
# layer), q8_0 caches, three slots over a unified cache
mirrored_case mm01-k1 minimax-01 "layers=6 interval=3 embd=512 head_dim=128 experts=8 experts_used=1 ff=256" \
	"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0 KV_UNIFIED=1"

# without full_attention_interval the engine's interval is 8, not 4: one
# softmax layer of 8 (the key's name altered in place)
"$ZEALOT" synth minimax-01 --set layers=8 --set interval=8 -o mm01-nokey.gguf 2>mm01-nokey.synth
python3 -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
k = b"minimax-01.full_attention_interval"
i = b.find(k)
b[i + len(k) - 1] = ord("X")
open(sys.argv[1], "wb").write(b)' mm01-nokey.gguf
boot_for_ledger mm01-nokey "CTX_SIZE=4096 PARALLEL=1 UBATCH_SIZE=256"
check_answered mm01-nokey mm01-nokey.log
check "mm01-nokey: the engine keeps one attention layer of 8" grep -q '4096 cells,   1 layers' mm01-nokey.log
plan_ledger mm01-nokey minimax-01

# The pinned engine cannot reserve a shape whose prefill (min(ctx,
# ubatch)) is not a whole number per slot over a per-slot cache when a
# softmax layer is not the last: the one-sequence reserve skips
# graph_reserve's rounding, the attention splits the batch into 3 streams
# of 341 tokens and its output (1023 rows) cannot be added to the
# residual's 1024.
"$ZEALOT" synth minimax-01 --set layers=4 --set interval=3 -o mm01-abort.gguf 2>mm01-abort.synth
boot_for_ledger mm01-abort "CTX_SIZE=6000 PARALLEL=3 UBATCH_SIZE=1024 BATCH_SIZE=1024"
check "mm01-abort: the pinned engine aborts reserving 1024 tokens as one sequence over 3 streams" \
	grep -q 'GGML_ASSERT(ggml_can_repeat(b, a)) failed' mm01-abort.log

# MiniMax-M3 (src/models/minimax-m3.cpp) over its MSA cache: the main
# cache beside the indexer's (one key head of 64 and one value head a
# cell on the layers past the dense lead), every exact term equal. Dense
# attention where the engine runs it (flash attention off, or a unified
# cache over several slots); MiniMax sparse attention otherwise: the
# indexer's block scores over 256 positions (the reserve's), top-k
# blocks, the block mask per stream (the batch graph) or the gathered
# keys of every stream (the decode graph), one flash attention each.
run "$ZEALOT" archs
check "archs: minimax-m3 is mirrored" grep -qE "^ *minimax-m3 +mirrored " "$TMP/out"
mirrored_case m3-nofa minimax-m3 "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=256"
mirrored_case m3-unified minimax-m3 "head_dim=128 experts_used=1" \
	"CTX_SIZE=9000 PARALLEL=4 FLASH_ATTN=on UBATCH_SIZE=512 KV_UNIFIED=1"
mirrored_case m3-sparse minimax-m3 "" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=on UBATCH_SIZE=256"
mirrored_case m3-streams minimax-m3 "lead_dense=0 layers=3 idx_top_k=2" \
	"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"

# --- placement over rpc-servers (a partial -ngl, a split over two, no
# KV offload): per device, every exact term equal and every compute
# buffer within 0.5 %; the sparse graph's per-stream views of its inputs
# are what the server's copies allocate ---
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	mirrored_case mm01-rpc minimax-01 "layers=4" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 NGL=3"
	mirrored_case mm01-split2 minimax-01 "layers=3 interval=2" \
		"CTX_SIZE=4096 PARALLEL=1 RPC=$R1,$R2 TENSOR_SPLIT=1,1 FLASH_ATTN=off"
	mirrored_case mm01-nkvo minimax-01 "layers=4" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 KV_OFFLOAD=0"
	mirrored_case m3-rpc minimax-m3 "" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=3"
	mirrored_case m3-split2 minimax-m3 "" "CTX_SIZE=4096 PARALLEL=1 RPC=$R1,$R2 TENSOR_SPLIT=1,1"
	rpc_stop
else
	echo "# $RPC_SERVER is missing: the placement cases are skipped"
fi

for a in "${!PLAN_WORST_BY[@]}"; do echo "# worst compute error: $a ${PLAN_WORST_BY[$a]}%"; done
