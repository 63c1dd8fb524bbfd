# One source for the docs: each command's text in doc/zealot-NAME.txt (made
# into its struct cmd_help by scripts/gen-doc.sh) and its option table
# render its --help, its man page and docs/cmd/NAME.md; the key table renders
# zealot-endpoint(5) and docs/endpoint.md; src/judge/lawdoc.c holds
# the laws src/cmd/explain.c renders as zealot explain, zealot-laws(7) and docs/laws.md. Here: the committed pages
# are what the binary renders now (make docs), the man page of each command
# lists every option its --help lists, every law id the code cites has a
# page, and zealot help / explain / the did-you-means answer.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

# doc/: every file is a command's (its --help answers), every command has one,
# and scripts/gen-doc.sh refuses a file it cannot read as sections, naming it.
for f in "$ROOT"/doc/zealot-*.txt; do
	c=$(basename "$f" .txt)
	c=${c#zealot-}
	case $c in fleet-*) c="fleet ${c#fleet-}" ;; esac
	# shellcheck disable=SC2086 # "fleet plan" is two words
	check "doc/$(basename "$f"): zealot $c --help answers" "$ZEALOT" $c --help
done
"$ZEALOT" help --commands | while read -r c _; do
	[ -e "$ROOT/doc/zealot-$c.txt" ] || echo "$c"
done >undocumented
check "every command has its doc/zealot-NAME.txt ($(tr '\n' ' ' <undocumented))" test ! -s undocumented
# the one line zealot --help and the man page's NAME show is the file's
nosummary=$(grep -L -x '\[summary\]' "$ROOT"/doc/zealot-*.txt | sed 's|.*/||')
check "every doc/zealot-NAME.txt has its [summary] ($nosummary)" test -z "$nosummary"
printf '# bad\n[usage]\nzealot x\n[about]\nx\n[args]\n1 lots\n' >zealot-x.txt
run "$ROOT/scripts/gen-doc.sh" x.h zealot-x.txt
check "gen-doc.sh: [args] not MIN MAX is refused, naming the file" \
	test "$rc" -ne 0 -a -n "$(grep -F 'zealot-x.txt: [args] is MIN MAX' "$TMP/err")" -a ! -e x.h
printf '[usage]\nzealot x\n[args]\n0 any\n' >zealot-x.txt
run "$ROOT/scripts/gen-doc.sh" x.h zealot-x.txt
check "gen-doc.sh: a file without [about] and [exits] is refused" \
	test "$rc" -ne 0 -a -n "$(grep -F 'zealot-x.txt: needs [usage], [about], [exits] and [args]' "$TMP/err")"
printf '[summary]\nsay "x"\n[usage]\nzealot "x" \\ y??)\n[about]\nline one\n\n[exits]\n0\n[args]\n0 any\n' >zealot-x.txt
run "$ROOT/scripts/gen-doc.sh" x.h zealot-x.txt
printf '#include "x.h"\n#include <stdio.h>\n#define OPT_ARGS_ANY 99u\nstruct h { const char *summary, *usage, *about, *exits; unsigned min_args, max_args; };\nstatic const struct h d = {DOC_X};\nint main(void) { printf("%%s|%%s|%%s|%%s|%%u|%%u", d.summary, d.usage, d.about, d.exits, d.min_args, d.max_args); return 0; }\n' >x.c
check "gen-doc.sh: the text comes back byte for byte (the summary, quotes, backslash, ??, a kept newline)" \
	sh -c 'cc -std=c11 -Wall -Werror -o x x.c && test "$(./x)" = "say \"x\"|zealot \"x\" \\ y??)|line one
|0|0|99"'

# The pages the binary renders, into a fresh tree, against the committed one.
"$ROOT/scripts/gen-docs.sh" md "$ZEALOT" fresh 2>gen.err
check "gen-docs md: renders without a word on stderr" test ! -s gen.err
n=$(find fresh -name '*.md' | wc -l)
check "gen-docs md: a page per command, fleet subcommand, endpoint, laws ($n)" test "$n" -ge 25
for f in $(cd fresh && find . -name '*.md' | sort); do
	check "docs/${f#./} is fresh (make docs)" diff -u "$ROOT/docs/${f#./}" "fresh/$f"
done
stale=$(cd "$ROOT/docs" && find cmd -name '*.md' | while read -r f; do [ -e "$TMP/fresh/$f" ] || echo "$f"; done)
check "docs/cmd/ holds no page of a command that is gone ($stale)" test -z "$stale"

# The man pages: each renders through man(1) without a warning, and lists
# every option its command's --help lists.
"$ROOT/scripts/gen-docs.sh" man "$ZEALOT" man 2>/dev/null
check "man pages: zealot.1, zealot-endpoint.5, zealot-laws.7" test -s man/zealot.1 -a -s man/zealot-endpoint.5 -a -s man/zealot-laws.7
for page in man/*.[157]; do
	MANWIDTH=100 man --warnings -l "$page" >"$page.txt" 2>"$page.warn"
	check "$(basename "$page"): man -l renders it, no warning" test -s "$page.txt" -a ! -s "$page.warn"
done
"$ZEALOT" help --commands >commands
check "help --commands: src/main.c's table" test "$(wc -l <commands)" -eq \
	"$(grep -cE '^[[:space:]]*&cmd_[a-z]+,$' "$ROOT/src/main.c")"
pages() { # every command and fleet subcommand, as "NAME ARGS-TO-ZEALOT"
	while read -r c; do echo "$c $c"; done <commands
	"$ZEALOT" fleet --list | while read -r s; do echo "fleet-$s fleet $s"; done
}
pages >pages
while read -r page args; do
	# shellcheck disable=SC2086
	"$ZEALOT" $args --help >"help.$page"
	md=$ROOT/docs/cmd/$page.md
	man=man/zealot-$page.1.txt
	check "$page: a man page and a docs page" test -s "$man" -a -s "$md"
	missing=
	for o in $(sed -nE 's/^  (-[a-zA-Z], )?(--[a-z0-9-]+).*/\2/p' "help.$page"); do
		grep -qE -- "(^|[ ,])$o( |,|$)" "$man" || missing="$missing man:$o"
		grep -qF -- "\`$o" "$md" || grep -qF -- ", $o" "$md" || missing="$missing md:$o"
	done
	check "$page: every option of --help is in the man page and docs/cmd/$page.md ($missing)" test -z "$missing"
	usage=$(sed -n 's/^usage: //p' "help.$page")
	# the man page breaks a long usage line to fit 80 columns: compared word for word
	# shellcheck disable=SC2086
	check "$page: the man page's synopsis is --help's usage line" \
		grep -qF -- "$(echo $usage)" <(tr -s '[:space:]' ' ' <"$man")
	check "$page: docs/cmd/$page.md's usage is --help's" grep -qxF -- "$usage" "$md"
	# --help fits 100 columns (the option help wraps; the computed sections
	# after "devices:" and "presets" read tables of src/plan and src/payload)
	wide=$(sed -E '/^(devices|presets \(--preset NAME\)):$/,$d' "help.$page" | awk 'length($0) > 100 { n++ } END { print n + 0 }')
	check "$page --help: no line over 100 columns ($wide)" test "$wide" -eq 0
	# every example parses: its options are the command's (--help stops it)
	sed -n '/^examples:$/,/^$/p' "help.$page" | sed -nE 's/^  zealot (.*)$/\1/p' |
		sed -E 's/ +\(.*\)$//; s/ *\|.*$//' >"ex.$page"
	while read -r line; do
		eval "set -- $line"
		run "$ZEALOT" "$@" --help
		check "$page example 'zealot $line': parses" rc_is 0
	done <"ex.$page"
	exits=$(sed -n 's/^exit: //p' "help.$page")
	check "$page: the exit statuses agree" test -n "$exits" -a -n "$(grep -F -- "$exits" "$md")"
done <pages

# every law id the code cites has a page, and the page has its four parts
for id in $(grep -rhoE '"[MSCA][0-9]{2}"' "$ROOT/src" | tr -d '"' | sort -u); do
	run "$ZEALOT" explain "$id"
	check "explain $id: exit 0, the four parts" test "$rc" -eq 0 -a -n "$(grep -x '  what breaks' "$TMP/out")" \
		-a -n "$(grep -x '  why' "$TMP/out")" -a -n "$(grep -x '  how zealot checks it' "$TMP/out")" -a -n "$(grep -x '  the fix' "$TMP/out")"
	check "laws.md and zealot-laws(7) have $id" test -n "$(grep -E "^## $id: " "$ROOT/docs/laws.md")" \
		-a -n "$(grep -E "^   $id: " man/zealot-laws.7.txt)"
done
run "$ZEALOT" explain M03
check "explain M03: the per-slot window" test "$rc" -eq 0 -a -n "$(grep -F 'PARALLEL' "$TMP/out")" -a -n "$(head -1 "$TMP/out" | grep '^M03  ')"
run "$ZEALOT" explain m03
check "explain m03: case does not matter" out_has "M03  "
run "$ZEALOT" explain M3
check "explain M3: exit 2, did you mean M03" test "$rc" -eq 2 -a -n "$(grep -F "'M3' is not a law id (did you mean M03?)" "$TMP/err")"
run "$ZEALOT" explain
check "explain: one line per law" test "$rc" -eq 0 -a "$(grep -cE '^[MSCA][0-9]{2}  ' "$TMP/out")" -ge 40

# zealot help CMD is CMD's page (not a terminal: printed, the --help text)
run "$ZEALOT" help plan
check "help plan: plan's page, the same as plan --help" test "$rc" -eq 0 -a -z "$(diff "$TMP/out" help.plan)"
run "$ZEALOT" help fleet plan
check "help fleet plan: fleet plan's page" test "$rc" -eq 0 -a -z "$(diff "$TMP/out" help.fleet-plan)"
run "$ZEALOT" help
check "help: the command list" test "$rc" -eq 0 -a -n "$(grep -E '^  plan ' "$TMP/out")"
run "$ZEALOT" help plna
check "help plna: exit 2, did you mean plan" test "$rc" -eq 2 -a -n "$(grep -F "did you mean 'plan'?" "$TMP/err")"
run "$ZEALOT" help --man endpoint
check "help --man endpoint: a section 5 page with every key of check --keys" test "$rc" -eq 0 \
	-a -n "$(head -1 "$TMP/out" | grep -F '"ZEALOT-ENDPOINT" 5')"
"$ZEALOT" check --keys | awk 'NR > 2 && /^[A-Z]/ { print $1 }' >keys
missing=
while read -r k; do grep -qF -- "\\fB${k//_/_}\\fR" "$TMP/out" || missing="$missing $k"; done <keys
check "zealot-endpoint(5) lists all $(wc -l <keys) keys ($missing)" test -z "$missing" -a -s keys

# did you mean: a command, a fleet subcommand
run "$ZEALOT" plna
check "zealot plna: exit 2, did you mean 'plan'" test "$rc" -eq 2 -a -n "$(grep -Fx "zealot: 'plna' is not a zealot command (did you mean 'plan'?)" "$TMP/err")"
run "$ZEALOT" xyzzy
check "zealot xyzzy: exit 2, nothing near, points at --help" test "$rc" -eq 2 -a -n "$(grep -F "(see 'zealot --help')" "$TMP/err")"
run "$ZEALOT" fleet stauts
check "fleet stauts: exit 2, did you mean 'status'" test "$rc" -eq 2 -a -n "$(grep -F "did you mean 'status'?" "$TMP/err")"
check "no sanitizer report" no_sanitizer

# The README: a way in, not a manual
lines=$(wc -l <"$ROOT/README.md")
check "README under 300 lines ($lines)" test "$lines" -lt 300
check "README: the two commands for a fresh machine, near the top" test -n \
	"$(head -12 "$ROOT/README.md" | grep -F 'scripts/install-deps.sh && make demo')" -a -n \
	"$(head -12 "$ROOT/README.md" | grep -F 'scripts/install-deps.sh && make test')"
# each row: the command, linked to its page, and the summary its doc file
# holds ([summary] in doc/zealot-NAME.txt), word for word
"$ZEALOT" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { n = $1; sub(/^  [a-z]+ +/, ""); print n "\t" $0; next } on { exit }' >summaries
check "zealot --help lists every command with its summary" test "$(wc -l <summaries)" -eq "$(wc -l <commands)"
while IFS="$(printf '\t')" read -r c summary; do
	check "README's command table: $c, linked to its page, with its summary" \
		grep -qF "| [\`$c\`](docs/cmd/$c.md) | $summary" "$ROOT/README.md"
done <summaries
for w in seeds era; do
	check "README defines '$w' where it uses it" grep -qE "\*$w\*" "$ROOT/README.md"
done
# every relative link of the README and docs/ resolves (a file or folder)
broken=
for f in "$ROOT/README.md" "$ROOT"/docs/*.md "$ROOT"/docs/cmd/*.md "$ROOT"/examples/history/README.md; do
	for l in $(grep -oE '\]\([^)#]+' "$f" | sed 's/^](//' | grep -vE '^[a-z]+:'); do
		[ -e "$(dirname "$f")/$l" ] || broken="$broken ${f#"$ROOT"/}:$l"
	done
done
check "every relative link of README.md and docs/ resolves ($broken)" test -z "$broken"
# docs/layout.md has a paragraph per folder of src/ that tests/layers.py ranks
for d in $(python3 -c "import sys; sys.path.insert(0, '$ROOT/tests'); import layers; print(' '.join(k for k in layers.RANK if k != '.'))"); do
	check "docs/layout.md: a paragraph for src/$d" grep -qF "**$d**" "$ROOT/docs/layout.md"
done

# did you mean: synth's architectures and keys
run "$ZEALOT" synth lamma -o x.gguf
check "synth lamma: exit 2, did you mean llama" test "$rc" -eq 2 -a -n "$(grep -F "unknown architecture 'lamma' (did you mean llama?)" "$TMP/err")"
run "$ZEALOT" synth qqqqqq -o x.gguf
"$ZEALOT" synth --help >synth.help
unnamed=""
for a in $(grep -o 'synth knows [^)]*' "$TMP/err" | sed 's/^synth knows //' | tr -d ','); do
	grep -qE "(^|[ (,])$a([ ,;):]|$)" synth.help || unnamed="$unnamed $a"
done
check "synth qqqqqq: exit 2, and every architecture it lists is described in synth --help ($unnamed)" \
	test "$rc" -eq 2 -a -z "$unnamed" -a "$(grep -o 'synth knows .*' "$TMP/err" | tr ',' '\n' | wc -l)" -ge 50
run "$ZEALOT" synth llama --set layrs=2 -o x.gguf
check "synth --set layrs: exit 2, did you mean layers (not 48 keys)" test "$rc" -eq 2 -a -n "$(grep -Fx "zealot: synth: --set: unknown key 'layrs' (did you mean layers?)" "$TMP/err")"
run "$ZEALOT" synth llama --set zzzzzz=2 -o x.gguf
check "synth --set zzzzzz: the keys listed, each once" test "$rc" -eq 2 -a \
	-z "$(grep -o 'known: .*' "$TMP/err" | sed 's/known: //; s/)$//' | tr -d ' ' | tr ',' '\n' | sort | uniq -d)"
run "$ZEALOT" synth --help
archs=$("$ZEALOT" synth qqqqqq -o x.gguf 2>&1 | sed 's/.*synth knows //; s/)$//' | tr -d ',')
missing=
for a in $archs; do grep -qE "(^| |\()$a( |,|$|\))" "$TMP/out" || missing="$missing $a"; done
check "synth --help names every architecture synth takes ($missing)" test -n "$archs" -a -z "$missing"

# probe takes HOST:PORT as http://HOST:PORT (a real HTTP server on loopback)
mkdir www && echo '{"status":"ok"}' >www/health
port=$(free_port)
python3 -m http.server "$port" --bind 127.0.0.1 --directory www >/dev/null 2>&1 &
srv=$!
wait_for 60 curl -fs -o /dev/null "http://127.0.0.1:$port/health"
run "$ZEALOT" probe "127.0.0.1:$port" --only health
check "probe 127.0.0.1:PORT: read as http://, /health answered 200" test "$rc" -eq 0 -a -n "$(grep -E '^pass health .*200' "$TMP/out")"
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
run "$ZEALOT" probe ftp://x
check "probe ftp://x: exit 2, not an http:// URL or HOST:PORT" test "$rc" -eq 2 -a -n "$(grep -F "not an http:// URL or HOST:PORT" "$TMP/err")"
check "no sanitizer report (synth, probe)" no_sanitizer
