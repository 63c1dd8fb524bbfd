# make demo's walk with the real engine: scripts/demo.sh finds the engine
# (ZEALOT_ENGINE), runs inspect, plan, check, serve --dry-run and emit unit
# on examples/demo.env, then serves it for real (zealot serve execs the
# engine), probes it and stops it.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/engine.sh"
[ -e "$ROOT/examples/payloads/demo-llama.gguf" ] || make -C "$ROOT" -s examples >/dev/null 2>&1
port=$(free_port)
run env DEMO_PORT="$port" ZEALOT="$ZEALOT" make -s -C "$ROOT" demo
check "make demo: exit 0" rc_is 0
check "demo: the engine found" out_has "demo: the engine is $ENGINE/llama-server"
check "demo: plan fits" grep -qE '^verdict: fits' "$TMP/out"
check "demo: check, 0 errors" grep -qE '^0 errors' "$TMP/out"
check "demo: serve --dry-run passed the gates" err_has "gates passed"
check "demo: emit unit wrote ExecStart" grep -qE '^ExecStart=' "$TMP/out"
for p in props health models slots metrics overlong; do
	check "demo: probe $p passes on the served engine" grep -qE "^pass $p " "$TMP/out"
done
check "demo: the engine stopped (nothing listens on $port)" bash -c "! (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null"
check "demo: no step failed" test -z "$(grep -F FAILED "$TMP/err")"
# what the demo leaves: the example with RUNTIME this engine, clean
check "demo: leaves build/demo.env, RUNTIME the engine" grep -qx "RUNTIME=$ENGINE/llama-server" "$ROOT/build/demo.env"
run "$ZEALOT" check "$ROOT/build/demo.env"
check "build/demo.env checks clean: 0 errors, 0 warnings" test "$rc" -eq 0 -a -n "$(grep -Fx '0 errors, 0 warnings' "$TMP/out")"
check "no sanitizer report" no_sanitizer
