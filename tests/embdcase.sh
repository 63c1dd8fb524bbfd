# The embedding server's case of the live suites, written once: a
# synthesised encoder boots through `zealot argv` with the suite's keys,
# answers /v1/embeddings (and the probes), and its plan is held to the
# boot's ledger. Source it after lib.sh, engine.sh and plancase.sh
# (plan_mirrors), from the suite's $TMP.

# embd_boot NAME "KEY=VALUE ...": NAME.env serving NAME.gguf on the cpu
# profile, booted through `zealot argv`; one /v1/embeddings request (its
# answer in NAME.json, its HTTP status in EMBD_HTTP) and one /completion
# (its answer in NAME.comp); the engine stopped
# by PID, its log in NAME.log.
embd_boot() {
	local name=$1 keys=$2 s pid port cmd
	port=$(free_port)
	{
		echo "RUNTIME=$SERVER"
		echo "MODEL_FILE=$name.gguf"
		echo "LISTEN_PORT=$port"
		echo "DEVICE=cpu"
		echo "ADDRESSABLE_MIB=20000"
		echo "SLACK_MIB=0"
		echo "EXTRA_ARGS=--threads 1"
		for s in $keys; do echo "$s"; done
	} >"$name.env"
	mapfile -t cmd < <("$ZEALOT" argv "$name.env")
	"${cmd[@]}" >"$name.log" 2>&1 &
	pid=$!
	EMBD_HTTP=none
	if engine_up "$pid" "$port"; then
		EMBD_HTTP=$(curl -s -m 60 -o "$name.json" -w '%{http_code}' -H 'Content-Type: application/json' \
			-d '{"input":"The sky is blue"}' "http://127.0.0.1:$port/v1/embeddings")
		"$ZEALOT" probe "http://127.0.0.1:$port" --endpoint "$name.env" --only embeddings,rerank --json \
			>"$name.probe" 2>&1
		curl -s -m 60 -o "$name.comp" -H 'Content-Type: application/json' \
			-d '{"prompt":"The sky is","n_predict":2}' "http://127.0.0.1:$port/completion"
	fi
	stop_pid "$pid"
}

# ecase NAME "synth sets" "KEY=VALUE ..." [embd]: synth a bert (ARCH=A
# ecase ...: another encoder), boot it, hold the plan to the ledger; with
# embd, the answer is one vector of embd floats.
ecase() {
	local name=$1 sets=$2 keys=$3 embd=${4:-} s args=() err arch=${ARCH:-bert}
	for s in $sets; do args+=(--set "$s"); done
	"$ZEALOT" synth "$arch" "${args[@]}" -o "$name.gguf" >/dev/null 2>"$name.synth" ||
		{ check "$name: synth $arch writes it" false; return; }
	embd_boot "$name" "$keys"
	if [ -n "$embd" ]; then
		check "$name: /v1/embeddings answers one vector of $embd floats" \
			jq -e --argjson n "$embd" '(.data|length) == 1 and (.data[0].embedding|length) == $n' "$name.json"
		check "$name: the embeddings probe passes, a vector of n_embd = $embd floats" \
			grep -q "a vector of $embd floats = n_embd" "$name.probe"
	fi
	if [ -z "$embd" ]; then
		check "$name: without EMBEDDINGS=on the embeddings probe is skipped" \
			grep -q 'does not set EMBEDDINGS=on' "$name.probe"
	fi
	case " $keys " in
	*" POOLING=rank "*)
		check "$name: the rerank probe passes against /v1/rerank" \
			jq -e '.probes[]|select(.name=="rerank" and .status=="pass")' "$name.probe"
		check "$name: emit harness names the rerank path" sh -c "'$ZEALOT' emit harness '$name.env' | grep -q 'path: /v1/rerank'" ;;
	*) check "$name: the rerank probe is skipped without POOLING=rank" \
		jq -e '.probes[]|select(.name=="rerank" and .status=="skip")' "$name.probe" ;;
	esac
	run "$ZEALOT" ledger "$name.log" --endpoint "$name.env" --json
	check "$name ($arch $sets | $keys): every exact term equals the ledger" rc_is 0
	[ "$rc" -eq 0 ] || jq -c '.comparison[]|select(.match==false)' "$TMP/out" 2>/dev/null | head -5 | sed 's/^/#   /'
	cp "$TMP/out" "$name.cmp"
	check "$name: the plan mirrors $arch's graph (exact, nothing unmirrored)" plan_mirrors "$name.env"
	if [ "$arch" = llama-embed ] || [ "$arch" = t5encoder ]; then # create_memory makes it the default cache, unused
		check "$name: the KV cache the engine still makes equals the plan's" \
			jq -e '[.comparison[]|select(.term=="kv")]|length > 0 and all(.match)' "$name.cmp"
	else
		check "$name: no KV cache, in the boot or the plan" \
			sh -c "! grep -q 'KV buffer size' '$name.log' && ! jq -e '.comparison[]|select(.term==\"kv\")' '$name.cmp' >/dev/null"
	fi
	err=$(jq '[.comparison[]|select(.term|test("compute"))|if (.diff|fabs) <= 0.01 then 0 else (.error_pct|fabs) end]|max // 0' \
		"$name.cmp" 2>/dev/null)
	check "$name: every compute buffer within 0.5% of the ledger ($err%)" \
		awk -v e="${err:-999}" 'BEGIN { exit !(e <= 0.5) }'
	jq -r '.comparison[]|select(.term=="output" or (.term|test("compute")))|"#   \(.term) \(.part): plan \(.plan) ledger \(.ledger) (\(.error_pct)%)"' "$name.cmp" 2>/dev/null
}
