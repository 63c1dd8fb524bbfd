# The benches' helpers stand alone: bench/fetch.sh sources tests/nginx.sh
# without tests/lib.sh (make bench runs it), so nginx.sh brings every helper
# it calls (wait_for, free_port) itself. Run as bench/fetch.sh does: a bare
# bash with ROOT and TMP, no TAP helpers.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
if ! command -v nginx >/dev/null; then
	echo "ok - # SKIP nginx not installed"
	exit 0
fi
mkdir -p www alone
echo hello >www/f.txt
env -i PATH="$PATH" HOME="$HOME" ROOT="$ROOT" TMP="$TMP/alone" bash -c '
	. "$ROOT/tests/nginx.sh"
	trap nginx_stop EXIT
	nginx_start "$1/www" || exit 3
	curl -fsS "http://127.0.0.1:$NGINX_PORT/f.txt"' _ "$TMP" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "tests/nginx.sh sourced alone (as bench/fetch.sh does): nginx serves a file" \
	test "$rc" -eq 0 -a "$(cat "$TMP/out")" = hello
check "tests/nginx.sh alone: no helper missing" test -z "$(grep -F 'command not found' "$TMP/err")"
