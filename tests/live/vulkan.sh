# The Vulkan backend, measured: llama.cpp built with ggml-vulkan
# (scripts/build-engine.sh --vulkan) runs on Mesa's lavapipe, a CPU Vulkan
# driver, so every rule ggml-vulkan and the scheduler apply to a card
# (buffer types and alignment, supported ops and the splits they cause, the
# pinned host buffer, flash attention per cache type, the node reordering
# of graph_optimize, two devices) is held against a real Vulkan device here. Each shape boots through `zealot argv` with
# DEVICE=lavapipe (boot_for_ledger, BOOT_DEVICE), answers, and every exact
# term (model, KV, recurrent state, output) equals the ledger to 0.01 MiB
# and every compute buffer is within 0.5 % (plancase.sh).
#
# lavapipe is a CPU-type Vulkan device, which ggml-vulkan ignores unless
# GGML_VK_VISIBLE_DEVICES lists it (GPU= sets it in the unit; law C13
# refuses lavapipe without GPU: the engine then runs on the CPU). Its shader
# cache is private to the engine's build (a cold cache costs 13-15 s a
# boot, a warm one 0.5 s); LP_NUM_THREADS=1 as --threads 1 (engine.sh).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TMP" || exit 1

VK=${ZEALOT_ENGINE_VULKAN:-}
if [ -z "$VK" ]; then
	# make test builds it (tests/run's engine step); a suite run alone
	# builds it too when the cache lacks it
	VK=$("$root/scripts/build-engine.sh" --vulkan 2>vk-build.err) || VK=
fi
if [ -z "$VK" ] || [ ! -x "$VK/llama-server" ]; then
	echo "not ok - the Vulkan engine could not be built (scripts/build-engine.sh --vulkan):"
	tail -5 vk-build.err 2>/dev/null | sed 's/^/#   /'
	exit 0
fi
SERVER=$VK/llama-server
# ggml-vulkan reorders each split's nodes (graph_optimize) and the planner
# mirrors it: every case boots with it on, as a unit does, but the last,
# which turns it off (GGML_VK_DISABLE_GRAPH_OPTIMIZE, read by the planner
# as by the engine) and must then match the graph-order figure.
unset GGML_VK_DISABLE_GRAPH_OPTIMIZE
export GGML_VK_VISIBLE_DEVICES=0 LP_NUM_THREADS=1 MESA_SHADER_CACHE_DIR=$VK/../mesa-shader-cache
mkdir -p "$MESA_SHADER_CACHE_DIR"
BOOT_DEVICE=lavapipe
PLAN_TOL_PCT=0.5

if ! "$SERVER" --list-devices 2>&1 | grep -q 'Vulkan0'; then
	echo "not ok - lavapipe is not visible to the Vulkan engine (mesa-vulkan-drivers, scripts/install-deps.sh):"
	"$SERVER" --list-devices 2>&1 | tail -3 | sed 's/^/#   /'
	exit 0
fi

jqt() { jq -en "input | ($1)" "$2" >/dev/null; } # FILTER FILE: the filter holds
has_part() { # NAME TERM PART: the comparison has a TERM line for PART the ledger holds
	jq -en --arg t "$2" --arg p "$3" \
		'input | ([.comparison[]|select(.term==$t and .part==$p and .ledger > 0)]|length==1)' "$1.cmp" >/dev/null
}

# Dense, flash attention on: weights, KV and compute on Vulkan0, the
# scheduler's inputs in Vulkan_Host.
plan_case dense-fa llama "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on"
check "dense-fa: model and KV on Vulkan0" has_part dense-fa kv Vulkan0
check "dense-fa: a Vulkan_Host compute buffer" has_part dense-fa compute Vulkan_Host
check "dense-fa: graph splits as for a card" grep -qE "graph splits = [12]$" dense-fa.log

# Flash attention off: softmax attention on the device.
plan_case dense-nofa llama "" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"

# A q8_0 K cache without flash attention: ggml-vulkan's MUL_MAT takes no
# quantized src0 strided by the KV heads, so every layer's KQ runs on the
# CPU (a split per layer) and its inputs are copied into Vulkan_Host.
plan_case q8k-nofa llama "" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off CACHE_TYPE_K=q8_0"
check "q8k-nofa: the plan says KQ runs on the CPU" grep -q "runs on the CPU" <("$ZEALOT" plan q8k-nofa.env)

# Quantized caches with flash attention: on the device.
plan_case q8kv-fa llama "" "CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
plan_case q4kv-fa llama "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on CACHE_TYPE_K=q4_0 CACHE_TYPE_V=q4_0"

# Partial offload: two of five layers on the host.
plan_case partial llama "layers=4 embd=1024 ff=2048 heads=8 kv_heads=4 head_dim=128 rope_dims=128" "CTX_SIZE=8192 PARALLEL=2 NGL=3 UBATCH_SIZE=1024"
check "partial: offloaded 3/5 layers" grep -q "offloaded 3/5 layers" partial.log

# Sliding window, hybrid recurrent, MLA, MoE.
plan_case swa gemma3 "" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on"
plan_case hybrid qwen35 "nextn=0" "CTX_SIZE=4096 PARALLEL=2"
plan_case mla deepseek2 "" "CTX_SIZE=4096 PARALLEL=1"
plan_case moe qwen3moe "layers=4 embd=512 ff_exp=512 experts=16 experts_used=4" "CTX_SIZE=4096 PARALLEL=2 UBATCH_SIZE=1024"

# Held back: families and shapes the reordering moves (graph order 0.5-1 MiB
# apart from the engine's), none named above.
plan_case oss gpt-oss "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on"
plan_case glm4moe glm4moe "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=1024"
plan_case mistral3 mistral3 "" "CTX_SIZE=8192 PARALLEL=1 FLASH_ATTN=on"
# MLA over two streams: v_mla's product has ne[3] 2 against the weight's 1,
# which ggml-vulkan's MUL_MAT refuses: a CPU split per layer, and the
# reordering stays within each split.
plan_case mla-streams deepseek2 "" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=off"
check "mla-streams: a split per layer, as planned" grep -qE "graph splits = 10$" mla-streams.log

# Two Vulkan devices: ggml-vulkan takes GGML_VK_VISIBLE_DEVICES=0,0 as
# lavapipe twice (its parser keeps a repeated index), so the layer split,
# pipeline parallelism and a compute buffer per device are measured here
# (both devices one CPU, so nothing of a real pair's transfer is). zealot's
# GPU writes one index, so check refuses such an endpoint (law C13) and
# the suite sets the variable itself.
(
	export GGML_VK_VISIBLE_DEVICES=0,0
	BOOT_DEVICE=cpu
	plan_case two-dev llama "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on DEVICES=lavapipe,lavapipe"
	check "two-dev: the engine has Vulkan1" grep -q "Vulkan1 compute buffer" two-dev.log
	check "two-dev: a compute line per device in the plan" has_part two-dev compute Vulkan1
	run "$ZEALOT" check two-dev.env
	check "two-dev: check refuses it (C13: GPU writes one index)" bash -c "grep -qE '^error +C13' '$TMP/out'"
)

# The plan follows the reordering: on, it names it and no unmirrored
# term; the dense shape's figure moves with it (6.01 MiB against the
# graph order's 6.51, both measured).
check "dense-fa: the plan mirrors graph_optimize" grep -q "reordered as graph_optimize" <("$ZEALOT" plan dense-fa.env)
check "dense-fa: nothing unmirrored" plan_mirrors dense-fa.env
check "dense-fa: the reordering moves the plan's Vulkan0 compute" test \
	"$("$ZEALOT" plan --json dense-fa.env | jq '.compute[0].mib')" != \
	"$(GGML_VK_DISABLE_GRAPH_OPTIMIZE=1 "$ZEALOT" plan --json dense-fa.env | jq '.compute[0].mib')"

# The reordering off (the variable is a planned input): the engine keeps
# the graph's order and so does the plan.
(
	export GGML_VK_DISABLE_GRAPH_OPTIMIZE=1
	plan_case graph-order llama "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on"
	check "graph-order: the plan keeps the graph's order" grep -q "nodes in graph order" <("$ZEALOT" plan graph-order.env)
	# granitehybrid with a state of 64: ggml-vulkan's SSM_SCAN takes 128
	# or 256 only, so the loader's probe (weight_buft_supported) keeps each
	# layer's ssm_a on the CPU; the mapping then spans the file from the
	# embeddings to the last ssm_a (4.25 MiB, not 0.25), and every scan
	# runs on the CPU (a split each way per mamba layer).
	plan_case ssm-host granitehybrid "" "CTX_SIZE=4096 PARALLEL=2"
	check "ssm-host: the scans run on the CPU (8 splits), as planned" grep -qE "graph splits = 8$" ssm-host.log
)
# The same with the reordering on: the exact terms hold; the Vulkan0
# compute buffer of a split graph is not within 0.5 % (docs/planner.md).
"$ZEALOT" synth granitehybrid -o ssm-host-opt.gguf 2>/dev/null
boot_for_ledger ssm-host-opt "CTX_SIZE=4096 PARALLEL=2"
check_answered ssm-host-opt ssm-host-opt.log
run "$ZEALOT" ledger ssm-host-opt.log --endpoint ssm-host-opt.env
check "ssm-host-opt: every exact term equals the ledger (ssm_a in CPU_Mapped)" rc_is 0
scan_unmirrored() { ! plan_mirrors "$1" && "$ZEALOT" plan "$1" | grep -q 'SSM scans on the CPU'; }
check "ssm-host-opt: the plan names its compute unmirrored (scans on the CPU)" scan_unmirrored ssm-host-opt.env

echo "# worst compute error on lavapipe: ${PLAN_WORST}%"
check "no sanitizer report in any run" no_sanitizer
