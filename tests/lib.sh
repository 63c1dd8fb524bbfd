# Shared helpers for the shell tests (tests/cli, tests/live). Each check
# prints one TAP line, "ok - name" or "not ok - name" with the evidence;
# tests/run counts them. Source this file; it sets ROOT, ZEALOT and TMP.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ZEALOT=${ZEALOT:-$ROOT/build/zealot-san}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/zealot-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# every test keeps its state (the store, pin stamps) in its own directory, never ~
export ZEALOT_STATE_DIR=$TMP/state
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=86}

# run CMD...: run it, keep stdout in $TMP/out, stderr in $TMP/err, status in $rc.
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}

_diag() {
	printf '#   command status %s\n' "${rc:-?}"
	sed -n '1,15s/^/#   stdout: /p' "$TMP/out" 2>/dev/null
	sed -n '1,15s/^/#   stderr: /p' "$TMP/err" 2>/dev/null
}

# check NAME CMD...: one TAP line from CMD's status.
check() {
	local name=$1
	shift
	if "$@"; then
		echo "ok - $name"
	else
		echo "not ok - $name"
		_diag
	fi
}

rc_is() { [ "$rc" -eq "$1" ]; }
out_has() { grep -qF -- "$1" "$TMP/out"; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
no_sanitizer() { ! grep -qE 'Sanitizer|runtime error:' "$TMP/err"; }
# json_is FILTER VALUE: jq's compact rendering of FILTER on stdout equals VALUE.
json_is() { [ "$(jq -c "$1" "$TMP/out" 2>/dev/null)" = "$2" ]; }

# test_cmp NAME EXPECTED ACTUAL: one TAP line, ACTUAL's text equals
# EXPECTED's (git's test_cmp); else the unified diff, expected first, as
# the evidence. Expected files live in tests/data/expect/.
test_cmp() {
	local d
	if d=$(diff -u --label expected --label actual "$2" "$3" 2>&1); then
		echo "ok - $1"
	else
		echo "not ok - $1"
		printf '%s\n' "$d" | sed 's/^/#   /'
	fi
}
