# Placement on shapes no other test names: a seeded random sweep over
# architecture (dense, MoE, hybrid, sliding window), widths, weight type,
# one or two rpc-servers, NGL, TENSOR_SPLIT, KV_OFFLOAD, N_CPU_MOE, slots,
# pool, cache types, ubatch and flash attention. Every boot answers /health
# and a completion; every per-device exact term must equal the ledger and
# every compute buffer be within 5 %.
#
# ZEALOT_PLACE_SEED (default 12) and ZEALOT_PLACE_N (default 16) pick the
# sweep; every case prints its shape, so a failure is reproducible by hand.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1

[ -x "$RPC_SERVER" ] || {
	echo "not ok - $RPC_SERVER is missing: build the engine with GGML_RPC"
	exit 0
}
rpc_pair || exit 0

amx_host || exit 1

rng=${ZEALOT_PLACE_SEED:-12}
pick() {
	local var=$1
	shift
	local a=("$@")
	rng=$(((rng * 1103515245 + 12345) % 2147483648))
	printf -v "$var" '%s' "${a[(rng >> 8) % ${#a[@]}]}"
}

worst=0
for i in $(seq "${ZEALOT_PLACE_N:-16}"); do
	pick arch llama qwen3moe qwen35 gemma3 gpt-oss gemma4
	pick wt f16 f16 q8_0 q4_0
	pick embd 256 512 768
	pick layers 4 6 8
	pick vocab 1000 4096
	sets="layers=$layers embd=$embd vocab=$vocab type=$wt"
	case $arch in
	qwen3moe)
		pick ne 4 8 16
		pick nu 1 2 4
		pick ffe 256 512
		sets="$sets experts=$ne experts_used=$nu ff_exp=$ffe"
		;;
	gpt-oss)
		pick ne 4 8 16
		pick nu 1 2 4
		sets="$sets experts=$ne experts_used=$nu ff_exp=256"
		;;
	gemma4)
		pick ne 0 8
		sets="$sets swa_pattern=3 swa=256 experts=$ne experts_used=2 ff_exp=256 shared_kv=$((layers - 3))"
		;;
	qwen35) sets="$sets nextn=0" ;;
	gemma3)
		pick swa 256 512
		sets="$sets swa=$swa swa_pattern=3"
		;;
	esac
	pick nd 1 2
	rpc=$R1
	[ "$nd" = 2 ] && rpc=$R1,$R2
	pick ngl 0 1 2 3 4 5 6 7 8 9 99
	pick split "" "1,1" "1,3" "3,1"
	[ "$nd" = 1 ] && split=""
	pick kvo 1 1 0
	pick np 1 2 3
	pick slot 1024 2048 4096
	pick ck f16 f16 q8_0
	pick cv f16 f16 q8_0
	pick ubatch 128 256 512 1024
	pick fa on on off
	[ "$fa" = off ] && cv=f16
	keys="CTX_SIZE=$((np * slot)) PARALLEL=$np RPC=$rpc NGL=$ngl KV_OFFLOAD=$kvo CACHE_TYPE_K=$ck CACHE_TYPE_V=$cv"
	keys="$keys UBATCH_SIZE=$ubatch FLASH_ATTN=$fa"
	[ -n "$split" ] && keys="$keys TENSOR_SPLIT=$split"
	if [ "$arch" = qwen3moe ] || [ "$arch" = gpt-oss ]; then
		pick ncm 0 1 2 99
		keys="$keys N_CPU_MOE=$ncm"
	fi
	[ "$AMX" = 1 ] && [ "$wt" != f16 ] && keys="$keys REPACK=0"
	name=p$i
	echo "# $name: $arch $sets | $keys"
	local_args=()
	for s in $sets; do local_args+=(--set "$s"); done
	must "$ZEALOT" synth "$arch" "${local_args[@]}" -o "$name.gguf" || exit 1
	boot_for_ledger "$name" "$keys"
	check_answered "$name" "$name.log"
	run "$ZEALOT" ledger "$name.log" --endpoint "$name.env" --json
	check "$name: every exact per-device term equals the ledger" rc_is 0
	[ "$rc" -eq 0 ] || {
		jq -c '.comparison[]|select(.match==false)' "$TMP/out" 2>/dev/null | head -5 | sed 's/^/#   /'
		grep -E 'error|failed' "$name.log" | head -3 | sed 's/^/#   engine: /'
	}
	err=$(jq '[.comparison[]|select(.term|test("compute"))|if (.diff|fabs) <= 0.01 then 0 else (.error_pct|fabs) end]|max // 999' \
		"$TMP/out" 2>/dev/null)
	rel=$(jq '[.comparison[]|select((.term|test("compute")) and .ledger >= 1)|.error_pct|fabs]|max // 0' "$TMP/out" 2>/dev/null)
	check "$name: every compute buffer within 5% (worst ${rel}%)" awk -v e="${err:-999}" 'BEGIN { exit !(e <= 5) }'
	[ "${err:-999}" = 0 ] || jq -c '.comparison[]|select(.term|test("compute"))|[.part,.plan,.ledger,.error_pct]' "$TMP/out" 2>/dev/null | sed 's/^/#   /'
	awk -v e="${rel:-0}" -v w="$worst" 'BEGIN { exit !(e > w) }' && worst=$rel
done
echo "# worst compute error across the placement sweep: ${worst}%"
check "no sanitizer report in any run" no_sanitizer
