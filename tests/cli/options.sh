# The one option parser (src/cmd/options.c), proven on the real binary:
# every command of src/main.c's table documents exactly what it parses, and
# the parser's rules (did-you-mean, --opt=value, bounds, --, interleaving,
# positional counts) hold for the commands that rely on them.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

# The commands, from the table in src/main.c (not a list kept here).
commands=$(sed -nE 's/^[[:space:]]*&cmd_([a-z]+),$/\1/p' "$ROOT/src/main.c")
check "src/main.c's table names at least 11 commands" test "$(echo "$commands" | wc -l)" -ge 11

# The long options a command's source declares in its table: the second
# argument of every OPT_*() in the file that defines the struct command cmd_NAME.
declared() {
	local src
	src=$(grep -l "^const struct command cmd_$1 = " "$ROOT"/src/cmd/*.c)
	# and the rows of cmd.h's CMD_RATE_OPTS, options.c's opt_json_only,
	# where the file uses them
	{
		cat "$src"
		if grep -q 'CMD_RATE_OPTS(&' "$src"; then
			awk '/^#define CMD_RATE_OPTS/ { on = 1 } on { print } on && !/\\$/ { exit }' "$ROOT/src/cmd/cmd.h"
		fi
		if grep -q 'opt_json_only' "$src"; then
			sed -n '/^const struct opt opt_json_only/,/^};/p' "$ROOT/src/cmd/options.c"
		fi
	} | tr -d '\n\t' | grep -oE 'OPT_(FLAG|STRING|U64|DOUBLE|LIST|CHOICE)\([^,]*, *"[a-z0-9-]+"' |
		sed -E 's/.*"([a-z0-9-]+)"$/\1/'
}
# The options --help lists, as "--name" or "--name ARG", from its table rows.
listed() {
	grep -E '^  (-[a-zA-Z], )?--[a-z]' "$1" | sed -E 's/^  (-[a-zA-Z], )?//; s/  .*//; s/ +$//'
}

for c in $commands; do
	run "$ZEALOT" "$c" --help
	check "$c --help: exit 0" rc_is 0
	check "$c --help: a usage line" grep -qE "^usage: zealot $c( |$)" "$TMP/out"
	check "$c --help: an exit line" grep -qE '^exit: ' "$TMP/out"
	cp "$TMP/out" "help.$c"
	opts=$(declared "$c")
	check "$c: its source declares options (the extraction is not empty)" test -n "$opts"
	for o in $opts; do
		check "$c --help lists --$o" grep -qE -- "^  (-[a-zA-Z], )?--$o( |$)" "help.$c"
	done
	# and the other way: every option the help lists is one the parser takes
	# (a flag bare, a valued option as --name=1, then --help to stop there)
	listed "help.$c" >"listed.$c"
	while read -r name arg; do
		[ "$name" = --help ] && continue
		# a choice option (ARG is a|b|c) gets its first choice, others a number
		case $arg in *"|"*) val=${arg%%|*} ;; *) val=1 ;; esac
		if [ -n "$arg" ]; then run "$ZEALOT" "$c" "$name=$val" --help; else run "$ZEALOT" "$c" "$name" --help; fi
		check "$c: the parser takes the listed $name" rc_is 0
	done <"listed.$c"
	run "$ZEALOT" "$c" -h
	check "$c -h: exit 0, the same text" test "$rc" -eq 0 -a -z "$(diff "$TMP/out" "help.$c")"

	# positional counts: none at all (where the usage line names a required
	# argument: an upper-case word outside brackets), and more than
	# any command takes (diff takes three)
	if head -1 "help.$c" | sed -E 's/\[[^]]*\]//g' | grep -qE "^usage: zealot $c [A-Z]"; then
		run "$ZEALOT" "$c"
		check "$c with no argument: exit 2 with the usage line" \
			test "$rc" -eq 2 -a -n "$(grep -F "zealot: $c: missing" "$TMP/err")" -a -n "$(grep -F "(usage: zealot $c" "$TMP/err")"
	fi
	run "$ZEALOT" "$c" p1 p2 p3 p4
	check "$c with four arguments: exit 2 naming the extra one" \
		test "$rc" -eq 2 -a -n "$(grep -E "zealot: $c: unexpected argument 'p[1234]'" "$TMP/err")"

	# an unknown option: exit 2, a did-you-mean naming the nearest option
	first=$(echo "$opts" | head -1)
	run "$ZEALOT" "$c" p1 "--${first%?}"
	check "$c --${first%?}: exit 2, did you mean --$first" \
		test "$rc" -eq 2 -a -n "$(grep -F "zealot: $c: unknown option '--${first%?}' (did you mean --$first?)" "$TMP/err")"
	run "$ZEALOT" "$c" p1 --frobnicate-everything
	check "$c --frobnicate-everything: exit 2, points at --help" \
		test "$rc" -eq 2 -a -n "$(grep -F "unknown option '--frobnicate-everything' (see 'zealot $c --help')" "$TMP/err")"
	check "$c: no sanitizer report" no_sanitizer
done

# A small endpoint of our own (no example payloads needed).
must "$ZEALOT" synth llama -o l.gguf || exit 1
printf 'MODEL_FILE=l.gguf\nCTX_SIZE=4096\nDEVICE=cpu\nADDRESSABLE_MIB=16384\n' >e.env

# --opt=value and --opt value (string, number, repeatable), -o FILE, -oFILE
run "$ZEALOT" plan e.env --json
check "control: plan prices on the endpoint's DEVICE (cpu)" json_is .device '"cpu"'
run "$ZEALOT" plan e.env --json --device rtx3090
check "--device rtx3090 (separate value)" json_is .device '"rtx3090"'
run "$ZEALOT" plan e.env --json --device=rtx3090
check "--device=rtx3090 (attached value)" json_is .device '"rtx3090"'
run "$ZEALOT" emit alerts e.env
check "control: alerts wait 5 minutes by default" test -n "$(grep -F 'for: 5m' "$TMP/out")" -a -z "$(grep -F 'for: 7m' "$TMP/out")"
run "$ZEALOT" emit alerts e.env --slot-minutes 7
check "--slot-minutes 7 (separate value)" out_has "for: 7m"
run "$ZEALOT" emit alerts e.env --slot-minutes=7
check "--slot-minutes=7 (attached value)" out_has "for: 7m"
run "$ZEALOT" argv e.env --set=CTX_SIZE=8192 --set PARALLEL=2
check "--set=K=V and --set K=V, both applied" test "$(grep -A1 -Fx -- --ctx-size "$TMP/out" | tail -1)" = 8192 -a \
	"$(grep -A1 -Fx -- --parallel "$TMP/out" | tail -1)" = 2
for form in "-o s1.gguf" "-os1.gguf" "--output s1.gguf" "--output=s1.gguf"; do
	rm -f s1.gguf
	# shellcheck disable=SC2086
	run "$ZEALOT" synth llama $form
	check "synth $form writes s1.gguf" test "$rc" -eq 0 -a "$(head -c 4 s1.gguf 2>/dev/null)" = GGUF
done
run "$ZEALOT" plan e.env --json=1
check "a flag with =value: exit 2 naming it" test "$rc" -eq 2 -a -n "$(grep -F -- "--json takes no value" "$TMP/err")"

# a missing value, a number out of range, a malformed number: exit 2 naming the option
run "$ZEALOT" bench http://127.0.0.1:9 --runs
check "bench --runs with no value: exit 2 naming it" test "$rc" -eq 2 -a -n "$(grep -F -- "--runs needs a value" "$TMP/err")"
run "$ZEALOT" plan e.env --device
check "plan --device with no value: exit 2 naming it" test "$rc" -eq 2 -a -n "$(grep -F -- "--device needs a value" "$TMP/err")"
for bad in "bench --runs 0" "bench --runs 10001" "bench --concurrency 257" "bench --timeout 0" \
	"probe --timeout 86401" "emit --slot-minutes 1441" "audit --pid 0" "audit --pid 4194305"; do
	set -- $bad
	run "$ZEALOT" "$1" e.env "$2" "$3"
	check "$1 $2 $3: out of range, exit 2 naming $2 and its bounds" \
		test "$rc" -eq 2 -a -n "$(grep -E -- "zealot: $1: $2 takes a whole number from [0-9]+ to [0-9]+, not '$3'" "$TMP/err")"
done
for bad in 5x -1 1.5 "" 99999999999999999999999; do
	run "$ZEALOT" bench http://127.0.0.1:9 --runs="$bad"
	check "bench --runs='$bad': malformed, exit 2 naming --runs" \
		test "$rc" -eq 2 -a -n "$(grep -F -- "zealot: bench: --runs takes a whole number" "$TMP/err")"
done
# the bounds themselves are accepted (--help stops before any network)
for ok in "bench --runs=1" "bench --runs=10000" "bench --concurrency=256" "probe --timeout=86400" \
	"audit --pid=4194304"; do
	set -- $ok
	run "$ZEALOT" "$1" "$2" --help
	check "$1 $2: a bound is accepted" rc_is 0
done
run "$ZEALOT" emit alerts e.env --slot-minutes 1440
check "emit --slot-minutes 1440: accepted" test "$rc" -eq 0 -a -n "$(grep -F 'for: 1440m' "$TMP/out")"

# -- ends options: what follows is a positional even when it looks like one
mkdir d && cp l.gguf d/--json
(cd d && "$ZEALOT" inspect -- --json >"$TMP/out" 2>"$TMP/err")
rc=$?
check "inspect -- --json reads the file named --json, in the human form" \
	test "$rc" -eq 0 -a -n "$(grep -F 'payload       --json' "$TMP/out")" -a -z "$(grep -F '{' "$TMP/out")"
run "$ZEALOT" inspect -- --help
check "inspect -- --help: --help is a file name, not the help" \
	test "$rc" -eq 3 -a -n "$(grep -F "cannot open '--help'" "$TMP/err")"
run "$ZEALOT" inspect --json -- l.gguf
check "inspect --json -- FILE: the option before -- still counts" json_is .architecture '"llama"'
run "$ZEALOT" ledger - </dev/null
check "ledger -: a lone dash is a positional (stdin), not an option" \
	test "$rc" -eq 3 -a -n "$(grep -F "ledger: '-': no ledger lines" "$TMP/err")"

# options interleaved with positional arguments, in any order
run "$ZEALOT" emit alerts e.env --slot-minutes 7
cp "$TMP/out" alerts.last
for order in "--slot-minutes 7 alerts e.env" "alerts --slot-minutes 7 e.env" "alerts e.env --slot-minutes=7"; do
	# shellcheck disable=SC2086
	run "$ZEALOT" emit $order
	check "emit $order: the same rules" test "$rc" -eq 0 -a -z "$(diff "$TMP/out" alerts.last)"
done
run "$ZEALOT" plan --json e.env --device rtx3090
check "plan --json ENDPOINT --device NAME" json_is .device '"rtx3090"'
run "$ZEALOT" synth -o s2.gguf --set layers=2 llama --set embd=512
check "synth -o FILE --set ... ARCH --set ...: written" test "$rc" -eq 0 -a "$(head -c 4 s2.gguf)" = GGUF
run "$ZEALOT" inspect --json s2.gguf
check "both --set around ARCH applied" json_is '[.block_count,.embedding_length]' '[2,512]'

# the commands' own usage rules, beyond the table
run "$ZEALOT" synth llama
check "synth without -o: exit 2 saying so" test "$rc" -eq 2 -a -n "$(grep -F "missing -o FILE" "$TMP/err")"
run "$ZEALOT" synth -o x.gguf
check "synth without ARCH or --preset: exit 2 saying so" \
	test "$rc" -eq 2 -a -n "$(grep -F "missing ARCH or --preset" "$TMP/err")"
run "$ZEALOT" check --keys
check "check --keys needs no ENDPOINT" test "$rc" -eq 0 -a -n "$(grep -E '^CTX_SIZE ' "$TMP/out")"
run "$ZEALOT" audit e.env --pid 1 --unit x
check "audit --pid with --unit: exit 2 naming both" \
	test "$rc" -eq 2 -a -n "$(grep -F -- "--pid and --unit exclude each other" "$TMP/err")"
run "$ZEALOT" emit nonsense e.env
check "emit with an unknown sub-verb: exit 2 naming it" \
	test "$rc" -eq 2 -a -n "$(grep -F "'nonsense' is not unit, prometheus, alerts, harness or grafana" "$TMP/err")"
check "no sanitizer report" no_sanitizer

# no hand-written parsing left
check "no getopt anywhere in src/" test -z "$(grep -rl 'getopt' "$ROOT/src")"
