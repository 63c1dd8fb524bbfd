# Helpers for live tests that boot the real engine. Source after lib.sh.
# ZEALOT_ENGINE is the engine's bin directory (tests/run sets it from
# scripts/build-engine.sh).

ENGINE=${ZEALOT_ENGINE:?ZEALOT_ENGINE is not set: run through tests/run or set it to the engine bin dir}
SERVER=$ENGINE/llama-server

# amx_fault_expected LOG: the boot in LOG is one the pinned engine does not
# survive (issue 8, law S16). Its system_info line says AMX_INT8 = 1, it
# printed an `AMX model buffer size` line, and the payload holds a type the
# AMX buffer runs with tile kernels (amx/common.h: q4_0 q4_1 q8_0 q4_K q5_K
# q6_K iq4_xs; f16 also lands in the AMX buffer but runs AVX-512 code and
# answers). Such an engine dies with SIGILL at warm-up. These are facts of
# the boot itself, so a test adapts to the host it runs on from them; the
# fixtures in tests/data/amx-boots/ are boots of an AMX host
# (tests/cli/engine-answer.sh holds this predicate and the checks below to
# them). With REPACK=0 the engine makes no AMX buffer and answers.
amx_fault_expected() {
	grep -qE 'system_info:.*\| AMX_INT8 = 1 \|' "$1" &&
		grep -qE ' AMX model buffer size' "$1" &&
		grep -qE 'llama_model_loader: - type +(q4_0|q4_1|q8_0|q4_K|q5_K|q6_K|iq4_xs): ' "$1"
}

# engine_ask PID PORT: wait (up to 120 s) until the engine on PORT answers
# /health 200 or PID ends, then ask it for one completion (4 tokens). Sets
# ASK_HEALTH (the last /health code), ASK_HTTP (the completion's code),
# ASK_TOKENS (tokens predicted) and ASK_EXIT (PID's exit status once it has
# ended, 128+N for signal N; empty while it runs). Returns 0 when it answered.
engine_ask() {
	local pid=$1 port=$2
	ASK_HTTP=none ASK_TOKENS=0 ASK_EXIT=
	if engine_up "$pid" "$port"; then
		ASK_HTTP=$(curl -s -m 120 -o "$TMP/ask.json" -w '%{http_code}' -H 'Content-Type: application/json' \
			-d '{"prompt":"The sky is","n_predict":4,"ignore_eos":true}' "http://127.0.0.1:$port/completion")
		ASK_TOKENS=$(jq '.tokens_predicted // 0' "$TMP/ask.json" 2>/dev/null || echo 0)
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid" 2>/dev/null
		ASK_EXIT=$?
	fi
	[ -z "$ASK_EXIT" ] && [ "$ASK_HTTP" = 200 ] && [ "${ASK_TOKENS:-0}" -gt 0 ]
}

# engine_up PID PORT: wait (up to 120 s) until the engine on PORT answers
# /health 200 (true) or PID ends (false).
engine_up() {
	ASK_HEALTH=000
	wait_for 120 _up_or_gone "$1" "$2"
	[ "$ASK_HEALTH" = 200 ]
}

# _up_or_gone PID PORT: the wait of engine_ask is over (PID ended, or
# /health answered 200; the code in ASK_HEALTH).
_up_or_gone() {
	kill -0 "$1" 2>/dev/null || return 0
	ASK_HEALTH=$(curl -s -o /dev/null -w '%{http_code}' -m 2 "http://127.0.0.1:$2/health")
	[ "$ASK_HEALTH" = 200 ]
}

# _gone PID: PID has ended (bash reaps its background jobs as they end).
_gone() { ! kill -0 "$1" 2>/dev/null; }

# stop_pid PID: SIGTERM, up to 30 s to end (an engine blocked on an RPC
# server may not heed it), then SIGKILL; reaps it.
stop_pid() {
	kill "$1" 2>/dev/null
	wait_for 30 _gone "$1"
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# check_answered NAME LOG: one TAP line from the last engine_ask. The engine
# answered /health 200 and a completion; or, where LOG shows the AMX fault
# (amx_fault_expected), it died by a signal rather than answer (law S16).
check_answered() {
	local name=$1 log=$2 what good=0
	if amx_fault_expected "$log"; then
		what="AMX_INT8 build, weights in the AMX buffer, REPACK on: the engine dies by a signal rather than answer (law S16)"
		[ "${ASK_EXIT:-0}" -gt 128 ] && [ "$ASK_HTTP" != 200 ] && good=1
	else
		what="the engine answers: /health 200 and a completion"
		[ -z "$ASK_EXIT" ] && [ "$ASK_HTTP" = 200 ] && [ "${ASK_TOKENS:-0}" -gt 0 ] && good=1
	fi
	if [ "$good" = 1 ]; then
		echo "ok - $name: $what"
	else
		echo "not ok - $name: $what"
		echo "#   /health ${ASK_HEALTH:-?}, completion HTTP ${ASK_HTTP:-?} (${ASK_TOKENS:-0} tokens), exit status ${ASK_EXIT:-none (running)}"
		{ grep -E '^\S+ [WE] ' "$log" | tail -4; tail -2 "$log"; } | awk '!seen[$0]++' | sed 's/^/#   engine: /'
	fi
}

# engine_start NAME ARGS...: boot llama-server on a free port in the
# background and ask it one question (engine_ask); sets ENGINE_PID,
# ENGINE_PORT, ENGINE_LOG and ASK_*. Returns 0 when it answered; when the
# engine died, ENGINE_STATUS is its exit status and ENGINE_PID is empty.
engine_start() {
	local name=$1 try
	shift
	ENGINE_LOG=$TMP/$name.log
	for try in 1 2 3; do
		ENGINE_PORT=$(free_port)
		ENGINE_STATUS=
		"$SERVER" --host 127.0.0.1 --port "$ENGINE_PORT" "$@" >"$ENGINE_LOG" 2>&1 &
		ENGINE_PID=$!
		engine_ask "$ENGINE_PID" "$ENGINE_PORT" && return 0
		# another process took the port between the pick and the bind: pick again
		grep -q "couldn't bind HTTP server socket" "$ENGINE_LOG" || break
	done
	if [ -n "$ASK_EXIT" ]; then
		ENGINE_STATUS=$ASK_EXIT
		ENGINE_PID=
	fi
	return 1
}

# boot_for_ledger NAME "KEY=VALUE ...": write NAME.env serving NAME.gguf on
# the cpu profile (no slack) with those keys, boot the engine through
# `zealot argv`, ask it one question (engine_ask: /health and a completion,
# or its death), stop it by PID, and leave its boot log in NAME.log. A test
# then reads the ledger and calls check_answered NAME NAME.log.
#
# BOOT_DEVICE names another profile (tests/live/vulkan.sh: lavapipe).
#
# The engine runs one thread (EXTRA_ARGS=--threads 1, unless the keys set
# EXTRA_ARGS): ggml's thread pool spins while it waits, and two suites'
# engines spinning two threads each on a two-core host took three times as
# long (arch-oss beside arch-more: 49 s, 15 s with one thread). No buffer
# of the ledger depends on the thread count.
boot_for_ledger() {
	local name=$1 keys=$2
	_boot_once "$name" "$keys"
	# The pinned engine dies by a signal on an AMX host once weights sit in
	# its AMX buffer (law S16; tests/live/amx-law.sh holds that fault). The
	# case then holds the plan to a boot without the extra buffers
	# (REPACK=0, which the plan mirrors), so the exact terms are proven on
	# any host; on a host without AMX nothing changes.
	# The assert's own line is the sure sign: the dying thread writes it,
	# while the buffer lines go through the log thread, which an engine
	# that dies at once can take with it.
	if [ "${ASK_EXIT:-0}" -gt 128 ] &&
		grep -qE ' AMX model buffer size|GGML_ASSERT\(\*cur_backend_id != -1\) failed' "$name.log" &&
		! printf '%s\n' $keys | grep -q '^REPACK='; then
		echo "# $name: the engine died by signal $((ASK_EXIT - 128)) with weights in its AMX buffer (law S16): booted again with REPACK=0"
		cp "$name.log" "$name.amx.log"
		_boot_once "$name" "$keys REPACK=0"
	fi
}

# log_holds LOG PATTERN STATUS_VAR REBOOT...: LOG holds PATTERN (grep -E),
# the engine's own words. The engine logs through a thread (common_log),
# and one that dies can take its last lines with it: twice in loaded runs a
# refusal's line was missing from a log, never in 150 idle boots. So when
# the line is missing and the engine died (the variable STATUS_VAR names
# holds its exit status), boot again with REBOOT, at most twice, saying so
# with the status and the tail. An engine that lived lost no line: no
# second boot, a failure at once.
log_holds() {
	local log=$1 pattern=$2 status_var=$3 try
	shift 3
	for try in 1 2 3; do
		grep -qE -- "$pattern" "$log" && return 0
		echo "# ${log##*/}: boot $try (exit status ${!status_var:-none: it lived}) logged no '$pattern'; its last lines:"
		tail -3 "$log" | sed 's/^/#   /'
		[ -n "${!status_var}" ] || return 1
		[ "$try" = 3 ] || "$@"
	done
	return 1
}

# logged_after_boot NAME "KEYS" PATTERN: log_holds on NAME.log, booting
# again through boot_for_ledger.
logged_after_boot() {
	log_holds "$1.log" "$3" ASK_EXIT boot_for_ledger "$1" "$2"
}

_boot_once() {
	local name=$1 keys=$2 s pid port cmd try
	# another process can take the port between the pick and the bind (a
	# suite beside this one): pick again, as engine_start does
	for try in 1 2 3; do
		port=$(free_port)
		{
			echo "RUNTIME=$SERVER"
			echo "MODEL_FILE=$name.gguf"
			echo "LISTEN_PORT=$port"
			echo "DEVICE=${BOOT_DEVICE:-cpu}"
			echo "ADDRESSABLE_MIB=20000"
			echo "SLACK_MIB=0"
			case " $keys" in *" EXTRA_ARGS="*) ;; *) echo "EXTRA_ARGS=--threads 1" ;; esac
			for s in $keys; do echo "$s"; done
		} >"$name.env"
		mapfile -t cmd < <("$ZEALOT" argv "$name.env")
		"${cmd[@]}" >"$name.log" 2>&1 &
		pid=$!
		engine_ask "$pid" "$port"
		stop_pid "$pid"
		grep -q "couldn't bind HTTP server socket" "$name.log" || return 0
		echo "# $name: port $port was taken before the engine bound it: another"
	done
}

# rpc_start: a ggml-rpc-server (the engine's RPC device) on a free loopback
# port, one thread, no tensor cache, its own working directory; sets
# RPC_PORT. Call it directly (not in $(...)) so rpc_stop knows its PID.
RPC_SERVER=$ENGINE/ggml-rpc-server
RPC_PIDS=()
rpc_start() {
	local port dir try pid
	RPC_PORT=
	# a server that lost its port (it ends) is started again on another
	for try in 1 2 3; do
		port=$(free_port) || return 1
		dir=$TMP/rpc-$port
		mkdir -p "$dir"
		(cd "$dir" && exec "$RPC_SERVER" -H 127.0.0.1 -p "$port" -t 1 >"$dir/log" 2>&1) &
		pid=$!
		RPC_PIDS+=("$pid")
		wait_for 30 eval '_listens "$port" || _gone "$pid"'
		_gone "$pid" && continue
		_listens "$port" || return 1
		RPC_PORT=$port
		return 0
	done
	return 1
}

# _listens PORT: something accepts on the loopback PORT.
_listens() { (echo >/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }

# Stop the rpc-servers we started, by PID.
rpc_stop() {
	local p
	for p in "${RPC_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${RPC_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	RPC_PIDS=()
}

# Stop the engine we started, by PID (law A02: never by name).
engine_stop() {
	[ -n "${ENGINE_PID:-}" ] || return 0
	stop_pid "$ENGINE_PID"
	ENGINE_PID=
}
trap 'engine_stop; rpc_stop; rm -rf "$TMP"' EXIT

# engine_post PATH JSON: POST to the engine; body in $TMP/out, code in $http.
engine_post() {
	http=$(curl -s -m 120 -o "$TMP/out" -w '%{http_code}' -H 'Content-Type: application/json' \
		-d "$2" "http://127.0.0.1:$ENGINE_PORT$1")
}

log_has() { grep -qF -- "$1" "$ENGINE_LOG"; }
