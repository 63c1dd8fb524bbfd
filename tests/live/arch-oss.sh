# gpt-oss, gemma4 and mistral3 against the real engine: synthetic payloads of
# each family booted through `zealot argv` (boot_for_ledger), each answering
# /health and a completion (check_answered), every KV, model and output
# term of the plan equal to the boot ledger and every compute buffer within
# 5 % of it, on the CPU and under placement (rpc-server devices: -ngl below
# the layer count, --n-cpu-moe, -ot, a two-device --tensor-split). The
# worst compute error of each family is printed as a TAP comment.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh"
cd "$TMP" || exit 1

# On a host whose engine has the AMX buffer, quantized weights there crash
# the pinned engine at warm-up (law S16): quantized cases turn the extra
# buffers off there, reading the same CPU facts the product reads.
amx_host || exit 1
norepack() { [ "$AMX" = 1 ] && echo "REPACK=0"; }

# The ledger named this buffer in a line of TERM (kv, kv_swa, model).
has_line() { # NAME TERM BUFFER
	jq -en --arg t "$2" --arg b "$3" 'input | ([.comparison[]|select(.term==$t and .part==$b and .ledger > 0)]|length>=1)' \
		"$1.cmp" >/dev/null
}

# --- gpt-oss: alternating window (128) and full layers, sinks, biases ---
OSS="layers=4 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 experts=16 experts_used=4 ff_exp=384 vocab=4096"
plan_case oss-fa gpt-oss "$OSS" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
check "oss-fa: two caches, the window one padded to 256 (2 x 128 + 512 -> 768 cells)" \
	grep -q 'llama_kv_cache_iswa: creating     SWA KV cache, size = 768 cells' oss-fa.log
plan_case oss-nofa gpt-oss "$OSS" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=512"
plan_case oss-ub64 gpt-oss "$OSS" "CTX_SIZE=9000 PARALLEL=1 FLASH_ATTN=on UBATCH_SIZE=64 KV_UNIFIED=1"
plan_case oss-q8kv gpt-oss "$OSS" "CTX_SIZE=3000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=128 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
plan_case oss-ub1024 gpt-oss "layers=6 embd=256 experts=8 experts_used=2 swa=256" \
	"CTX_SIZE=20000 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=1024 BATCH_SIZE=1024"
# the experts as shipped: MXFP4 stacks beside q8_0 matrices
plan_case oss-mxfp4 gpt-oss "$OSS type=q8_0 exp_type=mxfp4 ff_exp=512" \
	"CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512 $(norepack)"

# --- gemma4: per-layer window pattern and widths, K = V, shared KV, MoE ---
# Gemma4-26B-A4B in small: 5 window layers (8 KV heads x 128) to 1 full
# (2 KV heads x 256, K equal to V), experts beside the dense FFN; the last
# 6 layers hold no cache of their own (law M11: K and V are both billed)
G4="layers=12 embd=512 heads=8 head_dim=256 rope_dims=256 kv_heads=2 head_dim_swa=128 kv_heads_swa=4"
G4="$G4 swa_pattern=6 swa=1024 experts=16 experts_used=4 ff_exp=256 ff=1024 vocab=8192"
plan_case g4-fa gemma4 "$G4 shared_kv=6" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
check "g4-fa: 1 full and 5 window layers hold a cache, the 6 shared ones none" \
	grep -qE 'llama_kv_cache: size = .*\( *1536 cells, +5 layers' g4-fa.log
# the full layer has no attn_v, yet its cache holds V as wide as K
kv_pair() { grep -E 'llama_kv_cache: size = .* +1 layers' "$1" | sed -E 's/.*K \(f16\): +([0-9.]+) MiB, V \(f16\): +([0-9.]+) MiB.*/\1 \2/'; }
check "g4-fa: the K-equals-V layer still bills V as wide as K (M11)" \
	awk -v p="$(kv_pair g4-fa.log)" 'BEGIN { split(p, a, " "); exit !(a[1] > 0 && a[1] == a[2]) }'
plan_case g4-nofa gemma4 "$G4 shared_kv=6 kv_heads=1" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=256"
plan_case g4-q8kv gemma4 "$G4" "CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=128 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
plan_case g4-ub1024 gemma4 "$G4 shared_kv=6" \
	"CTX_SIZE=16384 PARALLEL=1 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q4_0 CACHE_TYPE_V=f16"
plan_case g4-ub64 gemma4 "$G4" "CTX_SIZE=9000 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=64 KV_UNIFIED=1"
# full heads of 96 beside window heads of 128: a cache rotates when layer
# 0's head (a window layer's here) is a multiple of 64, by its own head
plan_case g4-rot96 gemma4 "layers=12 embd=1024 ff=1024 heads=4 kv_heads=4 head_dim=96 rope_dims=96 swa=1024 swa_pattern=2 head_dim_swa=128 kv_heads_swa=2 experts=0 vocab=300" \
	"CTX_SIZE=9995 PARALLEL=5 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q5_1 UBATCH_SIZE=64 KV_UNIFIED=1 FLASH_ATTN=on"
check "g4-rot96: the 96-wide cache rotates too" grep -q 'attn_rot_v = 1, n_embd_head_k_all = 96' g4-rot96.log
# the dense variant, V projected on every layer
plan_case g4-dense gemma4 "layers=8 embd=384 experts=0 kv_eq=0 swa_pattern=4 shared_kv=4 vocab=2048" \
	"CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
# E2B/E4B-style per-layer token embeddings (gated into every layer's tail)
G4D="layers=12 embd=512 heads=8 head_dim=256 rope_dims=256 kv_heads=2 head_dim_swa=128 kv_heads_swa=4"
G4D="$G4D swa_pattern=6 swa=1024 experts=0 ff=1024 vocab=8192 shared_kv=6 per_layer=128"
plan_case g4-ple gemma4 "$G4D" "CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024"
plan_case g4-ple-nofa gemma4 "$G4D" "CTX_SIZE=9000 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=64"
run "$ZEALOT" synth gemma4 --set shared_kv=2 -o bad.gguf
check "synth refuses a shared_kv that leaves no full layer last (the engine's reuse map would abort)" \
	err_has "must be a full layer after a window layer"

# --- mistral3: the llama block with the llama-4 attention temperature ---
M3="layers=6 embd=512 heads=8 kv_heads=2 head_dim=128 rope_dims=128 ff=1024 vocab=4096"
plan_case m3-fa mistral3 "$M3 temp_scale=1" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
plan_case m3-nofa mistral3 "$M3" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=256"
plan_case m3-moe mistral3 "layers=4 embd=512 ff=512 vocab=4096 experts=8 experts_used=2" \
	"CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
plan_case m3-q8kv mistral3 "$M3 temp_scale=1" \
	"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"

# --- placement: rpc-servers as GPU-class devices ---
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	plan_case oss-ngl gpt-oss "$OSS" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 NGL=3 UBATCH_SIZE=512"
	check "oss-ngl: the window cache on RPC0 and on the CPU" \
		has_line oss-ngl kv_swa "RPC0[$R1]"
	plan_case oss-cpumoe gpt-oss "$OSS" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 N_CPU_MOE=2 UBATCH_SIZE=1024"
	check "oss-cpumoe: experts split between CPU_Mapped and RPC0" \
		has_line oss-cpumoe model CPU_Mapped
	plan_case oss-ot gpt-oss "$OSS" \
		"CTX_SIZE=4096 PARALLEL=1 RPC=$R1 NGL=99 OVERRIDE_TENSOR='blk\\.[0-1]\\.ffn_(up|down)_exps=CPU' FLASH_ATTN=off"
	plan_case oss-split gpt-oss "$OSS" "CTX_SIZE=8192 PARALLEL=1 RPC=$R1,$R2 NGL=4 TENSOR_SPLIT=1,2"
	check "oss-split: a model buffer on each server" has_line oss-split model "RPC0[$R2]"
	plan_case g4-ngl gemma4 "$G4 shared_kv=6" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 NGL=7 UBATCH_SIZE=512"
	plan_case g4-ple-ngl gemma4 "$G4D" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 NGL=5 UBATCH_SIZE=512"
	plan_case m3-ngl mistral3 "$M3 temp_scale=1" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 NGL=4 UBATCH_SIZE=512"
	plan_case g4-cpumoe gemma4 "$G4" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 N_CPU_MOE=4 UBATCH_SIZE=1024"
	plan_case g4-split gemma4 "$G4 shared_kv=6" "CTX_SIZE=8192 PARALLEL=1 RPC=$R1,$R2 NGL=13 TENSOR_SPLIT=1,1"
	rpc_stop
fi

for a in "${!PLAN_WORST_BY[@]}"; do echo "# $a: worst compute error ${PLAN_WORST_BY[$a]}%"; done
