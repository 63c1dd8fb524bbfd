# Plan vs the real engine's boot ledger across architectures and shapes:
# every exact term (model, KV, SWA KV, recurrent state, draft KV, output,
# n_ctx) must equal the ledger to 0.01 MiB, and the compute buffers (a
# replay of the engine's allocator) must be within 5 %. Every boot must
# also answer /health and a completion (or, on an AMX host where law S16
# says it cannot, die by a signal: tests/engine.sh check_answered).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1

worst=0
# case NAME ARCH "synth sets" "KEY=VALUE ..."
case_() {
	local name=$1 arch=$2 sets=$3 keys=$4 s args=()
	for s in $sets; do args+=(--set "$s"); done
	"$ZEALOT" synth "$arch" "${args[@]}" -o "$name.gguf" 2>/dev/null
	boot_for_ledger "$name" "$keys"
	check_answered "$name" "$name.log"
	run "$ZEALOT" ledger "$name.log" --endpoint "$name.env" --json
	check "$name: every exact term equals the ledger" rc_is 0
	[ "$rc" -eq 0 ] || { jq -c '.comparison[]|select(.match==false)' "$TMP/out" 2>/dev/null | head -5 | sed 's/^/#   /'; tail -3 "$name.log" | sed 's/^/#   engine: /'; }
	local err
	err=$(jq '[.comparison[]|select(.term|test("compute"))|.error_pct|fabs]|max // 0' "$TMP/out" 2>/dev/null)
	check "$name: compute within 5% of the ledger (${err}%)" awk -v e="${err:-999}" 'BEGIN { exit !(e <= 5) }'
	awk -v e="${err:-0}" -v w="$worst" 'BEGIN { exit !(e > w) }' && worst=$err
}

case_ llama-1 llama "" "CTX_SIZE=4096 PARALLEL=1"
case_ llama-np2-odd llama "" "CTX_SIZE=5000 PARALLEL=2 CACHE_TYPE_V=q8_0"
case_ llama-np3-q8 llama "vocab=4096" "CTX_SIZE=12345 PARALLEL=3 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0 UBATCH_SIZE=256"
case_ llama-np4-q4 llama "ff=1024" "CTX_SIZE=16384 PARALLEL=4 CACHE_TYPE_K=q4_0 CACHE_TYPE_V=q4_0 UBATCH_SIZE=1024 BATCH_SIZE=1024"
case_ llama-q5_1 llama "heads=8 kv_heads=2 head_dim=128 rope_dims=128" "CTX_SIZE=8192 PARALLEL=2 CACHE_TYPE_K=q5_1 CACHE_TYPE_V=q5_1"
case_ llama-bf16 llama "embd=512" "CTX_SIZE=6000 PARALLEL=1 CACHE_TYPE_K=bf16 CACHE_TYPE_V=bf16 UBATCH_SIZE=128"
case_ llama-fa-off llama "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off"
case_ llama-unified llama "" "CTX_SIZE=9000 PARALLEL=3 KV_UNIFIED=1"
case_ qwen35 qwen35 "" "CTX_SIZE=8192 PARALLEL=1"
case_ qwen35-mtp qwen35 "" "CTX_SIZE=10000 PARALLEL=3 CACHE_TYPE_V=q8_0 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
case_ qwen35-mtp-q8draft qwen35 "" "CTX_SIZE=7000 PARALLEL=2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=3 SPEC_DRAFT_TYPE_K=q8_0 SPEC_DRAFT_TYPE_V=q8_0"
case_ qwen35-np4 qwen35 "ff=1024" "CTX_SIZE=20000 PARALLEL=4 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0 UBATCH_SIZE=1024 BATCH_SIZE=2048"
case_ qwen35-geom qwen35 "layers=12 interval=3 heads=8 kv_heads=4 ssm_state=64 ssm_groups=4 ssm_dt_rank=8" "CTX_SIZE=6144 PARALLEL=2 UBATCH_SIZE=256"
case_ gemma3 gemma3 "" "CTX_SIZE=8192 PARALLEL=1"
case_ gemma3-np2 gemma3 "layers=12 swa_pattern=4 swa=1024" "CTX_SIZE=16384 PARALLEL=2 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
case_ gemma3-unified gemma3 "" "CTX_SIZE=4096 PARALLEL=4 KV_UNIFIED=1 UBATCH_SIZE=1024"
# Quantized weights: on the CPU backend the matmul weights whose type has
# an extra buffer type on the host (CPU_REPACK, AMX: the plan reads the
# host's features, as the engine does) move out of the mapping.
case_ llama-q4w llama "type=q4_0" "CTX_SIZE=4096 PARALLEL=2"
case_ llama-q4w-norepack llama "type=q4_0" "CTX_SIZE=4096 PARALLEL=2 REPACK=0"
case_ llama-q4w-odd-rows llama "type=q4_0 kv_heads=1 head_dim=96 rope_dims=96 heads=4 vocab=300" "CTX_SIZE=4096 PARALLEL=1"
case_ qwen35-q4w qwen35 "type=q4_0 nextn=1" "CTX_SIZE=4096 PARALLEL=2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
case_ gemma3-q8w gemma3 "type=q8_0" "CTX_SIZE=4096 PARALLEL=2"
# gemma3 ties its output to token_embd: the matmul copy repacks, the gathered one maps
case_ gemma3-q4w-tied gemma3 "type=q4_0 vocab=4096" "CTX_SIZE=4096 PARALLEL=1"
echo "# worst compute error across the grid: ${worst}%"
