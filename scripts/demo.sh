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
set_rt=()
[ -n "$engine" ] || set_rt=(--set RUNTIME=/bin/true)

say zealot inspect examples/payloads/demo-llama.gguf
"$Z" inspect examples/payloads/demo-llama.gguf || exit
say zealot plan $EP
"$Z" plan $EP || exit
say zealot check $EP "${set_rt[@]}"
"$Z" check $EP "${set_rt[@]}" || exit
say zealot serve --dry-run $EP "${set_rt[@]}"
"$Z" serve --dry-run $EP "${set_rt[@]}" | tr '\n' ' ' | fold -s -w 100
echo
say zealot emit unit $EP
"$Z" emit unit $EP | sed -n '1,/^ExecStart/p'
echo "..."

[ -n "$engine" ] || exit 0
# DEMO_PORT serves on another port: a copy of the endpoint with that port
port=${DEMO_PORT:-18089}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$port" != 18089 ]; then
	sed -e "s|^LISTEN_PORT=.*|LISTEN_PORT=$port|" -e "s|^MODEL_FILE=payloads/|MODEL_FILE=$PWD/examples/payloads/|" \
		$EP >"$tmp/demo.env"
	EP=$tmp/demo.env
fi
if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
	echo "demo: port $port is taken; not serving (DEMO_PORT=N serves on another)"
	exit 0
fi
say "zealot serve $EP &   (the gates, then the engine execs in its place)"
"$Z" serve "$EP" >"$tmp/serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 240); do
	curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || { echo "demo: the engine ended:"; tail -5 "$tmp/serve.log"; exit 3; }
	sleep 0.5
done
only=props,health,models,slots,metrics,overlong # the chat probes generate 2,048 tokens: slow on a CPU
say zealot probe 127.0.0.1:$port --endpoint "$EP" --only $only
"$Z" probe "127.0.0.1:$port" --endpoint "$EP" --only "$only"
rc=$?
echo "demo: stopping the engine (pid $pid)"
exit $rc
