# docs/runbooks.md, the seeds' runbook items and where zealot does them
# (issue 33): every test a row names exists, every zealot command it names
# answers --help, every row's status is done, partial or not done, and a
# row that is not done (or partial) says why.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

doc=$ROOT/docs/runbooks.md
grep -E '^\| [^-]' "$doc" | tail -n +2 >rows.txt
check "the table has rows" test "$(wc -l <rows.txt)" -ge 10
n=0
while IFS= read -r row; do
	n=$((n + 1))
	held=$(awk -F'|' '{print $4}' <<<"$row")
	status=$(awk -F'|' '{print $5}' <<<"$row" | sed 's/^ *//; s/ *$//')
	for f in $(grep -oE 'tests/[A-Za-z0-9_/.-]+' <<<"$held"); do
		check "row $n: $f exists" test -e "$ROOT/$f"
	done
	for c in $(awk -F'|' '{print $3}' <<<"$row" | grep -oE '`zealot [a-z]+' | sed 's/`zealot //' | sort -u); do
		check "row $n: zealot $c answers --help" "$ZEALOT" "$c" --help
	done
	case $status in
	done*) check "row $n: done, held by a test" test -n "$(grep -oE 'tests/' <<<"$held")" ;;
	partial:* | "not done:"* | "not done here:"*)
		check "row $n: '${status%%:*}' says why" test "$(sed 's/^[^:]*: *//' <<<"$status" | wc -c)" -gt 20 ;;
	*) check "row $n: status '$status' is done, partial: WHY or not done: WHY" false ;;
	esac
done <rows.txt

# explain credits the command that really checks a law: A09 is deploy's
# (the boot's journal, cause.c); M10 is deploy's (the ledger step, the
# memory step) and audit's (the settled memory, src/live/memory.c)
run "$ZEALOT" explain A09
check "explain A09: how zealot checks it names deploy, not audit" \
	eval 'rc_is 0 && sed -n "/how zealot checks it/,/the fix/p" "$TMP/out" | grep -q deploy &&
		! sed -n "/how zealot checks it/,/the fix/p" "$TMP/out" | grep -q "audit"'
run "$ZEALOT" explain M10
check "explain M10: how zealot checks it names deploy's memory step and audit, and no 'not yet'" \
	eval 'rc_is 0 && sed -n "/how zealot checks it/,/the fix/p" "$TMP/out" | tr "\n" " " | tr -s " " >m10.txt &&
		grep -q "deploy.s memory step and audit" m10.txt && ! grep -qi "not yet" m10.txt'

# the slack band says how the seeds' 2-3 GiB free band is set (item 10)
run "$ZEALOT" check --keys
check "SLACK_MIB's text: the seeds' 2-3 GiB band is SLACK_MIB=2048 to 3072" out_has_unwrapped "SLACK_MIB=2048 to 3072"
