# Plan vs the real engine on geometries no other test names: a seeded
# random sweep over architecture, widths, heads, head size, vocabulary,
# weight type, slots, pool, cache types, batch and ubatch, unified KV, flash
# attention and MTP drafting. Every exact term must equal the ledger and
# every compute buffer must be within 5 %; a shape `check` refuses by law
# (S03, S04) must be one the engine refuses too, and every other boot must
# answer /health and a completion (or, where law S16 says the engine
# cannot on an AMX host, die by a signal: tests/engine.sh check_answered).
#
# ZEALOT_SWEEP_SEED (default 2026) and ZEALOT_SWEEP_N (default 24) pick the
# sweep; every case prints its geometry, so a failure is reproducible with
# `zealot synth` and `zealot ledger` by hand.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1

# A generator of our own: bash reseeds $RANDOM in every subshell, so a
# sweep drawn from it could not be replayed from its seed.
rng=${ZEALOT_SWEEP_SEED:-2026}
# pick VAR CHOICE...: VAR = one of the choices, drawn from the seed
pick() {
	local var=$1
	shift
	local a=("$@")
	rng=$(((rng * 1103515245 + 12345) % 2147483648))
	printf -v "$var" '%s' "${a[(rng >> 8) % ${#a[@]}]}"
}

worst=0 booted=0 refused=0
for i in $(seq "${ZEALOT_SWEEP_N:-24}"); do
	pick arch llama qwen35 gemma3 granitehybrid qwen2 qwen3 phi3 lfm2 mistral3 mamba2 nemotron_h gpt-oss gemma4 deepseek2 glm4moe qwen35moe
	# every weight type some CPU extra buffer takes on some host: AMX
	# (q4_0 q4_1 q8_0 q4_K q6_K f16), CPU_REPACK (q4_0 q4_K), neither (bf16 f32)
	pick wt f16 bf16 f32 q8_0 q4_0 q4_1 q4_K q6_K
	case $wt in
	q4_K | q6_K) hd=256 widths="256 512 768 1024" ;;
	q8_0 | q4_0 | q4_1) pick hd 64 96 128 256 && widths="256 512 768 1024 1536" ;;
	*) pick hd 64 80 96 128 256 && widths="256 512 768 1024 1536" ;;
	esac
	pick kvh 1 2 4 8
	pick mult 1 2 4
	heads=$((kvh * mult))
	# shellcheck disable=SC2086
	pick embd $widths
	# shellcheck disable=SC2086
	pick ff $widths
	pick layers 4 6 8 12
	pick vocab 300 1000 4096 32000
	sets="layers=$layers embd=$embd ff=$ff heads=$heads kv_heads=$kvh head_dim=$hd rope_dims=$hd"
	sets="$sets vocab=$vocab type=$wt"
	mtp=0
	case $arch in
	qwen35 | qwen35moe)
		pick mtp 0 1
		pick interval 2 3 4
		pick state 64 128
		pick groups 2 4
		pick rank 4 8 16
		sets="$sets interval=$interval ssm_state=$state ssm_groups=$groups ssm_dt_rank=$rank nextn=$mtp"
		if [ "$arch" = qwen35moe ]; then
			pick ne 4 8 16
			pick nu 1 2 4
			pick ffe 256 512
			sets="$sets experts=$ne experts_used=$nu ff_exp=$ffe"
		fi
		;;
	glm4moe) # partial rotary, biased q/k/v, routed + shared experts, an MTP block
		pick mtp 0 1
		pick ne 4 8 16
		pick nu 1 2 4
		pick ffe 256 512
		pick sh 1 2
		pick lead 0 1 2
		pick qkn 0 1
		pick bias 0 1
		sets="$sets rope_dims=$((hd / 2)) experts=$ne experts_used=$nu ff_exp=$ffe shared=$sh lead_dense=$lead"
		sets="$sets qk_norm=$qkn qkv_bias=$bias nextn=$mtp"
		;;
	deepseek2) # MLA: a K-only row of kv_lora + rope; widths in whole blocks of 32
		pick wt f16 bf16 q8_0 q4_0
		pick kvl 64 128 256 512
		pick rope 32 64
		pick nope 32 64 128
		pick dv 32 64 128
		pick ql 0 96 192 384
		pick ne 8 16 32
		pick nu 1 2 4
		pick ffe 128 256 512
		pick sh 1 2
		pick lead 0 1 2
		pick gating 1 2
		pick grp 0 0 4
		sets="layers=$layers embd=$embd ff=$ff heads=$heads kv_heads=1 head_dim=$((nope + rope)) rope_dims=$rope"
		sets="$sets head_dim_v=$dv kv_lora=$kvl q_lora=$ql experts=$ne experts_used=$nu ff_exp=$ffe shared=$sh"
		sets="$sets lead_dense=$lead gating=$gating vocab=$vocab type=$wt"
		[ "$grp" = 4 ] && [ "$ne" -ge 8 ] && sets="$sets groups=4 groups_used=2"
		pick mtp 0 0 1 # an MTP block needs the q latent
		[ "$ql" = 0 ] && mtp=0
		sets="$sets nextn=$mtp"
		;;
	qwen2 | phi3) # the query projection is embd wide
		sets="$sets embd=$((heads * hd))"
		;;
	lfm2)
		pick interval 2 3 4
		pick lcache 2 3 4
		sets="$sets embd=$((heads * hd)) interval=$interval ssm_conv=$lcache"
		;;
	mamba2)
		pick state 64 128
		pick groups 1 2
		pick rank 4 8 16
		sets="$sets ssm_state=$state ssm_groups=$groups ssm_dt_rank=$rank"
		;;
	granitehybrid | nemotron_h)
		pick interval 2 3 4
		pick state 64 128
		pick groups 1 2
		pick rank 4 8 16
		sets="$sets interval=$interval ssm_state=$state ssm_groups=$groups ssm_dt_rank=$rank"
		;;
	gemma3)
		pick swa 256 512 1024 4096
		pick pattern 2 3 6
		sets="$sets swa=$swa swa_pattern=$pattern"
		;;
	gpt-oss)
		pick swa 128 256
		pick experts 4 8 16
		pick used 1 2 4
		# shellcheck disable=SC2086
		pick ffexp $widths
		sets="$sets swa=$swa experts=$experts experts_used=$used ff_exp=$ffexp"
		;;
	gemma4)
		# full layers: head_dim x kv_heads; window layers: their own
		pick swa 256 512 1024
		pick pattern 2 3 6
		pick hds 64 128
		pick kvs 1 2 4
		pick experts 0 0 8 16
		pick used 1 2 4
		pick kveq 0 1
		# shared KV: every layer after the first period (whose last layer,
		# the last with a cache, is full)
		pick shared 0 0 1
		[ "$layers" -gt "$pattern" ] || shared=0
		shared=$((shared * (layers - pattern)))
		[ $((heads % kvs)) -eq 0 ] || kvs=1
		case $wt in q4_K | q6_K) hds=256 ;; esac
		sets="$sets swa=$swa swa_pattern=$pattern head_dim_swa=$hds kv_heads_swa=$kvs kv_eq=$kveq"
		sets="$sets experts=$experts experts_used=$used ff_exp=$ff shared_kv=$shared"
		;;
	esac
	pick np 1 2 3 4 5
	pick slot 1000 2000 4000 8000
	pick extra 0 17 256 511 999
	pick ck f16 f16 q8_0 q4_0 bf16
	pick cv f16 f16 q8_0 q4_0 q5_1
	# MLA reads V from K: the types mostly match (else law S04 refuses, as the engine does)
	[ "$arch" = deepseek2 ] && pick cv "$ck" "$ck" "$ck" "$cv"
	pick batch 2048 2048 1024 512 256 100
	pick ubatch 64 128 256 512 1024
	pick unified 0 0 1
	pick fa on on on off
	keys="CTX_SIZE=$((np * (slot + extra))) PARALLEL=$np CACHE_TYPE_K=$ck CACHE_TYPE_V=$cv"
	keys="$keys BATCH_SIZE=$batch UBATCH_SIZE=$ubatch KV_UNIFIED=$unified FLASH_ATTN=$fa"
	if [ "$mtp" = 1 ]; then
		pick depth 1 2 3
		keys="$keys SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=$depth"
	fi
	name=s$i
	what="$name: $arch $sets | $keys"

	args=()
	for s in $sets; do args+=(--set "$s"); done
	if ! "$ZEALOT" synth "$arch" "${args[@]}" -o "$name.gguf" 2>"$name.synth"; then
		check "$what: synth writes it" false
		sed 's/^/#   /' "$name.synth"
		continue
	fi
	boot_for_ledger "$name" "$keys"

	"$ZEALOT" check --json "$name.env" >"$name.check" 2>/dev/null
	laws=$(jq -r '[.findings[]|select(.severity=="error" and (.law=="S03" or .law=="S04"))|.law]|unique|join(",")' "$name.check")
	if [ -n "$laws" ]; then
		refused=$((refused + 1))
		check "$what: check refuses by $laws and the engine refuses the context or aborts" \
			logged_after_boot "$name" "$keys" 'failed to create context|GGML_ASSERT'
		continue
	fi
	booted=$((booted + 1))
	check_answered "$name" "$name.log"
	run "$ZEALOT" ledger "$name.log" --endpoint "$name.env" --json
	check "$what: every exact term equals the ledger" rc_is 0
	[ "$rc" -eq 0 ] || {
		jq -c '.comparison[]|select(.match==false)' "$TMP/out" 2>/dev/null | head -5 | sed 's/^/#   /'
		grep -E ' E ' "$name.log" | head -3 | sed 's/^/#   engine: /'
	}
	err=$(jq '[.comparison[]|select(.term|test("compute"))|.error_pct|fabs]|max // 0' "$TMP/out" 2>/dev/null)
	check "$name: compute within 5% of the ledger (${err}%)" awk -v e="${err:-999}" 'BEGIN { exit !(e <= 5) }'
	awk -v e="${err:-0}" -v w="$worst" 'BEGIN { exit !(e > w) }' && worst=$err
done
echo "# sweep seed ${ZEALOT_SWEEP_SEED:-2026}: $booted booted, $refused refused by law; worst compute error ${worst}%"
