# Human reports fit 100 columns (CMD_WIDTH): plan, check and rungs on every
# shipped example, the runnable one and the seeds' dated endpoints, whose
# details (CUDA notes, findings with a path, rung costs) are the widest.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

for e in examples/demo.env examples/history/*.env; do
	for c in plan check rungs; do
		"$ZEALOT" "$c" "$e" >"$TMP/out" 2>&1
		w=$(awk '{ if (length > m) m = length } END { print m + 0 }' "$TMP/out")
		check "$c $(basename "$e"): widest line $w columns (at most 100)" test "$w" -le 100
	done
done
# the wrap keeps every word: a finding's reason reads the same joined up
run "$ZEALOT" check examples/history/frank-zealot.env
check "a wrapped finding keeps its words" \
	test -n "$(tr '\n' ' ' <"$TMP/out" | tr -s ' ' | grep -F 'the loader matches tensor names, not hashes')"

# On a terminal the reports fit its width (COLUMNS, else the tty's); not
# on one, 100 whatever COLUMNS says. script(1) gives the pty.
widest() { tr -d '\r' <"$1" | sed 's/\x1b\[[0-9;]*m//g' | awk 'NF > 1 { if (length > m) m = length } END { print m + 0 }'; }
tty80() { # OUT CMD...: CMD's stdout on an 80-column pty
	local out=$1
	shift
	script -qec "stty cols 80 rows 50; $(printf '%q ' "$@")" /dev/null >"$out" 2>&1
}
if command -v script >/dev/null; then
	for c in "check --keys" "inspect examples/payloads/demo-llama.gguf" "inspect examples/payloads/bonsai-9b-pq2.gguf" \
		"inspect examples/payloads/bonsai-27b-pq2.gguf" "plan examples/demo.env" "check examples/demo.env" \
		"plan examples/history/frank-zealot.env" "check examples/history/frank-zealot.env"; do
		# shellcheck disable=SC2086
		tty80 "$TMP/tty" env -u COLUMNS "$ZEALOT" $c
		check "$c on an 80-column terminal: widest line $(widest "$TMP/tty") (at most 80)" \
			test "$(widest "$TMP/tty")" -le 80 -a "$(wc -l <"$TMP/tty")" -gt 2
	done
	tty80 "$TMP/tty" env COLUMNS=140 "$ZEALOT" check --keys
	check "check --keys with COLUMNS=140 on a terminal: lines past 100 ($(widest "$TMP/tty"))" \
		test "$(widest "$TMP/tty")" -gt 100 -a "$(widest "$TMP/tty")" -le 140
fi
COLUMNS=60 "$ZEALOT" check --keys >"$TMP/pipe"
check "check --keys into a pipe: 100 columns whatever COLUMNS says ($(widest "$TMP/pipe"))" \
	test "$(widest "$TMP/pipe")" -gt 80 -a "$(widest "$TMP/pipe")" -le 100
for p in examples/payloads/*.gguf; do
	"$ZEALOT" inspect "$p" >"$TMP/pipe"
	check "inspect $(basename "$p") into a pipe: at most 100 columns ($(widest "$TMP/pipe"))" test "$(widest "$TMP/pipe")" -le 100
done

# the man pages at man's 80 columns
if command -v man >/dev/null; then
	mkdir -p "$TMP/man"
	wide=
	for pg in $("$ZEALOT" help --pages); do
		"$ZEALOT" help --man "$(echo "${pg%.*}" | sed 's/^zealot-//; s/^zealot$/zealot/')" >"$TMP/man/$pg" 2>/dev/null || continue
		w=$(MANWIDTH=80 man -l "$TMP/man/$pg" 2>/dev/null | col -b | awk '{ if (length > m) m = length } END { print m + 0 }')
		[ "$w" -le 80 ] || wide="$wide $pg:$w"
	done
	check "every man page fits 80 columns ($wide)" test -z "$wide" -a "$(ls "$TMP/man" | wc -l)" -ge 25
fi

# the CPU plan says why a repacked model appears twice
run "$ZEALOT" plan examples/demo.env --cpu-features avx2,avx512,avx512_vnni,amx_int8
check "CPU plan with a repack buffer: the copy and the mapped span named" \
	eval 'out_has_unwrapped "weights repacked for the CPU" && out_has_unwrapped "still holds the originals of the repacked tensors (counted twice)"'
# jargon: defined in docs/conventions.md's words, or not said
for w in bill slot "slack band" era rung armed seeds stand-in; do
	check "glossary: '$w' defined" grep -qF -- "- **$w**" docs/conventions.md
done
check "no 'recipe' in a message (undefined)" test -z "$(grep -rn --include='*.c' '"[^"]*recipe' src)"
