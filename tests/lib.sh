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

# fd 3 is the suite's TAP stream, whatever a helper's stdout is redirected to
exec 3>&1

# must CMD...: a setup step the case cannot go on without (a payload
# synthesised, a file planned). Its stdout stays the caller's (redirect it
# as the plain command's); when it fails, one TAP line "not ok - setup:
# CMD" with its status and stderr goes to the suite's stream and must
# returns the status: `must "$ZEALOT" synth llama -o a.gguf || exit 1`. A
# setup that failed in silence (2>/dev/null, its status ignored) left the
# checks after it to fail with a misleading cause, or to pass on nothing.
must() {
	local e=$TMP/must.err r
	"$@" 2>"$e" && return 0
	r=$?
	{
		echo "not ok - setup: $* (status $r)"
		sed -n '1,10s/^/#   stderr: /p' "$e"
	} >&3
	return "$r"
}

# amx_host: AMX=1 when this host's engine would put quantized weights in
# the AMX buffer (zealot's plan says amx_int8 among .cpu.features: the CPU
# facts the engine's native build compiles for), else AMX=0. There the
# pinned engine crashes at warm-up (law S16), so a suite turns the extra
# buffers off for its quantized cases. Returns 1 (and says so, must) when
# the probe itself cannot be planned.
amx_host() {
	AMX=0
	must "$ZEALOT" synth llama -o "$TMP/amx-probe.gguf" || return 1
	printf 'MODEL_FILE=%s\nCTX_SIZE=256\n' "$TMP/amx-probe.gguf" >"$TMP/amx-probe.env"
	must "$ZEALOT" plan --json "$TMP/amx-probe.env" >"$TMP/amx-probe.json" || return 1
	jq -en 'input | (.cpu.features | test("amx_int8"))' "$TMP/amx-probe.json" >/dev/null && AMX=1
	return 0
}

# router_members [LINE]: a router's three members of different families
# in models/ (llama, gemma3 with a sliding window, qwen35 hybrid), each
# 4096 tokens over 2 slots with a 64 MiB prompt cache, and LINE (an
# EXTRA_ARGS=... line, say) added to each; the payloads beside models/.
# Returns 1 (said, must) when a payload cannot be written.
router_members() {
	local m a
	mkdir -p models
	for m in llama:llama gemma:gemma3 qwen:qwen35; do
		a=${m#*:} m=${m%%:*}
		must "$ZEALOT" synth "$a" --force -o "$m.gguf" || return 1
		printf 'MODEL_FILE=../%s.gguf\nCTX_SIZE=4096\nPARALLEL=2\nCACHE_RAM=64\n%s' "$m" "${1:+$1
}" >"models/$m.env"
	done
}

# rpc_pair: two rpc-servers on loopback (tests/engine.sh rpc_start), their
# ports in P1 and P2 and their addresses in R1 and R2, held by one check;
# returns 1 when either did not start.
rpc_pair() {
	P1= P2=
	rpc_start && P1=$RPC_PORT && rpc_start && P2=$RPC_PORT
	check "two rpc-servers listen on loopback" test -n "$P1" -a -n "$P2"
	R1=127.0.0.1:$P1
	R2=127.0.0.1:$P2
	[ -n "$P1" ] && [ -n "$P2" ]
}

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
# unwrapped: stdout with each wrapped report line joined back up (a line
# that cmd_wrap continued starts with blanks; its words rejoin the last)
unwrapped() { awk 'NR > 1 && /^  +[^ ]/ { sub(/^ +/, " "); printf "%s", $0; next } NR > 1 { print "" } { printf "%s", $0 } END { print "" }' "$TMP/out"; }
# out_has_unwrapped TEXT: TEXT on one report line, however it was wrapped
out_has_unwrapped() { unwrapped | grep -qF -- "$1"; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
no_sanitizer() { ! grep -qE 'Sanitizer|runtime error:' "$TMP/err"; }
# json_is FILTER VALUE: jq's compact rendering of FILTER on stdout equals VALUE.
json_is() { [ "$(jq -c "$1" "$TMP/out" 2>/dev/null)" = "$2" ]; }

# fault_wait LOG POINT [PID]: wait until a zealot run with
# ZEALOT_FAULT_LOG=LOG passes fault point POINT (src/base/fault.h) and print
# the pid it logged (its own, in its own pid namespace). Waits on the
# process's word, not on the clock: gives up only when PID (a process of
# this shell, if given) ended without passing the point, or after 300 s.
fault_wait() {
	local log=$1 point=$2 pid=${3:-} l
	# the point logged, or the process (if given) gone: whichever comes first
	wait_for 300 eval 'grep -q "^$point " "$log" 2>/dev/null || { [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; }'
	l=$(grep -m1 "^$point " "$log" 2>/dev/null) || return 1
	echo "${l##* }"
}

# free_port [ADDR]: tests/ports.sh
. "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

# wait_for SECONDS CMD...: tests/wait.sh
. "$(dirname "${BASH_SOURCE[0]}")/wait.sh"


# store_fixture OUT: build tests/store-fixture.c (a writer that uses the
# store the way deploy does) against the store and every base module, so a
# new base module the store uses needs no edit here; compiler errors go to
# OUT.err
store_fixture() {
	cc -std=c11 -D_GNU_SOURCE -I"$ROOT/src" "$ROOT/tests/store-fixture.c" "$ROOT"/src/store/store.c "$ROOT"/src/store/records.c \
		"$ROOT"/src/base/*.c -lsqlite3 -ljansson -lpthread -o "$1" 2>"$1.err"
}

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
