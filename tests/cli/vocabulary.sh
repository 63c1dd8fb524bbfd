# One vocabulary of options: --set on every command that reads an endpoint
# for a what-if (solve's --fix is its alias; serve takes it with
# --dry-run), --device wherever a plan is made, --json on every report
# (explain too); emit refuses an option its kind does not take and names
# the kind a misspelt one means.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
must "$ZEALOT" synth llama -o l.gguf || exit 1
printf '#!/bin/sh\nexec true\n' >rt.sh && chmod +x rt.sh
printf 'RUNTIME=%s\nMODEL_FILE=l.gguf\nCTX_SIZE=4096\nDEVICE=cpu\n' "$TMP/rt.sh" >e.env
takes() { "$ZEALOT" $1 --help 2>/dev/null | grep -qE -- "^  (-[a-z], )?$2( |$)"; }
for c in plan rungs solve check argv serve emit audit probe ledger arm; do
	check "$c takes --set" takes "$c" --set
done
for c in plan rungs solve check probe ledger; do
	check "$c (makes a plan) takes --device" takes "$c" --device
done
for c in inspect plan rungs solve check argv fetch audit probe bench deploy rollback arm history diff explain ledger archs store; do
	check "$c (a report) takes --json" takes "$c" --json
done

# explain --json: one law, the list, every law whole
run "$ZEALOT" explain M03 --json
check "explain M03 --json: the law's id, title and four parts" \
	eval 'rc_is 0 && json_is "[.id, (.title|length>0), (.what_breaks|length>0), (.why|length>0), (.check|length>0), (.fix|length>0)]" "[\"M03\",true,true,true,true,true]"'
run "$ZEALOT" explain --json
check "explain --json: every law, {id, title}" eval 'rc_is 0 && json_is "[(length>40), (.[0]|keys)]" "[true,[\"id\",\"title\"]]"'
run "$ZEALOT" explain --json --all
check "explain --json --all: every law whole" eval 'rc_is 0 && json_is "(.[0]|has(\"fix\"))" "true"'

# solve: --set and --fix are one list
run "$ZEALOT" solve e.env --set PARALLEL=2 --json
a=$(jq -c '.best.keys' "$TMP/out")
run "$ZEALOT" solve e.env --fix PARALLEL=2 --json
check "solve --set PARALLEL=2 = solve --fix PARALLEL=2" test -n "$a" -a "$a" = "$(jq -c '.best.keys' "$TMP/out")"

# check --device: judged and priced on the profile
run "$ZEALOT" check --json e.env --device rtx3090
check "check --device rtx3090: exit 0" rc_is 0
run "$ZEALOT" check e.env --device rtx-3090
check "check --device rtx-3090: exit 2, the flag blamed, did you mean" \
	test "$rc" -eq 2 -a -n "$(grep -F -- "--device: 'rtx-3090' is not a known profile: did you mean rtx3090?" "$TMP/err")"
run "$ZEALOT" probe 127.0.0.1:1 --set PARALLEL=2
check "probe --set without --endpoint: usage (exit 2)" rc_is 2

# emit: an option its kind does not take is refused, nothing written
run "$ZEALOT" emit unit e.env -o out.service
check "emit unit -o FILE: exit 2, nothing printed, nothing written" \
	test "$rc" -eq 2 -a ! -s "$TMP/out" -a ! -e out.service -a ! -e out.service/inventory.yml
check "emit unit -o: says it is ansible's and how to keep the unit" err_has "emit: unit: --output is for ansible only (unit prints to stdout: zealot emit unit FILE > NAME.service)"
run "$ZEALOT" emit alerts e.env --user bob
check "emit alerts --user: exit 2 (unit's option)" test "$rc" -eq 2 -a -n "$(grep -F -- '--user is for unit only' "$TMP/err")"
run "$ZEALOT" emit prometheus e.env --slot-minutes 3
check "emit prometheus --slot-minutes: exit 2 (alerts' option)" rc_is 2
run "$ZEALOT" emit alerts e.env --slot-minutes 3
check "emit alerts --slot-minutes 3: exit 0, the 3 minutes" test "$rc" -eq 0 -a -n "$(grep -F '3m' "$TMP/out")"
run "$ZEALOT" emit harness e.env --set ALIAS=what-if
check "emit harness --set ALIAS: the set alias" test "$rc" -eq 0 -a -n "$(grep -F 'what-if' "$TMP/out")"
for k in unti Unit units promethus alert; do
	run "$ZEALOT" emit "$k" e.env
	check "emit $k: exit 2, did you mean" test "$rc" -eq 2 -a -n "$(grep -F 'is not a kind: did you mean' "$TMP/err")"
done
check "no sanitizer report" no_sanitizer
