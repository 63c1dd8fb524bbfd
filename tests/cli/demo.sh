# make demo, the README's first command, on a machine without the engine:
# no ZEALOT_ENGINE, an empty engine cache, no llama-server on PATH. It
# walks inspect, plan, check, serve --dry-run and emit unit, each step
# green, and says how to get an engine; a step that fails ends make demo
# with a non-zero status that names the step (tests/live/demo.sh runs it
# with the engine).
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
[ -e "$ROOT/examples/payloads/demo-llama.gguf" ] || make -C "$ROOT" -s examples >/dev/null 2>&1
# PATH without any directory that holds a llama-server
nopath=$(printf '%s\n' "${PATH//:/$'\n'}" | while read -r d; do [ -e "$d/llama-server" ] || printf '%s:' "$d"; done)
nopath=${nopath%:}
noengine() { env -u ZEALOT_ENGINE ZEALOT_CACHE="$TMP/no-cache" PATH="$nopath" "$@"; }
check "the PATH holds no llama-server" test -z "$(PATH="$nopath" command -v llama-server)"

run noengine make -s -C "$ROOT" demo
check "make demo without the engine: exit 0" rc_is 0
check "make demo without the engine: says there is none and how to get one" out_has "demo: no engine here"
check "make demo: check, 0 errors, 0 warnings" grep -qx '0 errors, 0 warnings' "$TMP/out"
check "make demo: serve --dry-run takes --set (no 'unknown option')" \
	test -z "$(grep -F 'unknown option' "$TMP/err")" -a -n "$(grep -F 'gates passed' "$TMP/err")"
check "make demo: serve --dry-run printed the command line" grep -qE '^/bin/true --model ' "$TMP/out"
check "make demo: emit unit's ExecStart" grep -qE '^ExecStart=' "$TMP/out"
check "make demo: no step failed" test -z "$(grep -F 'FAILED' "$TMP/err")"

# a step that fails ends make demo, loudly: a zealot whose serve fails
cat >bad-zealot <<X
#!/bin/sh
[ "\$1" = serve ] && { echo "serve broke" >&2; exit 7; }
exec "$ROOT/zealot" "\$@"
X
chmod +x bad-zealot
run noengine env ZEALOT="$TMP/bad-zealot" make -s -C "$ROOT" demo
check "make demo with a failing serve step: non-zero exit ($rc)" test "$rc" -ne 0
check "make demo: the failed step named" err_has "demo: FAILED: 'zealot serve --dry-run"
check "make demo: nothing after the failed step (emit unit not run)" test -z "$(grep -E '^ExecStart=' "$TMP/out")"

# serve --dry-run --set: a what-if; without --dry-run the gates judge the
# set values too (llama-swap's cmd gives a router member its port so)
run "$ZEALOT" serve --dry-run "$ROOT/examples/demo.env" --set RUNTIME=/bin/true --set PARALLEL=4 --set CTX_SIZE=8192
check "serve --dry-run --set: exit 0, the set value in the command line" \
	test "$rc" -eq 0 -a -n "$(grep -Fx -- '--parallel' "$TMP/out")" -a "$(grep -A1 -Fx -- '--parallel' "$TMP/out" | tail -1)" = 4
run "$ZEALOT" serve "$ROOT/examples/demo.env" --set RUNTIME=/nonexistent/llama-server --set PARALLEL=4
check "serve --set without --dry-run: the gates judge the set RUNTIME (refused, 78)" rc_is 78
run "$ZEALOT" serve --dry-run "$ROOT/examples/demo.env" --set NO_SUCH_KEY=1
check "serve --dry-run --set an unknown key: exit 2" rc_is 2
check "no sanitizer report" no_sanitizer
