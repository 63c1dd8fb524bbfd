# State-carrying and dense families against the real engine's boot ledger
# (issue 12): each synthesised payload boots, answers, and its plan's exact
# terms (model, KV, recurrent state, output; per device under placement)
# equal the ledger; the compute buffers (the graph replay) are within 5 %.
# The worst compute error is printed as a TAP comment.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh"
cd "$TMP" || exit 1

# Falcon-H1 (KV and recurrent state in every layer) is mirrored and held
# in tests/live/arch-linear.sh.

# Nemotron-H: mamba2, attention (no rope) and FFN-only (squared ReLU)
# layers; state on the mamba2 layers, KV on the attention layers, nothing
# on the FFN-only layers.
plan_case nemotron_h nemotron_h "" "CTX_SIZE=4096 PARALLEL=2"
plan_case nemotron_h-8 nemotron_h "layers=8 ssm_state=128 ssm_groups=2 ssm_dt_rank=16" "CTX_SIZE=8192 PARALLEL=3 UBATCH_SIZE=256"
plan_case nemotron_h-fa-off nemotron_h "layers=6 interval=3" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off"

# Granite 4.0 hybrid: mamba2 layers (ssm_conv, ssm_scan, state in
# llama_memory_recurrent) with attention every `interval` layers.
plan_case granitehybrid granitehybrid "" "CTX_SIZE=4096 PARALLEL=1"
plan_case granitehybrid-mid granitehybrid "interval=2 layers=6" "CTX_SIZE=4096 PARALLEL=1 UBATCH_SIZE=256"
plan_case granitehybrid-np3 granitehybrid "" "CTX_SIZE=8192 PARALLEL=3 UBATCH_SIZE=256"
plan_case granitehybrid-geom granitehybrid "interval=3 layers=7 ssm_state=128 ssm_groups=2 ssm_dt_rank=16" "CTX_SIZE=6000 PARALLEL=2 FLASH_ATTN=off"
plan_case granitehybrid-np4 granitehybrid "embd=512 ff=1024" "CTX_SIZE=16384 PARALLEL=4 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0 UBATCH_SIZE=1024 BATCH_SIZE=1024"
plan_case granitehybrid-unified granitehybrid "" "CTX_SIZE=4096 PARALLEL=2 UBATCH_SIZE=128 KV_UNIFIED=1"
plan_case granitehybrid-q8w granitehybrid "type=q8_0 ssm_groups=2 interval=3 layers=6" "CTX_SIZE=5000 PARALLEL=5 UBATCH_SIZE=100 BATCH_SIZE=100 FLASH_ATTN=off REPACK=0"
plan_case granitehybrid-small-ubatch granitehybrid "" "CTX_SIZE=2048 PARALLEL=2 UBATCH_SIZE=16 BATCH_SIZE=64"

# Mamba-2 alone: recurrent state and no KV cache at all.
plan_case mamba2 mamba2 "" "CTX_SIZE=4096 PARALLEL=1"
plan_case mamba2-np3 mamba2 "embd=512 ssm_state=128 ssm_groups=2 ssm_dt_rank=16 layers=6" "CTX_SIZE=8192 PARALLEL=3 UBATCH_SIZE=256"
plan_case mamba2-q8w mamba2 "type=q8_0 layers=3" "CTX_SIZE=4096 PARALLEL=2 UBATCH_SIZE=64 REPACK=0"

# LFM2: gated short-conv layers (a conv state, no S) and q/k-normed
# attention; its final norm is token_embd_norm.
plan_case lfm2 lfm2 "" "CTX_SIZE=4096 PARALLEL=1"
plan_case lfm2-np4 lfm2 "embd=1024 heads=8 head_dim=128 rope_dims=128 ssm_conv=4 interval=2 layers=6" "CTX_SIZE=8192 PARALLEL=4 UBATCH_SIZE=256"
plan_case lfm2-fa-off lfm2 "interval=3 layers=7" "CTX_SIZE=6000 PARALLEL=2 FLASH_ATTN=off CACHE_TYPE_K=q8_0"
plan_case lfm2-q8w lfm2 "type=q8_0 ssm_conv=2" "CTX_SIZE=4096 PARALLEL=3 UBATCH_SIZE=64 REPACK=0"

# Dense families: qwen2 (q/k/v biases), qwen3 (q/k norms), mistral3
# (llama's block), phi3 (fused
# qkv and gate-up; its sliding window is read and turned off by the engine).
plan_case qwen2 qwen2 "" "CTX_SIZE=4096 PARALLEL=1"
plan_case qwen2-np2 qwen2 "ff=2048 embd=512 heads=8 kv_heads=2" "CTX_SIZE=4096 PARALLEL=2"
plan_case qwen2-fa-off qwen2 "embd=1024 heads=8 head_dim=128 rope_dims=128 kv_heads=4 ff=1024" "CTX_SIZE=8192 PARALLEL=3 FLASH_ATTN=off UBATCH_SIZE=256"
plan_case qwen2-q4w qwen2 "type=q4_0" "CTX_SIZE=6000 PARALLEL=2 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q4_0 UBATCH_SIZE=1024 BATCH_SIZE=1024"
plan_case qwen3 qwen3 "" "CTX_SIZE=4096 PARALLEL=1"
plan_case qwen3-np2 qwen3 "ff=2048 embd=512 heads=8 kv_heads=2 head_dim=128 rope_dims=128" "CTX_SIZE=4096 PARALLEL=2 UBATCH_SIZE=128"
plan_case qwen3-fa-off qwen3 "" "CTX_SIZE=8192 PARALLEL=3 FLASH_ATTN=off CACHE_TYPE_K=q8_0"
plan_case mistral3 mistral3 "" "CTX_SIZE=4096 PARALLEL=1"
plan_case mistral3-np4 mistral3 "embd=1024 heads=8 head_dim=128 rope_dims=128 ff=2048" "CTX_SIZE=8192 PARALLEL=4 UBATCH_SIZE=256 FLASH_ATTN=off"
plan_case phi3 phi3 "" "CTX_SIZE=4096 PARALLEL=1"
plan_case phi3-swa phi3 "swa=512" "CTX_SIZE=8192 PARALLEL=2"
plan_case phi3-fa-off phi3 "embd=1024 heads=8 head_dim=128 rope_dims=128 kv_heads=4 ff=1024" "CTX_SIZE=8192 PARALLEL=3 FLASH_ATTN=off UBATCH_SIZE=256"
plan_case phi3-q8 phi3 "type=q8_0" "CTX_SIZE=6000 PARALLEL=2 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q4_0 UBATCH_SIZE=1024 BATCH_SIZE=1024 REPACK=0"

# Placement: an rpc-server is a GPU-class device; the recurrent state sits
# on its layer's device like the KV cache.
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	plan_case granitehybrid-ngl granitehybrid "interval=2 layers=6" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=3"
	plan_case granitehybrid-split granitehybrid "layers=8 interval=4" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1,$R2 NGL=6 TENSOR_SPLIT=1,2"
	# the caches on the host: every layer's gathers run there, the scan on
	# the server reads s_copy_main, one tensor copied once (it was copied
	# once per layer: -4.27 %); held to 0.5 %, not the suite's 5
	PLAN_TOL_PCT=0.5 plan_case granitehybrid-nkvo granitehybrid "" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 KV_OFFLOAD=0"
	plan_case qwen2-ngl qwen2 "layers=6 embd=512 heads=8 ff=1024" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1 NGL=4"
	plan_case qwen3-split qwen3 "layers=8" "CTX_SIZE=8192 PARALLEL=2 RPC=$R1,$R2 NGL=6 TENSOR_SPLIT=1,2"
	plan_case phi3-ngl phi3 "layers=6" "CTX_SIZE=4096 PARALLEL=1 RPC=$R1 NGL=3"
	plan_case lfm2-ngl lfm2 "layers=6 interval=3" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=3"
	plan_case nemotron_h-ngl nemotron_h "layers=8" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=5"
	plan_case mamba2-ngl mamba2 "layers=6" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=4"
	plan_case lfm2-all lfm2 "layers=6 interval=3" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=7"
	rpc_stop
fi
echo "# worst compute error across arch-ssm: ${PLAN_WORST}%"
