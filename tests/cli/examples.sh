# The examples pass their own tools: examples/demo.env is green on plan,
# check and serve --dry-run with its RUNTIME found on PATH (the engine the
# tests build when it is there, else a stand-in that answers --version);
# the seeds' endpoints in examples/history/ state their stand-in gap; every
# examples/ path the tests, benches, Makefile and docs name exists; and the
# widest line of plan, check and rungs on each example is measured.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
[ -e "$ROOT/examples/payloads/demo-llama.gguf" ] || make -C "$ROOT" -s examples >/dev/null 2>&1
EP=$ROOT/examples/demo.env

mkdir bin
if [ -n "${ZEALOT_ENGINE:-}" ] && [ -x "$ZEALOT_ENGINE/llama-server" ]; then
	ln -s "$ZEALOT_ENGINE/llama-server" bin/llama-server
	echo "# RUNTIME: the engine in $ZEALOT_ENGINE"
else
	printf '#!/bin/sh\necho "version: 1 (stand-in)"\n' >bin/llama-server
	chmod +x bin/llama-server
	echo "# RUNTIME: a stand-in llama-server on PATH (ZEALOT_ENGINE unset)"
fi
export PATH="$TMP/bin:$PATH"

run "$ZEALOT" plan "$EP"
check "demo.env: plan fits (exit 0)" test "$rc" -eq 0 -a -n "$(grep -E '^verdict: fits' "$TMP/out")"
run "$ZEALOT" check "$EP"
check "demo.env: check, 0 errors, 0 warnings (exit 0)" test "$rc" -eq 0 -a -n "$(grep -Fx '0 errors, 0 warnings' "$TMP/out")"
run "$ZEALOT" serve --dry-run "$EP"
check "demo.env: serve --dry-run passes the gates (exit 0)" test "$rc" -eq 0 -a -n "$(grep -F 'gates passed' "$TMP/err")"
check "demo.env: RUNTIME is a bare name (no path of one machine)" grep -qx 'RUNTIME=llama-server' "$EP"
check "demo.env: no sanitizer report" no_sanitizer
PATH=/usr/bin:/bin run "$ZEALOT" check "$EP"
check "demo.env without an engine on PATH: C03 names the runtime (the test can fail)" \
	test "$rc" -eq 1 -a -n "$(grep -F C03 "$TMP/out")"

for f in "$ROOT"/examples/history/*.env; do
	check "history/$(basename "$f"): its header states the stand-in gap" \
		test -n "$(sed -n '1,/^[A-Z]/p' "$f" | grep -F 'stand-in gap')"
	run "$ZEALOT" check "$f" --set RUNTIME=/bin/true
	check "history/$(basename "$f"): no error with a runtime stood in" rc_is 0
done

# every examples/ path named in tests, benches, the Makefile, scripts and docs exists
missing=
for p in $(cd "$ROOT" && grep -rhoE 'examples/[A-Za-z0-9_./-]*[A-Za-z0-9_]' tests/cli tests/live bench Makefile scripts README.md docs |
	grep -vE '^examples/(payloads/?$|\$)' | sort -u); do
	[ -e "$ROOT/$p" ] || missing="$missing $p"
done
check "every examples/ path the repo names exists ($missing)" test -z "$missing"

# the widest line at default (figures for the report; 100 is the aim)
for e in "$EP" "$ROOT"/examples/history/*.env; do
	for c in plan check rungs; do
		w=$("$ZEALOT" "$c" "$e" --set RUNTIME=/bin/true 2>&1 | awk '{ n = length($0); if (n > m) m = n } END { print m + 0 }')
		echo "# widest line: $c $(basename "$e"): $w columns"
	done
done
