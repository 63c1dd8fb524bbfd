# Plan vs the real engine on geometries no other test names: a seeded
# random sweep over architecture, widths, heads, head size, vocabulary,
# weight type, slots, pool, cache types, batch and ubatch, unified KV, flash
# attention and MTP drafting. Every exact term must equal the ledger and
# every compute buffer must be within 5 %; a shape `check` refuses by law
# (S03, S04) must be one the engine refuses too.
#
# ZEALOT_SWEEP_SEED (default 2026) and ZEALOT_SWEEP_N (default 24) pick the
# sweep; every case prints its geometry, so a failure is reproducible with
# `zealot synth` and `zealot ledger` by hand.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1

RANDOM=${ZEALOT_SWEEP_SEED:-2026}
pick() {
	local a=("$@")
	echo "${a[RANDOM % ${#a[@]}]}"
}

worst=0 booted=0 refused=0
for i in $(seq "${ZEALOT_SWEEP_N:-24}"); do
	arch=$(pick llama qwen35 gemma3)
	wt=$(pick f16 bf16 f32 q8_0 q4_0 q4_0 q4_K)
	case $wt in
	q4_K) hd=256 widths="256 512 768 1024" ;;
	q8_0 | q4_0) hd=$(pick 64 96 128 256) widths="256 512 768 1024 1536" ;;
	*) hd=$(pick 64 80 96 128 256) widths="256 512 768 1024 1536" ;;
	esac
	kvh=$(pick 1 2 4 8)
	heads=$((kvh * $(pick 1 2 4)))
	# shellcheck disable=SC2086
	embd=$(pick $widths)
	# shellcheck disable=SC2086
	ff=$(pick $widths)
	sets="layers=$(pick 4 6 8 12) embd=$embd ff=$ff heads=$heads kv_heads=$kvh head_dim=$hd rope_dims=$hd"
	sets="$sets vocab=$(pick 300 1000 4096 32000) type=$wt"
	mtp=0
	case $arch in
	qwen35)
		mtp=$(pick 0 1)
		sets="$sets interval=$(pick 2 3 4) ssm_state=$(pick 64 128) ssm_groups=$(pick 2 4)"
		sets="$sets ssm_dt_rank=$(pick 4 8 16) nextn=$mtp"
		;;
	gemma3) sets="$sets swa=$(pick 256 512 1024 4096) swa_pattern=$(pick 2 3 6)" ;;
	esac
	np=$(pick 1 2 3 4 5)
	keys="CTX_SIZE=$((np * ($(pick 1000 2000 4000 8000) + RANDOM % 1000))) PARALLEL=$np"
	keys="$keys CACHE_TYPE_K=$(pick f16 f16 q8_0 q4_0 bf16) CACHE_TYPE_V=$(pick f16 f16 q8_0 q4_0 q5_1)"
	keys="$keys BATCH_SIZE=$(pick 2048 2048 1024 512 256 100) UBATCH_SIZE=$(pick 64 128 256 512 1024)"
	keys="$keys KV_UNIFIED=$(pick 0 0 1) FLASH_ATTN=$(pick on on on off)"
	[ "$mtp" = 1 ] && keys="$keys SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=$(pick 1 2 3)"
	name=s$i
	what="$name: $arch $sets | $keys"

	args=()
	for s in $sets; do args+=(--set "$s"); done
	if ! "$ZEALOT" synth "$arch" "${args[@]}" -o "$name.gguf" 2>"$name.synth"; then
		check "$what: synth writes it" false
		sed 's/^/#   /' "$name.synth"
		continue
	fi
	{
		echo "RUNTIME=$SERVER"
		echo "MODEL_FILE=$name.gguf"
		echo "LISTEN_PORT=$(free_port)"
		echo "DEVICE=cpu"
		echo "ADDRESSABLE_MIB=20000"
		echo "SLACK_MIB=0"
		for s in $keys; do echo "$s"; done
	} >"$name.env"
	mapfile -t cmd < <("$ZEALOT" argv "$name.env")
	"${cmd[@]}" >"$name.log" 2>&1 &
	pid=$!
	for _ in $(seq 600); do
		grep -qE 'model loaded|exiting due|failed to' "$name.log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null

	"$ZEALOT" check --json "$name.env" >"$name.check" 2>/dev/null
	laws=$(jq -r '[.findings[]|select(.severity=="error" and (.law=="S03" or .law=="S04"))|.law]|unique|join(",")' "$name.check")
	if [ -n "$laws" ]; then
		refused=$((refused + 1))
		check "$what: check refuses by $laws and the engine refuses the context or aborts" \
			grep -qE 'failed to create context|GGML_ASSERT' "$name.log"
		continue
	fi
	booted=$((booted + 1))
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
