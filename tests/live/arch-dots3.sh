# dots3note against the real engine (src/models/dots3note.cpp): the
# DSA-iSWA cache (llama-kv-cache-dsa-iswa.cpp: the DSA cache of the full
# layers, MLA rows beside the lightning indexer's keys, and the window's
# K-only cache of the sliding layers at their own latent), deepseek32's
# indexer and top-k mask on the full layers, deepseek2's MLA on the
# window's, the rope key normed, the output gated per head before
# attn_output, a dense lead and sigmoid experts beside a shared one. Each
# synthetic payload boots through `zealot argv` (boot_for_ledger) and
# answers; every exact term of the plan (model, KV, KV_SWA, output)
# equals the boot ledger and every compute buffer is within 0.5 % of it,
# flash attention on and off; the plan names the graph as mirrored.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

run "$ZEALOT" archs
check "archs: dots3note is mirrored" grep -qE "^ *dots3note +mirrored " "$TMP/out"

# dots3_ NAME "synth sets" "KEY=VALUE ...": mirrored_case, and the boot
# made the window's cache beside the DSA cache and its indexer's
dots3_() {
	mirrored_case "$1" dots3note "$2" "$3" || return
	check "$1: the boot made the DSA, indexer and window caches" \
		sh -c "grep -qF 'creating DSA KV cache' $1.log && grep -qF 'creating indexer KV cache' $1.log &&
			grep -qF 'creating SWA KV cache' $1.log"
}

# 4 layers: 0 and 2 slide (latent 32, key head 40), 1 and 3 full (64, 48)
dots3_ d3-fa "" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
dots3_ d3-nofa "" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
# the two kinds' own heads and value heads, as dots3-note's converter
# writes them (attention.head_count per layer, value_length_mla_swa)
# with an MTP block (the window's heads, a dense FFN), as the converter
# keeps it: the engine skips its tensors (no graph for it) and filters it
# out of both caches
dots3_ d3-heads "heads=8 heads_swa=4 head_dim_v_swa=48 idx_heads=4 nextn=1" \
	"CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=256"
check "d3-heads: the engine skips the MTP block" grep -qF 'unused tensor blk.4.nextn.eh_proj.weight' d3-heads.log
# 6 layers of 3 (full 2 and 5), a wider window latent, q8_0 caches over
# three slots and ubatch 1024; four slots over a unified cache at ubatch
# 64, the indexer keeping 64 cells of its own 8 heads
dots3_ d3-q8kv "layers=6 swa_pattern=3 kv_lora=96 rope_dims=32 head_dim=64 head_dim_swa=48" \
	"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
dots3_ d3-ub64 "swa=256 idx_heads=8 idx_top_k=64 lead_dense=2" \
	"CTX_SIZE=9000 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=64 KV_UNIFIED=1"
# the memo's affine pieces (from the indexer's top-k on) price what a
# full replay of every graph does
run "$ZEALOT" plan --json d3-ub64.env
cp "$TMP/out" d3-ub64.plan
ZEALOT_FULL_REPLAY=1 "$ZEALOT" plan --json d3-ub64.env >d3-ub64.full 2>/dev/null
check "d3-ub64: the memoised plan's compute equals the full replay's" \
	jq -en --slurpfile full d3-ub64.full 'input | (.compute | length > 0) and .compute == $full[0].compute' d3-ub64.plan
# an rpc-server holding the last layers (2 and 3: a window layer's cache
# and a full layer's DSA and indexer caches on the server)
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	dots3_ d3-ngl "" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=3"
	rpc_stop
else
	echo "# $RPC_SERVER is missing: the placement case is skipped"
fi

echo "# worst compute error: dots3note ${PLAN_WORST}%"
