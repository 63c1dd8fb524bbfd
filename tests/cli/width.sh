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
