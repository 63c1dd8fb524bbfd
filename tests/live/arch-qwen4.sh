# qwen4exp against the real engine (src/models/qwen4exp.cpp of the pinned
# engine): qwen35moe's Gated DeltaNet hybrid with hyper-connections in
# place of the norms, an n-gram PLE on layer 0 and QSA attention, in
# llama_memory_hybrid_idx (src/llama-memory-hybrid-idx.cpp): the attention
# cache, the indexer's own cache on the same layers (one head of the
# indexer key length, one of the value size), the recurrent state with the
# PLE layer's conv row beside R and S. Each synthetic payload boots
# through `zealot argv` (boot_for_ledger) and answers; every exact term of
# the plan (model, KV with the indexer cache, recurrent with the PLE row,
# output) equals the boot ledger, flash attention on and off, per device
# over rpc-servers, and under --embeddings (where the pinned engine then
# aborts at warm-up). The compute graph (graph_qwen4.c) is mirrored:
# every compute buffer within 0.5 % of the ledger, dense attention
# (compress=0) and QSA, the PLE on or off, flash attention on and off.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # plan_ledger, mirrored_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

run "$ZEALOT" archs
check "archs: qwen4exp is mirrored" grep -qE "^ *qwen4exp +mirrored " "$TMP/out"

# q4_case NAME "synth sets" "KEY=VALUE ...": mirrored_case (synth, boot,
# the answer, every exact term equal to the ledger, every compute buffer
# within 0.5 %, the plan exact), and the indexer cache in the ledger.
q4_case() {
	mirrored_case "$1" qwen4exp "$2" "$3"
	check "$1: the indexer cache is in the ledger's KV" grep -q "creating indexer KV cache" "$1.log"
}

# defaults: 8 layers (2 attention), hc=2, PLE on layer 0, QSA blocks of 4
q4_case q4-fa "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
check "q4-fa: the PLE conv row is priced (P of the recurrent state)" \
	jq -e 'any(.comparison[]; .term=="recurrent" and .part=="p_mib" and .match and .plan > 0)' q4-fa.cmp
# QSA without flash attention: the KQ matrix under the rebuilt mask
q4_case q4-qsa-nofa "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=512"
# four slots in a unified cache, ubatch 64
q4_case q4-ub64 "" "CTX_SIZE=9000 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=64 KV_UNIFIED=1"
# mirrored: dense attention (no compress ratios), no PLE, 4 layers, one slot
q4_case q4-dense "layers=4 ple=0 compress=0" "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
# the same at 8 layers (6 recurrent), flash attention, two slots
q4_case q4-dense-fa "ple=0 compress=0" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
# the n-gram PLE on layer 0: its gather, gate, and conv over its own row
q4_case q4-ple "compress=0" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
# three streams, three slots, a q8_0 K cache, no flash attention
q4_case q4-ple-hc3 "compress=0 hc=3" \
	"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=off UBATCH_SIZE=256 CACHE_TYPE_K=q8_0"
# three streams, a wider indexer, a q8_0 cache over three slots
q4_case q4-q8 "hc=3 idx_dim=128 idx_heads=4" \
	"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=256 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"

# --embeddings: the output buffer holds hc x embd floats per output
# (n_embd_out), which the plan prices; the pinned engine sizes it, then
# aborts at warm-up reading hc x embd floats off result_norm, which is
# embd wide (llama-context.cpp decode: "tensor read out of bounds")
"$ZEALOT" synth qwen4exp --set embd=1024 --set ple=256 -o q4-embd.gguf 2>q4-embd.synth
boot_for_ledger q4-embd "CTX_SIZE=4096 PARALLEL=8 UBATCH_SIZE=256 EMBEDDINGS=on"
check "q4-embd: the pinned engine aborts at warm-up reading the embeddings" \
	grep -q 'tensor read out of bounds' q4-embd.log
run "$ZEALOT" ledger q4-embd.log --endpoint q4-embd.env --json
check "q4-embd: every exact term equals the ledger (output: vocab + hc x embd per slot)" rc_is 0
check "q4-embd: the output buffer is 0.08 MiB ((512 + 2 x 1024) x 8 x 4 bytes)" \
	jq -e 'any(.comparison[]; .term=="output" and .ledger == 0.08 and .match)' "$TMP/out"

# --- placement over rpc-servers: the attention and indexer caches and the
# recurrent rows (the PLE layer's with them) on their layers' devices ---
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	on_server() { # NAME TERM: the ledger holds TERM on a server, equal to the plan
		jq -en --arg t "$2" 'input | any(.comparison[]; .term==$t and (.part|test("^RPC")) and .ledger > 0 and .match)' \
			"$1.cmp" >/dev/null
	}
	# layers 4-7 offloaded: layer 7's caches on the server, layer 3's and the PLE row on the host
	q4_case q4-rpc "" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=4"
	check "q4-rpc: KV on the server" on_server q4-rpc kv
	check "q4-rpc: recurrent state on the server" on_server q4-rpc recurrent
	# two servers: layers 0-3 (the PLE row, layer 3's caches) on one, 4-7 on the other
	q4_case q4-split2 "" "CTX_SIZE=4096 PARALLEL=1 RPC=$R1,$R2 TENSOR_SPLIT=1,1 FLASH_ATTN=off"
	check "q4-split2: KV on a server" on_server q4-split2 kv
	check "q4-split2: recurrent state (the PLE row with it) on a server" on_server q4-split2 recurrent
	rpc_stop
else
	echo "# $RPC_SERVER is missing: the placement cases are skipped"
fi
