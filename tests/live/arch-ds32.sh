# deepseek32 (DeepSeek-V3.2) against the real engine: deepseek2's MLA
# trunk with a lightning indexer per layer over the DSA cache (the MLA
# cache beside a cache of the indexer's keys), the indexer's scores
# (ggml_lightning_indexer, fused: the pinned engine has no switch for it),
# their top-k cells and the attention mask rebuilt from them per layer.
# Each synthetic payload is booted through `zealot argv` (engine.sh
# boot_for_ledger) and answers /health and a completion; every exact term
# of the plan (model, KV with its two caches, output) equals the boot
# ledger and every compute buffer is within 0.5 % of it (plancase.sh),
# over flash attention on and off, one to four slots, ubatches of 64 to
# 1024, q8_0 and q4_0 caches, q4_0 weights, expert groups, the MTP
# drafter, the indexer's own heads and top-k,
# and rpc-servers; and the plan names the graph as mirrored.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh"
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

# ds32_ NAME "synth sets" "KEY=VALUE ...": mirrored_case, and the DSA
# cache's indexer cache in the boot
ds32_() {
	mirrored_case "$1" deepseek32 "$2" "$3" || return
	check "$1: the boot made the indexer's cache" grep -qF 'creating indexer KV cache' "$1.log"
}

run "$ZEALOT" archs --json
check "archs lists deepseek32 as mirrored from its builder" \
	jq -en 'input | (.archs[] | select(.arch == "deepseek32") | .mirrored)' "$TMP/out"

# the four shapes of the other suites: FA on with two slots, FA off with
# one, a small ubatch over a unified cache, q8_0 caches with three slots
# and ubatch 1024
ds32_ ds32-fa "" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
# on a CUDA card ggml-cuda's supports_op decides where TOP_K (at most
# 1024 cells without CUB) and the indexer run: not replayed, and said so
sed 's/^DEVICE=cpu$/DEVICE=rtx3090/' ds32-fa.env >ds32-cuda.env
run "$ZEALOT" plan --json ds32-cuda.env
check "ds32-cuda: the plan names the indexer on a CUDA device as not mirrored" \
	jq -en 'input | (.exact == false and ([.unmirrored[] | select(contains("lightning indexer"))] | length == 1))' "$TMP/out"
run "$ZEALOT" plan --json ds32-fa.env
check "ds32-fa: on the CPU the plan is exact" jq -en 'input | (.exact == true)' "$TMP/out"
ds32_ ds32-nofa "" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
ds32_ ds32-ub64 "layers=6 lead_dense=2" "CTX_SIZE=9000 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=64 KV_UNIFIED=1"
ds32_ ds32-q8kv "vocab=4096 kv_lora=96 rope_dims=32 head_dim=64" \
	"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
# q4_0 weights and caches, softmax gating over expert groups; wider heads
# and latents with more indexer heads than attention heads
ds32_ ds32-q4 "type=q4_0 groups=4 groups_used=2 gating=1 experts=16 experts_used=4 kv_lora=96 rope_dims=32 head_dim=64" \
	"CTX_SIZE=8192 PARALLEL=3 UBATCH_SIZE=384 CACHE_TYPE_K=q4_0 CACHE_TYPE_V=q4_0"
ds32_ ds32-wide "embd=512 heads=8 kv_lora=128 rope_dims=64 head_dim=128 head_dim_v=64 q_lora=256 idx_heads=16 vocab=4096 layers=5" \
	"CTX_SIZE=16384 PARALLEL=1 UBATCH_SIZE=512"
# the indexer with its own head count and top-k; a top-k beyond the
# cache's cells (each token keeps them all: min(n_kv, top_k))
ds32_ ds32-idx "idx_heads=8 idx_top_k=512" "CTX_SIZE=4096 PARALLEL=4 UBATCH_SIZE=256"
ds32_ ds32-topk "idx_top_k=1024" "CTX_SIZE=1024 PARALLEL=2 FLASH_ATTN=off"
run "$ZEALOT" plan --json ds32-topk.env
cp "$TMP/out" ds32-topk.plan
ZEALOT_FULL_REPLAY=1 "$ZEALOT" plan --json ds32-topk.env >ds32-topk.full 2>/dev/null
check "ds32-topk: the memoised plan's compute equals the full replay's" \
	jq -en --slurpfile full ds32-topk.full 'input | (.compute | length > 0) and .compute == $full[0].compute' ds32-topk.plan

# the MTP drafter: its draft context is deepseek2's MTP block (dense MLA,
# no indexer) over a plain K-only cache
ds32_ ds32-mtp "nextn=1" "CTX_SIZE=4096 PARALLEL=2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
ds32_ ds32-mtp-q8 "nextn=1 layers=3 lead_dense=0 kv_lora=96 rope_dims=32 head_dim=64" \
	"CTX_SIZE=8192 PARALLEL=4 UBATCH_SIZE=128 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=3 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
check "ds32-mtp: the ledger has the draft context's compute" \
	jq -en 'input | ([.comparison[]|select(.term=="draft_compute")]|length==1)' ds32-mtp.cmp
# a declared MTP block without a drafter: the block is skipped
# (TENSOR_SKIP), all but its selection bias, which deepseek32.cpp creates
# without the block's flags; mapped, it stretches CPU_Mapped over the
# block (the model term above holds it to the byte)
ds32_ ds32-nextn "nextn=1" "CTX_SIZE=4096 PARALLEL=2"
check "ds32-nextn: the engine skips the MTP block's experts" \
	grep -qF 'unused tensor blk.4.ffn_gate_exps.weight' ds32-nextn.log
check "ds32-nextn: but maps its selection bias" \
	sh -c "! grep -qF 'unused tensor blk.4.exp_probs_b' ds32-nextn.log"

# placement: an rpc-server holding the last layers, two servers splitting
# them with the drafter, and the cache kept on the host
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	ds32_ ds32-ngl "layers=6" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=3"
	ds32_ ds32-split "layers=8 nextn=1" \
		"CTX_SIZE=8192 PARALLEL=2 RPC=$R1,$R2 NGL=10 TENSOR_SPLIT=1,2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
	ds32_ ds32-nkvo "" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 KV_OFFLOAD=0"
	rpc_stop
else
	echo "# $RPC_SERVER is missing: the placement cases are skipped"
fi

echo "# worst compute error: deepseek32 ${PLAN_WORST}%"
