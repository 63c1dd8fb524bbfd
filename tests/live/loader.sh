# Law S17 against the real engine: what its model loader refuses for a
# shape the header decides, zealot inspect and check refuse before boot,
# with the same tensor and the same two shapes; the same geometry with the
# shapes in agreement boots and answers, and zealot passes it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1
printf '#!/bin/sh\nexec true\n' >rt.sh && chmod +x rt.sh

# endpoint NAME FILE: a cpu endpoint serving FILE
endpoint() {
	cat >"$1.env" <<E
RUNTIME=$TMP/rt.sh
MODEL_FILE=$2
CTX_SIZE=4096
PARALLEL=1
PRESENCE_PENALTY=
DEVICE=cpu
ADDRESSABLE_MIB=16384
E
}

# vocab TOKENS ROWS: a token list of TOKENS over a token_embd of ROWS rows
for pair in 600:512 512:600 600:600; do
	tokens=${pair%:*} rows=${pair#*:} name=v$tokens-r$rows
	"$ZEALOT" synth llama --set vocab="$tokens" --set embd_rows="$rows" -o "$name.gguf" 2>/dev/null
	endpoint "$name" "$name.gguf"
	engine_start "$name" -m "$TMP/$name.gguf" -c 4096
	run "$ZEALOT" check --json "$name.env"
	s17=$(jq -r '[.findings[]|select(.law=="S17")|.reason]|join("")' "$TMP/out")
	if [ "$tokens" = "$rows" ]; then
		check "$name: the engine boots and answers" test -n "$ENGINE_PID"
		check "$name: check passes it (no S17, exit 0)" test "$rc" -eq 0 -a -z "$s17"
		run "$ZEALOT" inspect "$name.gguf"
		check "$name: inspect exit 0" rc_is 0
	else
		check "$name: the engine refuses the file (exit $ENGINE_STATUS)" \
			test -z "$ENGINE_PID" -a -n "$(grep -F "tensor 'token_embd.weight' has wrong shape" "$ENGINE_LOG")"
		# the engine prints "expected 256, T, got 256, R, 1, 1"
		want=$(grep -oE "expected +[0-9]+, +[0-9]+, got +[0-9]+, +[0-9]+" "$ENGINE_LOG" | head -1 | tr -s ' ' |
			sed -E 's/expected ([0-9]+), ([0-9]+), got ([0-9]+), ([0-9]+)/has shape [\3, \4], the engine'"'"'s loader expects [\1, \2]/')
		check "$name: check refuses it, S17, exit 1, with the engine's own two shapes ($want)" \
			test "$rc" -eq 1 -a -n "$want" -a -n "$(echo "$s17" | grep -F "$want")"
		run "$ZEALOT" inspect "$name.gguf"
		check "$name: inspect refuses it, exit 3, the same shapes" test "$rc" -eq 3 -a -n "$(grep -F "$want" "$TMP/err")"
	fi
	engine_stop
done
check "no sanitizer report" no_sanitizer
