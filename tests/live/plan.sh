# Plan vs the real engine's boot ledger across architectures and shapes:
# every exact term (model, KV, SWA KV, recurrent state, draft KV, output,
# n_ctx) must equal the ledger to 0.01 MiB, and the compute buffers (a
# replay of the engine's allocator) must be within 5 %. Every boot must
# also answer /health and a completion (or, on an AMX host where law S16
# says it cannot, die by a signal: tests/engine.sh check_answered).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh"
cd "$TMP" || exit 1

plan_case llama-1 llama "" "CTX_SIZE=4096 PARALLEL=1"
plan_case llama-np2-odd llama "" "CTX_SIZE=5000 PARALLEL=2 CACHE_TYPE_V=q8_0"
plan_case llama-np3-q8 llama "vocab=4096" "CTX_SIZE=12345 PARALLEL=3 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0 UBATCH_SIZE=256"
plan_case llama-np4-q4 llama "ff=1024" "CTX_SIZE=16384 PARALLEL=4 CACHE_TYPE_K=q4_0 CACHE_TYPE_V=q4_0 UBATCH_SIZE=1024 BATCH_SIZE=1024"
plan_case llama-q5_1 llama "heads=8 kv_heads=2 head_dim=128 rope_dims=128" "CTX_SIZE=8192 PARALLEL=2 CACHE_TYPE_K=q5_1 CACHE_TYPE_V=q5_1"
plan_case llama-bf16 llama "embd=512" "CTX_SIZE=6000 PARALLEL=1 CACHE_TYPE_K=bf16 CACHE_TYPE_V=bf16 UBATCH_SIZE=128"
plan_case llama-fa-off llama "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off"
plan_case llama-unified llama "" "CTX_SIZE=9000 PARALLEL=3 KV_UNIFIED=1"
plan_case qwen35 qwen35 "" "CTX_SIZE=8192 PARALLEL=1"
plan_case qwen35-mtp qwen35 "" "CTX_SIZE=10000 PARALLEL=3 CACHE_TYPE_V=q8_0 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
plan_case qwen35-mtp-q8draft qwen35 "" "CTX_SIZE=7000 PARALLEL=2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=3 SPEC_DRAFT_TYPE_K=q8_0 SPEC_DRAFT_TYPE_V=q8_0"
plan_case qwen35-np4 qwen35 "ff=1024" "CTX_SIZE=20000 PARALLEL=4 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0 UBATCH_SIZE=1024 BATCH_SIZE=2048"
plan_case qwen35-geom qwen35 "layers=12 interval=3 heads=8 kv_heads=4 ssm_state=64 ssm_groups=4 ssm_dt_rank=8" "CTX_SIZE=6144 PARALLEL=2 UBATCH_SIZE=256"
plan_case gemma3 gemma3 "" "CTX_SIZE=8192 PARALLEL=1"
plan_case gemma3-np2 gemma3 "layers=12 swa_pattern=4 swa=1024" "CTX_SIZE=16384 PARALLEL=2 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
plan_case gemma3-unified gemma3 "" "CTX_SIZE=4096 PARALLEL=4 KV_UNIFIED=1 UBATCH_SIZE=1024"
# Quantized weights: on the CPU backend the matmul weights whose type has
# an extra buffer type on the host (CPU_REPACK, AMX: the plan reads the
# host's features, as the engine does) move out of the mapping.
plan_case llama-q4w llama "type=q4_0" "CTX_SIZE=4096 PARALLEL=2"
plan_case llama-q4w-norepack llama "type=q4_0" "CTX_SIZE=4096 PARALLEL=2 REPACK=0"
plan_case llama-q4w-odd-rows llama "type=q4_0 kv_heads=1 head_dim=96 rope_dims=96 heads=4 vocab=300" "CTX_SIZE=4096 PARALLEL=1"
plan_case qwen35-q4w qwen35 "type=q4_0 nextn=1" "CTX_SIZE=4096 PARALLEL=2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
plan_case gemma3-q8w gemma3 "type=q8_0" "CTX_SIZE=4096 PARALLEL=2"
# gemma3 ties its output to token_embd: the matmul copy repacks, the gathered one maps
plan_case gemma3-q4w-tied gemma3 "type=q4_0 vocab=4096" "CTX_SIZE=4096 PARALLEL=1"
echo "# worst compute error across the grid: ${PLAN_WORST}%"
