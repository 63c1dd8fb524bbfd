# Try a model before writing a file: plan, rungs, solve and check take a
# GGUF payload's path (known by its magic, whatever its name) or a URL in
# place of the endpoint file, as MODEL_FILE (MODEL_URL) with CTX_SIZE 4096
# unless --set gives it; --set and --device apply as to a file.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/nginx.sh"
cd "$TMP" || exit 1
must "$ZEALOT" synth llama -o l.gguf || exit 1
cp l.gguf "model with space.bin"
printf '#!/bin/sh\nexec true\n' >rt.sh && chmod +x rt.sh

run "$ZEALOT" plan l.gguf
check "plan MODEL.gguf: exit 0, a plan that fits" test "$rc" -eq 0 -a -n "$(grep -E '^verdict: fits' "$TMP/out")"
check "plan MODEL.gguf: not read as an endpoint file (no NUL-byte or size refusal)" \
	test -z "$(grep -E 'NUL byte|larger than' "$TMP/err")"
check "plan MODEL.gguf: says how it was taken (MODEL_FILE, CTX_SIZE 4096)" \
	err_has "l.gguf is a payload, not an endpoint file: as MODEL_FILE=l.gguf, CTX_SIZE=4096 (--set CTX_SIZE=N for another)"
run "$ZEALOT" plan --json l.gguf --set CTX_SIZE=8192 --set PARALLEL=2 --device rtx3090
check "plan MODEL.gguf --set CTX_SIZE --set PARALLEL --device: the shape and the card" \
	eval 'rc_is 0 && json_is "[.n_ctx,.n_seq,.device]" "[8192,2,\"rtx3090\"]"'
run "$ZEALOT" plan "model with space.bin" --set CTX_SIZE=2048
check "a payload by its magic, whatever its name" test "$rc" -eq 0 -a -n "$(grep -F 'context: n_ctx 2,048' "$TMP/out")"
run "$ZEALOT" rungs l.gguf --set PARALLEL=2
check "rungs MODEL.gguf: exit 0, the rungs" test "$rc" -eq 0 -a -n "$(grep -E '^rungs l.gguf on cpu: 2 x 2,048' "$TMP/out")"
run "$ZEALOT" solve l.gguf --device cpu
check "solve MODEL.gguf: exit 0, a best shape" test "$rc" -eq 0 -a -n "$(grep -E '^best: ' "$TMP/out")"
run "$ZEALOT" check l.gguf --set RUNTIME="$TMP/rt.sh"
check "check MODEL.gguf: exit 0, no error" test "$rc" -eq 0 -a -n "$(grep -E '^0 errors' "$TMP/out")"
run "$ZEALOT" check l.gguf --set CTX_SIZE=4097 --set PARALLEL=2 --set RUNTIME="$TMP/rt.sh"
check "check MODEL.gguf --set: the set shape judged (M03)" test "$rc" -eq 1 -a -n "$(grep -E 'M03' "$TMP/out")"
run "$ZEALOT" plan l.gguf --set NO_SUCH=1
check "plan MODEL.gguf --set an unknown key: exit 2" rc_is 2
printf 'GGUF\3\0\0\0' >trunc.gguf
run "$ZEALOT" plan trunc.gguf
check "a truncated payload: refused as a payload (exit 3), not as an endpoint file" \
	test "$rc" -eq 3 -a -z "$(grep -F 'NUL byte' "$TMP/err")"

if command -v nginx >/dev/null; then
	mkdir www && cp l.gguf www/
	nginx_start "$TMP/www"
	run "$ZEALOT" plan --json "http://127.0.0.1:$NGINX_PORT/l.gguf" --set PARALLEL=2
	check "plan URL: exit 0, the header read by range requests" \
		eval 'rc_is 0 && json_is "[.n_seq, (.remote.requests > 0)]" "[2,true]"'
	check "plan URL: said as MODEL_URL" err_has "is a payload, not an endpoint file: as MODEL_URL=http://127.0.0.1:$NGINX_PORT/l.gguf"
	nginx_stop
fi
check "no sanitizer report" no_sanitizer
