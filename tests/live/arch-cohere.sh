# Command R, Cohere 2, MiniMax-M2 and Llama 4 against the real engine.
# Each synthetic payload is booted through `zealot argv` (boot_for_ledger)
# and answers /health and a completion (check_answered); every exact term
# of the plan (model, KV, SWA KV, output) equals the boot ledger and every
# compute buffer is within 0.5 % of it (plan_case with PLAN_TOL_PCT=0.5),
# over flash attention on and off, one to four slots, ubatches of 64 to
# 1024 and a quantized cache, and through rpc-servers (a partial -ngl, a
# split over two, --no-kv-offload, --n-cpu-moe); `zealot plan` does not
# call the graph an estimate and `zealot archs` lists the architecture as
# mirrored. The worst compute error of each architecture is printed as a
# TAP comment.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh"
cd "$TMP" || exit 1

PLAN_TOL_PCT=0.5

mirrored() { # ARCH: `zealot archs --json` lists it as mirrored
	"$ZEALOT" archs --json | jq -en --arg a "$1" 'input | (.archs[]|select(.arch==$a)|.mirrored==true)' >/dev/null
}

DENSE="layers=6 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=1024 vocab=4096"

# --- command-r: a parallel block (one layer norm feeds the attention and
# the FFN), the output tied to token_embd, logits scaled ---
check "command-r: zealot archs lists it as mirrored" mirrored command-r
mirrored_shapes cmdr command-r "$DENSE"
# at 64 layers the engine loads per-head q and k layer norms
mirrored_case cmdr-64 command-r "layers=64 embd=256 heads=4 kv_heads=2 head_dim=64 rope_dims=64 ff=512 vocab=2048" \
	"CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"

# --- cohere2: command-r's block over an iSWA cache, a 512 window on three
# layers of four (the engine's default period), RoPE only on those ---
check "cohere2: zealot archs lists it as mirrored" mirrored cohere2
mirrored_shapes coh2 cohere2 "$DENSE layers=8"
# the period from the key: every 2nd layer global
mirrored_case coh2-p2 cohere2 "$DENSE swa_pattern=2" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"

# --- minimax-m2: q and k normed over their whole width, partial RoPE,
# sigmoid-gated experts ff wide with a selection bias, weights normalised ---
MOE="layers=4 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=32 ff=256 vocab=4096 experts=8 experts_used=2"
check "minimax-m2: zealot archs lists it as mirrored" mirrored minimax-m2
mirrored_shapes mmx minimax-m2 "$MOE"
# the gating function as the payload states it (expert_gating_func 1: softmax)
mirrored_case mmx-soft minimax-m2 "$MOE gating=1" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"

# --- llama4: chunked attention (the engine's 8192-cell chunks) on three
# layers of four, the fourth without RoPE and with the per-token
# temperature; q and k rms-normed after RoPE; experts on every 2nd layer
# (weights applied before the experts) beside a shared expert ---
L4="layers=8 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=1024 ff_exp=256 vocab=4096 experts=8 experts_used=1"
check "llama4: zealot archs lists it as mirrored" mirrored llama4
mirrored_shapes l4 llama4 "$L4"
# the window key is not the chunk: 512 written, 8192 cells chunked (an
# SWA cache of 8192 + 512 cells beside the 32768 one)
mirrored_case l4-chunk llama4 "$L4 swa=512" "CTX_SIZE=32768 PARALLEL=1 FLASH_ATTN=on UBATCH_SIZE=512"
check "l4-chunk: the SWA cache holds 8704 cells (the engine's chunk, not the key's 512)" \
	grep -q 'creating     SWA KV cache, size = 8704 cells' l4-chunk.log
# 128 experts: no q/k norms (use_kq_norm); every layer MoE, two experts each
mirrored_case l4-128 llama4 "$L4 experts=128 experts_used=2 interval=1" \
	"CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=512"
# attention.sliding_window = 0: one cache, RoPE on all but the last layer.
# The pinned engine sizes it (every term is held to its ledger) but aborts
# at warm-up: the temperature input is built while its scale stays 0
# (llama-graph.cpp: GGML_ASSERT(f_attn_temp_scale != 0.0f)); docs/planner.md
"$ZEALOT" synth llama4 $(printf -- '--set %s ' $L4 swa=0) -o l4-nowin.gguf 2>l4-nowin.synth
boot_for_ledger l4-nowin "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
check "l4-nowin: the pinned engine aborts at warm-up on the temperature scale it never set" \
	grep -q 'GGML_ASSERT(f_attn_temp_scale != 0.0f) failed' l4-nowin.log
check "l4-nowin: one KV cache, no SWA cache" sh -c "! grep -q 'SWA KV cache' l4-nowin.log"
plan_ledger l4-nowin llama4

# a q8_0 K cache without flash attention: the K rotation on the softmax path
KQ8="CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=512 CACHE_TYPE_K=q8_0"
mirrored_case cmdr-kq8 command-r "$DENSE" "$KQ8"
mirrored_case coh2-kq8 cohere2 "$DENSE layers=8" "$KQ8"
mirrored_case mmx-kq8 minimax-m2 "$MOE" "$KQ8"
mirrored_case l4-kq8 llama4 "$L4" "$KQ8"

# --- placement: each family over rpc-servers (a partial -ngl, a split
# over two, --no-kv-offload, --n-cpu-moe): per device, every exact term
# equal and every compute buffer within 0.5 % ---
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	on_server() { # NAME TERM: the ledger holds TERM on a server
		jq -en --arg t "$2" 'input | ([.comparison[]|select(.term==$t and (.part|test("^RPC")) and .ledger > 0)]|length>=1)' \
			"$1.cmp" >/dev/null
	}
	mirrored_case cmdr-rpc command-r "$DENSE" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=4"
	check "cmdr-rpc: offloaded 4/7 layers" grep -q "offloaded 4/7 layers" cmdr-rpc.log
	mirrored_case cmdr-split2 command-r "$DENSE" "CTX_SIZE=8192 PARALLEL=1 RPC=$R1,$R2 TENSOR_SPLIT=1,2 FLASH_ATTN=off"
	check "cmdr-split2: compute on both servers" \
		jq -en 'input | ([.comparison[]|select((.term|test("compute")) and (.part|test("^RPC")))]|length==2)' cmdr-split2.cmp
	mirrored_case coh2-rpc cohere2 "$DENSE layers=8" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 NGL=5"
	check "coh2-rpc: window KV on the server" on_server coh2-rpc kv_swa
	mirrored_case coh2-nkvo cohere2 "$DENSE layers=8" "CTX_SIZE=4096 PARALLEL=1 RPC=$R1 KV_OFFLOAD=0 FLASH_ATTN=off"
	check "coh2-nkvo: no KV on the server" sh -c "! jq -en 'input | ([.comparison[]|select((.term|test(\"^kv\")) and (.part|test(\"^RPC\")))]|length>=1)' coh2-nkvo.cmp >/dev/null"
	mirrored_case mmx-cpumoe minimax-m2 "$MOE" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 N_CPU_MOE=2"
	mirrored_case mmx-split2 minimax-m2 "$MOE" "CTX_SIZE=4096 PARALLEL=1 RPC=$R1,$R2 TENSOR_SPLIT=1,1 UBATCH_SIZE=1024"
	mirrored_case l4-rpc llama4 "$L4" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 NGL=5"
	check "l4-rpc: window KV on the server" on_server l4-rpc kv_swa
	mirrored_case l4-split2 llama4 "$L4" "CTX_SIZE=8192 PARALLEL=1 RPC=$R1,$R2 TENSOR_SPLIT=1,1 FLASH_ATTN=off"
	rpc_stop
else
	echo "# $RPC_SERVER is missing: the placement cases are skipped"
fi

for a in "${!PLAN_WORST_BY[@]}"; do
	echo "# $a: worst compute error ${PLAN_WORST_BY[$a]}%"
done
