# Hybrids of attention and a linear-time recurrent mixer against the real
# engine's boot ledger: falcon-h1 (attention and a mamba2 mixer side by
# side in every layer), qwen3next (Gated DeltaNet and gated attention, a
# routed and a shared expert in every layer), jamba (mamba v1 layers and
# attention without RoPE, routed experts on every other layer), kimi-linear
# (Kimi delta attention and MLA without RoPE, experts after a dense lead),
# mamba (mamba v1's mixer alone in every layer). Each synthetic payload
# boots through `zealot argv` and answers a completion; every model, KV,
# recurrent-state and output term of the plan equals the ledger, every
# compute buffer is within
# 0.5 % of it, over flash attention on and off, one to four slots,
# ubatches of 64 to 1024 and a quantized cache; `plan` names no estimate
# and `archs` lists the family as mirrored. The worst compute error per
# family is printed as a TAP comment.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh"
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

"$ZEALOT" archs --json >archs.json 2>/dev/null

# shapes PREFIX ARCH "synth sets" "synth sets of the wider shapes": FA on
# with two slots, FA off with one, a small ubatch over a unified cache with
# four, a q8_0 cache with three and a 1024 ubatch.
shapes() {
	check "archs lists $2 as mirrored" jq -en --arg a "$2" 'input | ([.archs[] | select(.arch == $a) | .mirrored] == [true])' archs.json
	mirrored_case "$1-fa" "$2" "$3" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
	mirrored_case "$1-nofa" "$2" "$3" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
	mirrored_case "$1-ub64" "$2" "$4" "CTX_SIZE=9000 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=64 KV_UNIFIED=1"
	mirrored_case "$1-q8kv" "$2" "$4" \
		"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
}

# --- falcon-h1: per layer one input norm feeds attention, a second feeds
# the mamba2 mixer; their outputs are added with the residual, then the
# SwiGLU FFN (its norm named ffn_norm); the last layer keeps the output
# rows of the residual only ---
shapes falcon-h1 falcon-h1 "" "layers=3 ssm_state=128 ssm_groups=2 ssm_dt_rank=16 kv_heads=4"

# --- qwen3next: qwen35moe's trunk with beta and alpha in one projection
# (ssm_ba: one matmul, two views made contiguous), q and k repeated to the
# value heads when there are fewer (groups 2, value heads 4 and 8), and
# plain NeoX rope (no sections); a shape with as many key as value heads ---
shapes qwen3next qwen3next "" "layers=6 interval=3 embd=512 ssm_state=64 ssm_groups=2 ssm_dt_rank=8 experts=16 experts_used=4"
mirrored_case qwen3next-eq qwen3next "ssm_groups=4 ssm_dt_rank=4" "CTX_SIZE=4096 PARALLEL=2 UBATCH_SIZE=512"

# --- jamba: mamba (v1) layers (x and z from one projection, dt, B and C
# from ssm_x, each RMS-normed, a scan per channel) and attention without
# RoPE; routed experts (softmax, unnormalised, ff wide) on odd layers, whose
# router expand visits the layer's tail at once; SwiGLU FFNs elsewhere.
# The default shape ends on an attention layer with experts, the wider
# one on a mamba layer with experts, the dense one on a mamba layer ---
shapes jamba jamba "" "layers=6 interval=4 embd=512 heads=8 head_dim=64 ssm_state=16 ssm_dt_rank=32 experts=8 experts_used=2"
mirrored_case jamba-dense jamba "experts=0 experts_used=0 layers=5 interval=2" "CTX_SIZE=4096 PARALLEL=2 UBATCH_SIZE=512"

# --- kimi-linear: Kimi delta attention (q, k and v each through their own
# depthwise conv and conv state, a per-channel gate from the f_a/f_b pair,
# the fused delta net, the output normed and gated by sigmoid of g_a/g_b)
# and MLA without RoPE over a K-only cache; a dense lead layer, then
# sigmoid-gated biased experts with a shared one ---
shapes kimi-linear kimi-linear "" \
	"layers=6 interval=3 embd=512 heads=8 ssm_state=64 kv_lora=128 head_dim=96 rope_dims=32 head_dim_v=64 experts=16 experts_used=4"

# --- mamba: jamba's mamba layer alone (dt, B and C not normed), its
# residual added; the last layer keeps the mixer's output rows first ---
shapes mamba mamba "" "layers=6 embd=512 ssm_state=16 ssm_dt_rank=32"

# Placement: an rpc-server is a GPU-class device holding its layers'
# weights, KV cache and recurrent state; a second one splits the layers.
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	mirrored_case falcon-h1-ngl falcon-h1 "layers=6" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=3"
	mirrored_case falcon-h1-split falcon-h1 "layers=8" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1,$R2 NGL=6 TENSOR_SPLIT=1,2"
	mirrored_case qwen3next-ngl qwen3next "layers=8" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=5"
	mirrored_case jamba-ngl jamba "layers=8" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 NGL=4"
	mirrored_case jamba-all jamba "layers=8" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 NGL=9"
	mirrored_case kimi-linear-ngl kimi-linear "layers=8" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=5"
	mirrored_case kimi-linear-split kimi-linear "layers=8" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1,$R2 NGL=9 TENSOR_SPLIT=1,2"
	# the split's second server and the caches kept on the host decide by
	# build_rs's scale_inplace: an op on the cache's backend, not a view
	mirrored_case jamba-split jamba "layers=8" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1,$R2 NGL=6 TENSOR_SPLIT=1,2"
	mirrored_case mamba-ngl mamba "layers=6" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=3"
	# the first server's layers read s_copy's two views, made once per
	# graph (build_rs_inp_impl), so the scheduler copies each there once;
	# the copy of the mixer's output reshape takes the residual add in
	# place (its layout is the add's): 7.95 % over while either was not so
	mirrored_case mamba-split mamba "layers=8" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1,$R2 NGL=6 TENSOR_SPLIT=1,2"
	mirrored_case falcon-h1-nkvo falcon-h1 "" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 KV_OFFLOAD=0"
	mirrored_case jamba-nkvo jamba "" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 KV_OFFLOAD=0"
	mirrored_case qwen3next-nkvo qwen3next "" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 KV_OFFLOAD=0"
	mirrored_case kimi-linear-nkvo kimi-linear "" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 KV_OFFLOAD=0"
	rpc_stop
fi

for a in "${!PLAN_WORST_BY[@]}"; do
	echo "# worst compute error of $a: ${PLAN_WORST_BY[$a]}%"
done
echo "# worst compute error across arch-linear: ${PLAN_WORST}%"
