# The MoE families with shared experts and leading dense layers, booted in
# the real engine: deepseek2 with multi-head latent attention (a K-only
# cache of kv_lora + rope per cell, V a view of K), glm4moe, qwen35moe.
# Every exact term (model, KV, recurrent state, output, n_ctx) must equal
# the ledger and every compute buffer must be within 5 % of it, on the CPU
# and under placement (--n-cpu-moe with an rpc-server device, -ngl below
# the layer count). Every boot answers /health and a completion (or, on
# an AMX host where law S16 says it cannot, dies by a signal).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh"
cd "$TMP" || exit 1

# On a host whose engine has the AMX buffer, quantized weights there crash
# the pinned engine at warm-up: quantized cases turn the extra buffers off.
amx_host || exit 1
repack=$([ "$AMX" = 1 ] && echo "REPACK=0" || echo "")

jqt() { jq -en "input | ($1)" "$2" >/dev/null; } # FILTER FILE: the filter holds


# --- deepseek2 with MLA ---------------------------------------------------
# The default: 4 layers (1 dense lead), 8 experts (2 used) + 1 shared,
# sigmoid gating with a selection bias, weights normalised and scaled,
# kv_lora 64 + rope 16 per cell, q through a 96-wide latent.
mirrored_case ds2 deepseek2 "" "CTX_SIZE=4096 PARALLEL=1"
check "ds2: the engine caches K only (V 0.00 MiB)" grep -qE "llama_kv_cache: size = .*V \(f16\): +0\.00 MiB" ds2.log
check "ds2: the plan's KV has no V part" jqt '.kv.v_mib == 0 and .kv.k_mib > 0' <("$ZEALOT" plan --json ds2.env)
mirrored_case ds2-fa-off deepseek2 "" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off"
mirrored_case ds2-np3 deepseek2 "" "CTX_SIZE=10000 PARALLEL=3 UBATCH_SIZE=256"
mirrored_case ds2-np2-fa-off deepseek2 "" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=1024 BATCH_SIZE=1024"
# no q latent (one attn_q), softmax gating, no bias, no normalisation or scale
mirrored_case ds2-lite deepseek2 "q_lora=0 gating=1 probs_b=0 w_norm=0 w_scale=0" "CTX_SIZE=4096 PARALLEL=2 UBATCH_SIZE=64"
# expert groups (DeepSeek-V3's top groups) and two shared experts
mirrored_case ds2-groups deepseek2 "experts=16 experts_used=4 groups=4 groups_used=2 shared=2" "CTX_SIZE=6000 PARALLEL=2 UBATCH_SIZE=128"
# q8_0 cache (MLA needs K and V types equal, and a row of whole blocks)
mirrored_case ds2-q8 deepseek2 "vocab=4096 kv_lora=96 rope_dims=32 head_dim=64" "CTX_SIZE=8192 PARALLEL=4 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
mirrored_case ds2-unified deepseek2 "layers=6 lead_dense=2" "CTX_SIZE=9000 PARALLEL=3 KV_UNIFIED=1 UBATCH_SIZE=64"
mirrored_case ds2-wide deepseek2 "embd=512 heads=8 kv_lora=128 rope_dims=32 head_dim=96 head_dim_v=64 q_lora=192 experts=32 experts_used=4 groups=8 groups_used=3 ff_exp=256 ff=1024 vocab=8192" \
	"CTX_SIZE=16384 PARALLEL=2 UBATCH_SIZE=512"
mirrored_case ds2-q4w deepseek2 "type=q4_0" "CTX_SIZE=4096 PARALLEL=2 $repack"
# GLM-4.7-Flash's shape: an MLA MTP block after the trunk; the main context
# skips it in the graph but caches it, and the drafter caches every layer
mirrored_case ds2-nextn deepseek2 "nextn=1" "CTX_SIZE=4096 PARALLEL=2"
mirrored_case ds2-mtp deepseek2 "nextn=1" "CTX_SIZE=4096 PARALLEL=2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
mirrored_case ds2-mtp-fa-off deepseek2 "nextn=1 experts=16 experts_used=4 groups=4 groups_used=2" "CTX_SIZE=8192 PARALLEL=3 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=3 FLASH_ATTN=off UBATCH_SIZE=256"
# the pre-MLA layout (attn_kv_b, no key_length_mla): K and V cached per head,
# with the Hadamard rotations a quantized cache brings
mirrored_case ds2-mha deepseek2 "mha=1" "CTX_SIZE=4096 PARALLEL=1"
mirrored_case ds2-mha-fa-off deepseek2 "mha=1 q_lora=0" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=256"
mirrored_case ds2-mha-q8 deepseek2 "mha=1 head_dim=64 rope_dims=32 head_dim_v=64 kv_lora=128" "CTX_SIZE=10000 PARALLEL=3 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
mirrored_case ds2-mha-rotk deepseek2 "mha=1 head_dim=128 rope_dims=64 head_dim_v=64 kv_lora=128" "CTX_SIZE=4096 PARALLEL=1 CACHE_TYPE_K=q8_0"
# mistral-large's attention temperature: a per-token scale on q, MLA and not
mirrored_case ds2-temp deepseek2 "temp_scale=1" "CTX_SIZE=4096 PARALLEL=2"
mirrored_case ds2-mha-temp deepseek2 "temp_scale=1 mha=1" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off"
# the other gating functions: a softmax over the chosen experts, sqrt(softplus)
mirrored_case ds2-gating3 deepseek2 "gating=3" "CTX_SIZE=4096 PARALLEL=2"
mirrored_case ds2-gating4 deepseek2 "gating=4 probs_b=0" "CTX_SIZE=4096 PARALLEL=2 UBATCH_SIZE=128"
# gate and up experts in one stack (create_tensor_gate_up_exps), as newer conversions ship them
mirrored_case ds2-gate-up deepseek2 "gate_up=1" "CTX_SIZE=4096 PARALLEL=2 UBATCH_SIZE=1024"

# law S04 on MLA: K and V cache types apart (main or draft context) are
# refused by check and by the engine alike
refused_() { # NAME SETS KEYS
	local name=$1 s args=()
	for s in $2; do args+=(--set "$s"); done
	must "$ZEALOT" synth deepseek2 "${args[@]}" -o "$name.gguf" || return 1
	boot_for_ledger "$name" "$3"
	run "$ZEALOT" check --json "$name.env"
	check "$name: check refuses it by S04" jqt '[.findings[]|select(.law=="S04")]|length>=1' "$TMP/out"
	check "$name: the engine refuses it too" logged_after_boot "$name" "$3" "does not support different K"
}
refused_ ds2-kv-apart "" "CTX_SIZE=4096 PARALLEL=1 CACHE_TYPE_K=bf16"
refused_ ds2-draft-kv-apart "nextn=1" "CTX_SIZE=4096 PARALLEL=1 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2 SPEC_DRAFT_TYPE_K=bf16"

# --- glm4moe ----------------------------------------------------------------
# GLM-4.5's shape: biased q/k/v, partial rotary (32 of 64), one dense lead
# layer, sigmoid gating with a selection bias, a shared expert, and one
# nextn (MTP) block that the main context skips but still caches.
mirrored_case glm glm4moe "" "CTX_SIZE=4096 PARALLEL=1"
check "glm: the main KV caches the nextn layer too (5 layers)" grep -qE "llama_kv_cache: size = .*5 layers" glm.log
mirrored_case glm-fa-off glm4moe "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off"
mirrored_case glm-qknorm-q8 glm4moe "qk_norm=1" "CTX_SIZE=10000 PARALLEL=3 UBATCH_SIZE=256 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
mirrored_case glm-plain glm4moe "qkv_bias=0 lead_dense=0 shared=2 w_norm=0 w_scale=0 nextn=0" "CTX_SIZE=8192 PARALLEL=2 UBATCH_SIZE=1024 BATCH_SIZE=1024"
mirrored_case glm-wide glm4moe "embd=512 heads=8 kv_heads=2 head_dim=128 rope_dims=64 experts=32 experts_used=4 ff_exp=256 ff=1024 vocab=8192" \
	"CTX_SIZE=16384 PARALLEL=2 KV_UNIFIED=1 UBATCH_SIZE=64"
mirrored_case glm-q4w glm4moe "type=q4_0" "CTX_SIZE=4096 PARALLEL=2 $repack"
# the MTP drafter: its own context caches every layer (no layer filter) and
# runs the nextn block as an MoE layer
mirrored_case glm-mtp glm4moe "" "CTX_SIZE=4096 PARALLEL=2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
check "glm-mtp: the draft KV is every layer's" jqt '.draft_kv.layers == 5' <("$ZEALOT" plan --json glm-mtp.env)
mirrored_case glm-mtp-q8 glm4moe "qk_norm=1" "CTX_SIZE=10000 PARALLEL=3 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=3 SPEC_DRAFT_TYPE_K=q8_0 SPEC_DRAFT_TYPE_V=q8_0 UBATCH_SIZE=256"
mirrored_case glm-mtp-fa-off glm4moe "" "CTX_SIZE=8192 PARALLEL=2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2 FLASH_ATTN=off"

# --- qwen35moe ----------------------------------------------------------------
# qwen35's Gated DeltaNet hybrid with routed experts and a shared expert
# gated by sigmoid(ffn_gate_inp_shexp) in every block, MTP block included.
mirrored_case q35m qwen35moe "" "CTX_SIZE=4096 PARALLEL=1"
mirrored_case q35m-mtp qwen35moe "" "CTX_SIZE=10000 PARALLEL=3 CACHE_TYPE_V=q8_0 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
mirrored_case q35m-fa-off qwen35moe "nextn=0" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=256"
mirrored_case q35m-np4 qwen35moe "experts=16 experts_used=4 ff=1024" "CTX_SIZE=20000 PARALLEL=4 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0 UBATCH_SIZE=1024 BATCH_SIZE=2048"
mirrored_case q35m-gate-up qwen35moe "gate_up=1 nextn=0" "CTX_SIZE=4096 PARALLEL=2 UBATCH_SIZE=256"
mirrored_case q35m-geom qwen35moe "layers=12 interval=3 heads=8 kv_heads=4 ssm_state=64 ssm_groups=4 ssm_dt_rank=8 ff_exp=256" "CTX_SIZE=6144 PARALLEL=2 UBATCH_SIZE=64 KV_UNIFIED=1"

# --- placement --------------------------------------------------------------
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	has_lines() { # NAME BUFFER...: the ledger held a model line for every BUFFER
		local name=$1 b
		shift
		for b in "$@"; do
			jq -en --arg b "$b" 'input | ([.comparison[]|select(.term=="model" and .part==$b and .ledger > 0)]|length==1)' \
				"$name.cmp" >/dev/null || return 1
		done
	}
	# --n-cpu-moe 2: the first two blocks' experts (one dense, one MoE) on the CPU
	mirrored_case ds2-cpumoe deepseek2 "embd=512 ff_exp=256 experts=16 experts_used=4" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 N_CPU_MOE=2 UBATCH_SIZE=1024"
	check "ds2-cpumoe: weights on CPU_Mapped and RPC0[$R1]" has_lines ds2-cpumoe CPU_Mapped "RPC0[$R1]"
	check "ds2-cpumoe: a KV line on the server" jqt "[.comparison[]|select(.term==\"kv\" and .part==\"RPC0[$R1]\")]|length==1" ds2-cpumoe.cmp
	mirrored_case ds2-partial deepseek2 "layers=5 lead_dense=1" "CTX_SIZE=8192 PARALLEL=1 RPC=$R1 NGL=3 FLASH_ATTN=off"
	check "ds2-partial: offloaded 3/6 layers" grep -q "offloaded 3/6 layers" ds2-partial.log
	check "ds2-partial: KV on the CPU and on the server" \
		jqt "[.comparison[]|select(.term==\"kv\" and (.part==\"CPU\" or .part==\"RPC0[$R1]\"))]|length==2" ds2-partial.cmp
	# two devices: -ngl 5 of 7 split 1:2 across the servers
	mirrored_case ds2-split2 deepseek2 "layers=6 embd=512 vocab=4096" "CTX_SIZE=8192 PARALLEL=1 RPC=$R1,$R2 NGL=5 TENSOR_SPLIT=1,2"
	check "ds2-split2: offloaded 5/7 layers" grep -q "offloaded 5/7 layers" ds2-split2.log
	check "ds2-split2: a model buffer on each server and the CPU" has_lines ds2-split2 "RPC0[$R1]" "RPC0[$R2]" CPU_Mapped
	# -ot: the MoE layers' expert stacks back to the CPU
	mirrored_case ds2-ot deepseek2 "" "CTX_SIZE=4096 PARALLEL=1 RPC=$R1 OVERRIDE_TENSOR='blk\\.[1-2]\\.ffn_.*_exps=CPU'"
	check "ds2-ot: model on CPU_Mapped and RPC0[$R1]" has_lines ds2-ot CPU_Mapped "RPC0[$R1]"
	# --no-kv-offload: the K-only cache on the CPU, the layers on the server
	mirrored_case ds2-nkvo deepseek2 "" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 KV_OFFLOAD=0"
	check "ds2-nkvo: the KV buffer is the CPU's" jqt '[.comparison[]|select(.term=="kv" and .part=="CPU")]|length==1' ds2-nkvo.cmp
	# the MTP drafter split across both servers
	mirrored_case ds2-mtp-split deepseek2 "nextn=1 layers=6" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1,$R2 TENSOR_SPLIT=1,1 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
	check "ds2-mtp-split: draft KV on both servers" \
		jqt '[.comparison[]|select(.term=="draft_kv" and (.part|test("^RPC")))]|length==2' ds2-mtp-split.cmp
	# glm4moe over the CPU and the server: --n-cpu-moe 2 and -ngl 4 of 6
	mirrored_case glm-cpumoe glm4moe "embd=512 ff_exp=256 experts=16 experts_used=4" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 N_CPU_MOE=2 NGL=4"
	check "glm-cpumoe: weights on CPU_Mapped and RPC0[$R1]" has_lines glm-cpumoe CPU_Mapped "RPC0[$R1]"
	mirrored_case glm-mtp-rpc glm4moe "" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=4 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
	check "glm-mtp-rpc: the drafter computes on the server and the CPU" \
		jqt '[.comparison[]|select(.term=="draft_compute" and .ledger > 1)]|length==2' glm-mtp-rpc.cmp
	# qwen35moe's recurrent state and experts across the CPU and the server
	mirrored_case q35m-cpumoe qwen35moe "nextn=0" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 N_CPU_MOE=3 UBATCH_SIZE=1024"
	check "q35m-cpumoe: recurrent state on the server" \
		jqt "[.comparison[]|select(.term==\"recurrent\" and .part==\"RPC0[$R1]\")]|length==1" q35m-cpumoe.cmp
else
	echo "# $RPC_SERVER is missing: the placement cases are skipped"
fi

echo "# worst compute error across the MoE/MLA grid: ${PLAN_WORST}%"
check "no sanitizer report in any run" no_sanitizer
