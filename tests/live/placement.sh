# Placement without a GPU: ggml-rpc-server processes on loopback are
# GPU-class devices to the engine (--rpc), placed, offloaded and split like
# cards. Each shape boots the real engine through `zealot argv`
# (boot_for_ledger), answers /health and one completion (check_answered),
# and every per-device line of its boot ledger
# (model, KV, recurrent state and output buffers exact to 0.01 MiB,
# compute buffers within 5 %) is held against `zealot plan`.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1

[ -x "$RPC_SERVER" ] || {
	echo "not ok - $RPC_SERVER is missing: build the engine with GGML_RPC (scripts/build-engine.sh)"
	exit 0
}
RPC_PORT=
rpc_start && P1=$RPC_PORT && rpc_start && P2=$RPC_PORT
check "two rpc-servers listen on loopback" test -n "${P1:-}" -a -n "${P2:-}"
R1=127.0.0.1:$P1
R2=127.0.0.1:$P2

# On a host whose engine has the AMX buffer, quantized weights there crash
# the pinned engine at warm-up: quantized cases turn the extra buffers off
# there. zealot reads the same CPU facts the engine's native build compiles.
AMX=0
"$ZEALOT" synth llama -o probe.gguf 2>/dev/null
printf 'MODEL_FILE=probe.gguf\nCTX_SIZE=256\n' >probe.env
"$ZEALOT" plan --json probe.env >probe.json 2>/dev/null
jq -e '.cpu.features | test("amx_int8")' probe.json >/dev/null && AMX=1

worst=0
# case_ NAME ARCH "synth sets" "KEY=VALUE ..." [grep for the log]
case_() {
	local name=$1 arch=$2 sets=$3 keys=$4 s args=()
	for s in $sets; do args+=(--set "$s"); done
	"$ZEALOT" synth "$arch" "${args[@]}" -o "$name.gguf" 2>/dev/null
	boot_for_ledger "$name" "$keys"
	check_answered "$name" "$name.log"
	run "$ZEALOT" ledger "$name.log" --endpoint "$name.env" --json
	check "$name: every exact per-device term equals the ledger" rc_is 0
	[ "$rc" -eq 0 ] || jq -c '.comparison[]|select(.match==false)' "$TMP/out" 2>/dev/null | head -5 | sed 's/^/#   /'
	cp "$TMP/out" "$name.cmp"
	local err rel
	# a buffer of a few KiB prints as 0.01 MiB: within the print's resolution it is a match
	err=$(jq '[.comparison[]|select(.term|test("compute"))|if (.diff|fabs) <= 0.01 then 0 else (.error_pct|fabs) end]|max // 0' \
		"$name.cmp" 2>/dev/null)
	rel=$(jq '[.comparison[]|select((.term|test("compute")) and .ledger >= 1)|.error_pct|fabs]|max // 0' "$name.cmp" 2>/dev/null)
	check "$name: every compute buffer within 5% of the ledger (worst ${rel}%)" awk -v e="${err:-999}" 'BEGIN { exit !(e <= 5) }'
	awk -v e="${rel:-0}" -v w="$worst" 'BEGIN { exit !(e > w) }' && worst=$rel
	jq -r '.comparison[]|select(.term=="model" or .term=="kv" or .term=="recurrent" or (.term|test("compute")))|select(.part|test("^[A-Z]"))|"#   \(.term) \(.part): plan \(.plan) ledger \(.ledger) (\(.error_pct)%)"' "$name.cmp" 2>/dev/null
}

jqt() { jq -e "$1" "$2" >/dev/null; } # FILTER FILE: the filter holds

# The engine's own word for each device's line must be there too: a plan
# that names no RPC buffer cannot pass by matching nothing.
has_lines() { # NAME BUFFER...: the ledger held a model line for every BUFFER
	local name=$1 b
	shift
	for b in "$@"; do
		jq -e --arg b "$b" '[.comparison[]|select(.term=="model" and .part==$b and .ledger > 0)]|length==1' \
			"$name.cmp" >/dev/null || return 1
	done
}

# Partial offload: 3 of 5 layers (4 blocks + output) on one server; the
# first block stays on the CPU with its KV.
case_ partial llama "layers=4 embd=1024 ff=2048 heads=8 kv_heads=4 head_dim=128 rope_dims=128" "CTX_SIZE=16384 PARALLEL=2 RPC=$R1 NGL=3 UBATCH_SIZE=1024"
check "partial: offloaded 3/5 layers, as the plan says" grep -q "offloaded 3/5 layers" partial.log
check "partial: model on CPU_Mapped and RPC0[$R1]" has_lines partial CPU_Mapped "RPC0[$R1]"

# Two devices: the colleague's shape (8 layers, -ngl 5, --tensor-split 1,2).
case_ split2 llama "layers=8 embd=512 ff=1024 vocab=8192" "CTX_SIZE=8192 PARALLEL=1 RPC=$R1,$R2 NGL=5 TENSOR_SPLIT=1,2"
check "split2: offloaded 5/9 layers" grep -q "offloaded 5/9 layers" split2.log
check "split2: a model buffer on each server" has_lines split2 "RPC0[$R1]" "RPC0[$R2]" CPU_Mapped

# Every layer on two devices: pipeline parallelism (4 scheduler copies).
case_ pipeline llama "layers=6 embd=512 ff=1024 vocab=4096" "CTX_SIZE=12288 PARALLEL=3 RPC=$R1,$R2 TENSOR_SPLIT=1,1"
check "pipeline: the engine enables pipeline parallelism" grep -q "pipeline parallelism enabled" pipeline.log
check "pipeline: the plan says so" grep -q "pipeline parallelism" <("$ZEALOT" plan pipeline.env)

# --no-kv-offload: every cache on the CPU, the layers on the server.
case_ nkvo llama "embd=512 ff=1024" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 KV_OFFLOAD=0"
check "nkvo: the KV buffer is the CPU's" jqt '[.comparison[]|select(.term=="kv" and .part=="CPU")]|length==1' nkvo.cmp

# -ot: the first blocks' FFN back to the CPU, one attention matrix to the server.
case_ ot llama "layers=6" "CTX_SIZE=4096 PARALLEL=1 RPC=$R1 NGL=4 OVERRIDE_TENSOR=blk\\.[0-3]\\.ffn_(up|down)=CPU,blk\\.0\\.attn_q=RPC0[$R1]"
check "ot: model on CPU_Mapped and RPC0" has_lines ot CPU_Mapped "RPC0[$R1]"

# --n-cpu-moe on a Qwen3-MoE: the first two blocks' experts on the CPU.
case_ moe qwen3moe "layers=4 embd=512 ff_exp=512 experts=16 experts_used=4" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 N_CPU_MOE=2 UBATCH_SIZE=1024"
check "moe: experts split between CPU_Mapped and RPC0" has_lines moe CPU_Mapped "RPC0[$R1]"
check "moe: the CPU's compute buffer runs the experts it holds" \
	jqt '[.comparison[]|select(.term=="compute" and .part=="CPU" and .ledger > 1)]|length==1' moe.cmp

# q4_0 experts on the CPU take the CPU's repacked buffer (an RPC device has
# no pinned host buffer to take them first); off on AMX hosts.
repack=$([ "$AMX" = 1 ] && echo "REPACK=0" || echo "")
case_ moe-q4 qwen3moe "layers=4 type=q4_0 experts=4" "CTX_SIZE=4096 PARALLEL=1 RPC=$R1 N_CPU_MOE=3 NGL=3 $repack"

# A hybrid: Gated DeltaNet state per device.
case_ hybrid qwen35 "nextn=0" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1,$R2 NGL=6 TENSOR_SPLIT=1,1"
check "hybrid: recurrent state on each device" \
	jqt '[.comparison[]|select(.term=="recurrent" and (.part|test("^RPC|^CPU")))]|length>=2' hybrid.cmp

# An MTP drafter: its own context's KV and compute placed like the target's.
case_ mtp qwen35 "" "CTX_SIZE=6144 PARALLEL=2 RPC=$R1 NGL=6 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
check "mtp: the draft context computes on the server and the CPU" \
	jqt '[.comparison[]|select(.term=="draft_compute" and .ledger > 1)]|length==2' mtp.cmp

echo "# worst compute error across the placement grid: ${worst}%"
check "no sanitizer report in any run" no_sanitizer
