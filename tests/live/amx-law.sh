# Law S16 against the engine's own fate on this host, whatever its CPU:
# `check` raises S16 for an endpoint exactly when the engine, booted as the
# endpoint says, dies before answering (on an AMX host the pinned engine
# dies at warm-up with SIGILL on weights in its AMX buffer); with REPACK=0
# every payload boots and answers. On a host without AMX the law stays
# silent and every boot answers; on an AMX host it fires for the quantized
# payloads and they die. No expectation is taken from the host's ISA.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1

prompt='{"prompt":"hi","max_tokens":1,"temperature":0}'
# answers NAME ARGS...: boot the engine; 0 when it answers /health and a completion
answers() {
	local name=$1
	shift
	engine_start "$name" "$@" || return 1
	engine_post /v1/completions "$prompt"
	local ok=1
	[ "$http" = 200 ] && ok=0
	engine_stop
	return $ok
}

for p in "llama q4_0" "qwen35 q8_0" "gemma3 q4_K" "llama f16"; do
	# shellcheck disable=SC2086
	set -- $p
	name="$1-$2"
	"$ZEALOT" synth "$1" --set type="$2" --set embd=512 --set ff=512 --set layers=4 --set ssm_state=64 \
		-o "$name.gguf" 2>/dev/null
	for repack in 1 0; do
		cat >"$name-$repack.env" <<X
RUNTIME=$SERVER
MODEL_FILE=$name.gguf
CTX_SIZE=4096
PRESENCE_PENALTY=
REPACK=$repack
DEVICE=cpu
X
		"$ZEALOT" check --json "$name-$repack.env" >"$name-$repack.check" 2>/dev/null
		s16=$(jq '[.findings[]|select(.law=="S16")]|length' "$name-$repack.check")
		flags=(-m "$name.gguf" -c 4096 -np 1)
		[ "$repack" = 1 ] || flags+=(--no-repack)
		if answers "$name-$repack" "${flags[@]}"; then fate=answered; else fate=died; fi
		if [ "$repack" = 1 ]; then
			want=answered
			[ "$s16" -eq 0 ] || want=died
			check "$name REPACK=1: S16 raised $s16 time(s), and the engine $fate" test "$fate" = "$want"
			[ "$fate" = "$want" ] || tail -3 "$ENGINE_LOG" | sed 's/^/#   engine: /'
		else
			check "$name REPACK=0: S16 not raised and the engine answers" test "$s16" -eq 0 -a "$fate" = answered
		fi
	done
done
