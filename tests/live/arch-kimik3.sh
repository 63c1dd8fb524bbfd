# Kimi-K3 against the real engine (src/models/kimi-k3.cpp of the pinned
# engine): kimi-linear's Kimi delta attention and MLA layers with a full-
# rank KDA gate and the sigmoid decay (kda.gate_lower_bound), an output
# gate on the MLA, the situ activation, routed experts in a latent space
# (ffn_routed_down/up/norm) beside shared experts at full width, and the
# cross-layer residual attention (attn_res.block_size: checkpoints
# concatenated, scored by an RMS norm and a softmax, mixed by
# dsv4_hc_pre). Each synthetic payload boots through `zealot argv`
# (boot_for_ledger) and answers; every exact term of the plan (model, KV,
# recurrent state, output) equals the boot ledger and every compute buffer
# is within 0.5 % of it, flash attention on and off, on the CPU and on
# rpc-servers.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

run "$ZEALOT" archs
check "archs: kimi-k3 is mirrored" grep -qE "^ *kimi-k3 +mirrored " "$TMP/out"

# layers 0-2 KDA, 3 MLA; one dense lead, then experts 128 wide in the
# latent space; a checkpoint every 2 layers
K3="vocab=1024"
mirrored_case k3-fa kimi-k3 "$K3" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
mirrored_case k3-nofa kimi-k3 "$K3" "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
# 6 layers (2 and 5 MLA), two dense leads, a checkpoint every 3 layers,
# one expert a token at full width (no latent projection), a unified
# cache of 4 slots in ubatches of 64
mirrored_case k3-ub64 kimi-k3 "layers=6 interval=3 lead_dense=2 attn_res=3 latent=0 experts_used=1 vocab=1024" \
	"CTX_SIZE=8192 PARALLEL=4 FLASH_ATTN=on UBATCH_SIZE=64 KV_UNIFIED=1"
# no residual attention (kimi-linear's residual stream), q8_0 caches (the
# MLA row 64 + 32 wide), 3 slots
mirrored_case k3-q8 kimi-k3 "attn_res=0 rope_dims=32 vocab=1024" \
	"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"

# Placement: an rpc-server holding 5 of 8 layers, two splitting 9 (the
# output too), the caches kept on the host
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	mirrored_case k3-ngl kimi-k3 "layers=8 vocab=1024" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=5"
	mirrored_case k3-split kimi-k3 "layers=8 vocab=1024" \
		"CTX_SIZE=8192 PARALLEL=2 RPC=$R1,$R2 NGL=9 TENSOR_SPLIT=1,2"
	mirrored_case k3-nkvo kimi-k3 "vocab=1024" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 KV_OFFLOAD=0"
	rpc_stop
fi

for a in "${!PLAN_WORST_BY[@]}"; do echo "# worst compute error: $a ${PLAN_WORST_BY[$a]}%"; done
