# deepseek4 against the real engine (src/models/deepseek4.cpp and its
# memory, src/llama-kv-cache-dsv4.cpp): a synthetic payload (one K-only
# head over a q latent, sinks, a grouped low-rank output, four
# hyper-connection streams, raw, CSA and HCA layers, hash-routed and
# biased experts beside a shared one) boots through `zealot argv` and
# answers; every exact term of the plan equals the boot ledger: the raw
# window cache (kv_swa), the base half and the CSA, HCA and indexer
# caches (kv), the three compressor states (recurrent), the weights and
# the output, flash attention on and off, a quantized cache, a unified
# KV request (the cache keeps a stream per sequence anyway).
#
# Its compute graph is mirrored (graph_deepseek4.c): every compute
# buffer within PLAN_TOL_PCT (0.5 %) of the ledger's, the plan exact.
# The engine aborts in its scheduler on an AMX host with weights in the
# AMX buffer (law S16, held below), so the cases boot REPACK=0.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

run "$ZEALOT" archs
check "archs: deepseek4 is mirrored" grep -qE "^ *deepseek4 +mirrored " "$TMP/out"

# ds4_case NAME "synth sets" "KEY=VALUE ...": mirrored_case (synth, boot,
# answered, every exact term equal, every compute buffer within 0.5 %,
# the plan exact) with REPACK=0, and the ledger holds the compressed
# caches and the states.
ds4_case() {
	mirrored_case "$1" deepseek4 "$2" "$3 REPACK=0" || return
	check "$1: the ledger holds the compressed caches and the states" ledger_holds_dsv4 "$1.cmp"
}

# ledger_holds_dsv4 JSON: a ledger --json whose kv holds compressed
# layers and whose recurrent state the states' layers.
ledger_holds_dsv4() {
	jq -e '.target.kv.layers > 0 and .target.recurrent.layers > 0' "$1" >/dev/null
}

# On a CUDA or Vulkan device the mirror is not proven (not booted; a
# device without the fused DSV4 ops turns them off): the plan says so.
cuda_named() {
	sed 's/^DEVICE=cpu$/DEVICE=rtx3090/' ds4-fa.env >ds4-cuda.env
	"$ZEALOT" plan --json ds4-cuda.env 2>/dev/null | jq -en 'input | .exact == false and
		any(.unmirrored[]; test("deepseek4. on a CUDA or Vulkan device"))' >/dev/null
}

# The AMX fault (law S16): with REPACK on, an AMX build puts the f16
# grouped output projection (attn_output_a) in its AMX buffer, which
# refuses the graph's matmul by a permuted operand: the engine aborts
# while reserving. `check` raises S16 exactly when the engine dies so;
# on a host without AMX both stay quiet.
must "$ZEALOT" synth deepseek4 -o ds4-amx.gguf
_boot_once ds4-amx "CTX_SIZE=4096 PARALLEL=1"
"$ZEALOT" check --json ds4-amx.env >ds4-amx.check 2>/dev/null
s16=$(jq '[.findings[]|select(.law=="S16")]|length' ds4-amx.check)
fate=answered
[ -z "$ASK_EXIT" ] && [ "$ASK_HTTP" = 200 ] || fate=died
want=answered
[ "${s16:-0}" -eq 0 ] || want=died
check "ds4-amx REPACK on: S16 raised ${s16:-0} time(s), and the engine $fate" test "$fate" = "$want"

ds4_case ds4-fa "answer=hi vocab=1024" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
check "ds4-fa on an rtx3090: the plan names its compute as not mirrored" cuda_named
ds4_case ds4-nofa "answer=hi vocab=1024 layers=6 raw_layers=2" \
	"CTX_SIZE=8192 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
ds4_case ds4-q8 "answer=hi vocab=1024" \
	"CTX_SIZE=4096 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
ds4_case ds4-unified "answer=hi vocab=1024 hash_layers=2" "CTX_SIZE=4096 PARALLEL=2 KV_UNIFIED=on UBATCH_SIZE=256"
# a unified cache still reserves a stream per slot (sched_reserve's ubatch
# holds n_seq_max sequences): 4 slots, FA off, ubatch 64 (was -33 % with
# one stream)
ds4_case ds4-ub64 "answer=hi vocab=1024" "CTX_SIZE=9000 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=64 KV_UNIFIED=on"

# placement: an rpc-server holding the last layers (their caches and
# states with them), and the caches kept on the host
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	ds4_case ds4-ngl "answer=hi vocab=1024 layers=6" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=3"
	ds4_case ds4-nkvo "answer=hi vocab=1024" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 KV_OFFLOAD=0"
	rpc_stop
else
	echo "# $RPC_SERVER is missing: the placement cases are skipped"
fi
echo "# worst compute error: ${PLAN_WORST}%"
