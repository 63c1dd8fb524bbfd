# Placement without a GPU: ggml-rpc-server processes on loopback are
# GPU-class devices to the engine (--rpc), placed, offloaded and split like
# cards. Each shape boots the real engine through `zealot argv`
# (boot_for_ledger), answers /health and one completion (check_answered),
# and every per-device line of its boot ledger
# (model, KV, recurrent state and output buffers exact to 0.01 MiB,
# compute buffers within 5 %) is held against `zealot plan`.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh"
cd "$TMP" || exit 1

[ -x "$RPC_SERVER" ] || {
	echo "not ok - $RPC_SERVER is missing: build the engine with GGML_RPC (scripts/build-engine.sh)"
	exit 0
}
rpc_pair

# On a host whose engine has the AMX buffer, quantized weights there crash
# the pinned engine at warm-up: quantized cases turn the extra buffers off
# there. zealot reads the same CPU facts the engine's native build compiles.
amx_host || exit 1

jqt() { jq -en "input | ($1)" "$2" >/dev/null; } # FILTER FILE: the filter holds

# The engine's own word for each device's line must be there too: a plan
# that names no RPC buffer cannot pass by matching nothing.
has_lines() { # NAME BUFFER...: the ledger held a model line for every BUFFER
	local name=$1 b
	shift
	for b in "$@"; do
		jq -en --arg b "$b" 'input | ([.comparison[]|select(.term=="model" and .part==$b and .ledger > 0)]|length==1)' \
			"$name.cmp" >/dev/null || return 1
	done
}

# Partial offload: 3 of 5 layers (4 blocks + output) on one server; the
# first block stays on the CPU with its KV.
plan_case partial llama "layers=4 embd=1024 ff=2048 heads=8 kv_heads=4 head_dim=128 rope_dims=128" "CTX_SIZE=16384 PARALLEL=2 RPC=$R1 NGL=3 UBATCH_SIZE=1024"
check "partial: offloaded 3/5 layers, as the plan says" grep -q "offloaded 3/5 layers" partial.log
check "partial: model on CPU_Mapped and RPC0[$R1]" has_lines partial CPU_Mapped "RPC0[$R1]"

# Two devices: the colleague's shape (8 layers, -ngl 5, --tensor-split 1,2).
plan_case split2 llama "layers=8 embd=512 ff=1024 vocab=8192" "CTX_SIZE=8192 PARALLEL=1 RPC=$R1,$R2 NGL=5 TENSOR_SPLIT=1,2"
check "split2: offloaded 5/9 layers" grep -q "offloaded 5/9 layers" split2.log
check "split2: a model buffer on each server" has_lines split2 "RPC0[$R1]" "RPC0[$R2]" CPU_Mapped

# Every layer on two devices: pipeline parallelism (4 scheduler copies).
plan_case pipeline llama "layers=6 embd=512 ff=1024 vocab=4096" "CTX_SIZE=12288 PARALLEL=3 RPC=$R1,$R2 TENSOR_SPLIT=1,1"
check "pipeline: the engine enables pipeline parallelism" grep -q "pipeline parallelism enabled" pipeline.log
check "pipeline: the plan says so" grep -q "pipeline parallelism" <("$ZEALOT" plan pipeline.env)

# --no-kv-offload: every cache on the CPU, the layers on the server.
plan_case nkvo llama "embd=512 ff=1024" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 KV_OFFLOAD=0"
check "nkvo: the KV buffer is the CPU's" jqt '[.comparison[]|select(.term=="kv" and .part=="CPU")]|length==1' nkvo.cmp

# -ot: the first blocks' FFN back to the CPU, one attention matrix to the server.
plan_case ot llama "layers=6" "CTX_SIZE=4096 PARALLEL=1 RPC=$R1 NGL=4 OVERRIDE_TENSOR='blk\\.[0-3]\\.ffn_(up|down)=CPU,blk\\.0\\.attn_q=RPC0[$R1]'"
check "ot: model on CPU_Mapped and RPC0" has_lines ot CPU_Mapped "RPC0[$R1]"

# --n-cpu-moe on a Qwen3-MoE: the first two blocks' experts on the CPU.
plan_case moe qwen3moe "layers=4 embd=512 ff_exp=512 experts=16 experts_used=4" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 N_CPU_MOE=2 UBATCH_SIZE=1024"
check "moe: experts split between CPU_Mapped and RPC0" has_lines moe CPU_Mapped "RPC0[$R1]"
check "moe: the CPU's compute buffer runs the experts it holds" \
	jqt '[.comparison[]|select(.term=="compute" and .part=="CPU" and .ledger > 1)]|length==1' moe.cmp

# q4_0 experts on the CPU take the CPU's repacked buffer (an RPC device has
# no pinned host buffer to take them first); off on AMX hosts.
repack=$([ "$AMX" = 1 ] && echo "REPACK=0" || echo "")
plan_case moe-q4 qwen3moe "layers=4 type=q4_0 experts=4" "CTX_SIZE=4096 PARALLEL=1 RPC=$R1 N_CPU_MOE=3 NGL=3 $repack"

# A hybrid: Gated DeltaNet state per device.
plan_case hybrid qwen35 "nextn=0" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1,$R2 NGL=6 TENSOR_SPLIT=1,1"
check "hybrid: recurrent state on each device" \
	jqt '[.comparison[]|select(.term=="recurrent" and (.part|test("^RPC|^CPU")))]|length>=2' hybrid.cmp

# An MTP drafter: its own context's KV and compute placed like the target's.
plan_case mtp qwen35 "" "CTX_SIZE=6144 PARALLEL=2 RPC=$R1 NGL=6 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
check "mtp: the draft context computes on the server and the CPU" \
	jqt '[.comparison[]|select(.term=="draft_compute" and .ledger > 1)]|length==2' mtp.cmp

echo "# worst compute error across the placement grid: ${PLAN_WORST}%"
check "no sanitizer report in any run" no_sanitizer
