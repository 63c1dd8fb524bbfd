#!/usr/bin/env bash
# Build the real llama.cpp engine (CPU) that zealot's live tests run against.
#
# The source is the git bundle inside the npm package node-llama-cpp (pinned),
# so the only registry touched is npm. The build lands in a cache directory
# outside the repository and is reused across runs: a second call with a
# complete cache does nothing and prints the binary's path.
#
#   scripts/build-engine.sh            build (or reuse) and print the bin dir
#   ZEALOT_CACHE=/some/dir scripts/build-engine.sh
set -euo pipefail

version=3.21.1
cache=${ZEALOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zealot}
root=$cache/engine-node-llama-cpp-$version
bin=$root/build/bin
stamp=$root/.built
# GGML_NATIVE builds for this CPU: the stamp holds its flags, and a cache
# built on another CPU (AMX or AVX-512 where this one has none) is built
# again rather than dying of SIGILL at every boot. (A stamp from before it
# held them is empty and is taken as it is.)
cpu=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | tr ' ' '\n' | grep -E '^(avx|amx|f16c|fma|sse|bmi)' | sort | tr '\n' ' ')
say() { printf 'build-engine: %s\n' "$*" >&2; }

if [ -f "$stamp" ] && [ -x "$bin/llama-server" ] && [ -x "$bin/llama-fit-params" ] && [ -x "$bin/ggml-rpc-server" ]; then
	if [ ! -s "$stamp" ] || [ "$(cat "$stamp")" = "$cpu" ]; then
		echo "$bin"
		exit 0
	fi
	say "the cached engine was built for another CPU ($stamp): building it again"
	rm -rf "$root/build" "$stamp"
fi

mkdir -p "$root"
log=$root/build.log
: >"$log"

if [ ! -d "$root/src/.git" ]; then
	say "fetching node-llama-cpp@$version from npm"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && npm pack --silent "node-llama-cpp@$version" >>"$log" 2>&1)
	tar -xzf "$tmp"/node-llama-cpp-$version.tgz -C "$tmp" package/llama/gitRelease.bundle
	rm -rf "$root/src"
	git clone --quiet "$tmp/package/llama/gitRelease.bundle" "$root/src" >>"$log" 2>&1
fi

jobs=$(nproc 2>/dev/null || echo 2)
say "configuring llama.cpp ($(git -C "$root/src" log -1 --format='%h %cs'))"
cmake -S "$root/src" -B "$root/build" -DCMAKE_BUILD_TYPE=Release \
	-DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
	-DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=ON -DGGML_RPC=ON >>"$log" 2>&1 ||
	{ say "cmake configure failed, see $log"; tail -20 "$log" >&2; exit 3; }
say "building llama-server, llama-fit-params and ggml-rpc-server with $jobs jobs (a few minutes)"
cmake --build "$root/build" -j "$jobs" --target llama-server llama-fit-params ggml-rpc-server >>"$log" 2>&1 ||
	{ say "build failed, see $log"; tail -30 "$log" >&2; exit 3; }
printf '%s' "$cpu" >"$stamp"
echo "$bin"
