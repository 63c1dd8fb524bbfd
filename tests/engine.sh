# Helpers for live tests that boot the real engine. Source after lib.sh.
# ZEALOT_ENGINE is the engine's bin directory (tests/run sets it from
# scripts/build-engine.sh).

ENGINE=${ZEALOT_ENGINE:?ZEALOT_ENGINE is not set: run through tests/run or set it to the engine bin dir}
SERVER=$ENGINE/llama-server

# A loopback port nothing listens on.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 20000))
		(echo >/dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo "$p"; return 0; }
	done
	return 1
}

# engine_start NAME ARGS...: boot llama-server on a free port in the
# background; sets ENGINE_PID, ENGINE_PORT, ENGINE_LOG. Waits up to 120 s
# for /health to answer 200 or for the process to die. Returns 0 when healthy.
engine_start() {
	local name=$1
	shift
	ENGINE_PORT=$(free_port)
	ENGINE_LOG=$TMP/$name.log
	"$SERVER" --host 127.0.0.1 --port "$ENGINE_PORT" "$@" >"$ENGINE_LOG" 2>&1 &
	ENGINE_PID=$!
	for _ in $(seq 240); do
		if ! kill -0 "$ENGINE_PID" 2>/dev/null; then
			wait "$ENGINE_PID" 2>/dev/null
			ENGINE_STATUS=$?
			ENGINE_PID=
			return 1
		fi
		if [ "$(curl -s -o /dev/null -w '%{http_code}' -m 2 "http://127.0.0.1:$ENGINE_PORT/health")" = 200 ]; then
			return 0
		fi
		sleep 0.5
	done
	return 1
}

# boot_for_ledger NAME "KEY=VALUE ...": write NAME.env serving NAME.gguf on
# the cpu profile (no slack) with those keys, boot the engine through
# `zealot argv` until the model is loaded or the engine gives up, stop it
# by PID, and leave its boot log in NAME.log.
boot_for_ledger() {
	local name=$1 keys=$2 s pid
	{
		echo "RUNTIME=$SERVER"
		echo "MODEL_FILE=$name.gguf"
		echo "LISTEN_PORT=$(free_port)"
		echo "DEVICE=cpu"
		echo "ADDRESSABLE_MIB=20000"
		echo "SLACK_MIB=0"
		for s in $keys; do echo "$s"; done
	} >"$name.env"
	local cmd
	mapfile -t cmd < <("$ZEALOT" argv "$name.env")
	"${cmd[@]}" >"$name.log" 2>&1 &
	pid=$!
	for _ in $(seq 600); do
		grep -qE 'model loaded|exiting due|failed to' "$name.log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null
	# an engine blocked on an RPC server may not heed SIGTERM
	for _ in $(seq 40); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.25
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# rpc_start: a ggml-rpc-server (the engine's RPC device) on a free loopback
# port, one thread, no tensor cache, its own working directory; sets
# RPC_PORT. Call it directly (not in $(...)) so rpc_stop knows its PID.
RPC_SERVER=$ENGINE/ggml-rpc-server
RPC_PIDS=()
rpc_start() {
	local port dir
	RPC_PORT=
	port=$(free_port) || return 1
	dir=$TMP/rpc-$port
	mkdir -p "$dir"
	(cd "$dir" && exec "$RPC_SERVER" -H 127.0.0.1 -p "$port" -t 1 >"$dir/log" 2>&1) &
	RPC_PIDS+=($!)
	for _ in $(seq 100); do
		(echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null && { RPC_PORT=$port; return 0; }
		sleep 0.1
	done
	return 1
}

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
	kill "$ENGINE_PID" 2>/dev/null
	for _ in $(seq 40); do
		kill -0 "$ENGINE_PID" 2>/dev/null || break
		sleep 0.25
	done
	kill -9 "$ENGINE_PID" 2>/dev/null
	wait "$ENGINE_PID" 2>/dev/null
	ENGINE_PID=
}
trap 'engine_stop; rpc_stop; rm -rf "$TMP"' EXIT

# engine_post PATH JSON: POST to the engine; body in $TMP/out, code in $http.
engine_post() {
	http=$(curl -s -m 120 -o "$TMP/out" -w '%{http_code}' -H 'Content-Type: application/json' \
		-d "$2" "http://127.0.0.1:$ENGINE_PORT$1")
}

log_has() { grep -qF -- "$1" "$ENGINE_LOG"; }
