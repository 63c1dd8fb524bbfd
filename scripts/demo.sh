#!/usr/bin/env bash
# make demo: the runnable example endpoint (examples/demo.env) through the
# five-minute walk: inspect, plan, check, serve --dry-run, emit unit; then,
# when the engine the tests build is there, serve it for real, probe it and
# stop it. It never builds the engine (scripts/build-engine.sh does, once).
set -u
cd "$(dirname "$0")/.." || exit 3
Z=${ZEALOT:-./zealot}
EP=examples/demo.env
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

# The engine: ZEALOT_ENGINE, else the cache scripts/build-engine.sh fills.
engine=${ZEALOT_ENGINE:-}
if [ -z "$engine" ]; then
	v=$(sed -n 's/^version=//p' scripts/build-engine.sh)
	c=${ZEALOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zealot}/engine-node-llama-cpp-$v
	[ -f "$c/.built" ] && engine=$c/build/bin
fi
if [ -n "$engine" ] && [ -x "$engine/llama-server" ]; then
	export PATH="$engine:$PATH"
	echo "demo: the engine is $engine/llama-server (RUNTIME=llama-server finds it on PATH)"
else
	engine=
	echo "demo: no engine here. scripts/build-engine.sh builds the one the tests use (CPU, once,"
	echo "      into ~/.cache/zealot), or ZEALOT_ENGINE=DIR names a llama.cpp build's bin directory;"
	echo "      until then RUNTIME is stood in for by /bin/true and nothing is served."
fi
# step [-o FILE] WHAT CMD...: print the command, run it (its stdout into
# FILE); a step that fails ends the demo with its status, named (nothing is
# piped: no status is lost).
step() {
	local to= what rc
	[ "$1" = -o ] && { to=$2; shift 2; }
	what=$1
	shift
	say "$what"
	if [ -n "$to" ]; then "$@" >"$to"; else "$@"; fi
	rc=$?
	[ "$rc" -eq 0 ] && return 0
	echo "demo: FAILED: '$what' exited $rc" >&2
	exit "$rc"
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ -n "$engine" ]; then
	# the example as this machine serves it: RUNTIME is this engine
	mkdir -p build
	sed -e "s|^RUNTIME=.*|RUNTIME=$engine/llama-server|" \
		-e "s|^MODEL_FILE=payloads/|MODEL_FILE=$PWD/examples/payloads/|" $EP >build/demo.env
	CK=build/demo.env
	set_rt=()
else
	CK=$EP
	set_rt=(--set RUNTIME=/bin/true)
fi

step "zealot inspect examples/payloads/demo-llama.gguf" "$Z" inspect examples/payloads/demo-llama.gguf
step "zealot plan $EP" "$Z" plan $EP
step "zealot check $CK ${set_rt[*]}" "$Z" check $CK "${set_rt[@]}"
step -o "$out/argv" "zealot serve --dry-run $CK ${set_rt[*]}" "$Z" serve --dry-run $CK "${set_rt[@]}"
tr '\n' ' ' <"$out/argv" | fold -s -w 100
echo
step -o "$out/unit" "zealot emit unit $EP" "$Z" emit unit $EP
sed -n '1,/^ExecStart/p' "$out/unit"
echo "..."
if [ -n "$engine" ]; then
	echo
	echo "demo: build/demo.env is examples/demo.env with RUNTIME set to this engine; it checks clean:"
	echo "      zealot check build/demo.env"
else
	echo
	echo "demo: examples/demo.env checks clean once RUNTIME (llama-server, looked up in PATH) is"
	echo "      installed; here --set RUNTIME=/bin/true stood in for it."
	exit 0
fi

# DEMO_PORT serves on another port: a copy of the endpoint with that port
port=${DEMO_PORT:-18089}
tmp=$out
EP=build/demo.env
if [ "$port" != 18089 ]; then
	sed -e "s|^LISTEN_PORT=.*|LISTEN_PORT=$port|" build/demo.env >"$tmp/demo.env"
	EP=$tmp/demo.env
fi
if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
	echo "demo: FAILED: port $port is taken; not serving (DEMO_PORT=N serves on another)" >&2
	exit 3
fi
say "zealot serve $EP &   (the gates, then the engine execs in its place)"
"$Z" serve "$EP" >"$tmp/serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
up=
for _ in $(seq 240); do
	curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && { up=1; break; }
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.5
done
if [ -z "$up" ]; then
	echo "demo: FAILED: the engine did not answer /health on port $port; its last lines:" >&2
	tail -5 "$tmp/serve.log" >&2
	exit 3
fi
only=props,health,models,slots,metrics,overlong # the chat probes generate 2,048 tokens: slow on a CPU
say zealot probe 127.0.0.1:$port --endpoint "$EP" --only $only
"$Z" probe "127.0.0.1:$port" --endpoint "$EP" --only "$only"
rc=$?
echo "demo: stopping the engine (pid $pid)"
[ "$rc" -eq 0 ] || echo "demo: FAILED: zealot probe exited $rc" >&2
exit $rc
