#!/usr/bin/env bash
# Build the real llama.cpp engine (CPU) that zealot's live tests run against.
#
# The source is the git bundle inside the npm package node-llama-cpp (pinned),
# so the only registry touched is npm. The build lands in a cache directory
# outside the repository and is reused across runs: a second call with a
# complete cache does nothing and prints the binary's path.
#
#   scripts/build-engine.sh            build (or reuse) and print the bin dir
#   scripts/build-engine.sh --vulkan   the same engine with ggml's Vulkan
#                                      backend, in its own build dir beside
#                                      the CPU one (same source clone)
#   ZEALOT_CACHE=/some/dir scripts/build-engine.sh
#
# --vulkan needs libvulkan-dev, glslc, spirv-headers (and, to run on the
# CPU, mesa-vulkan-drivers' lavapipe). The pinned ggml-vulkan.cpp names three
# VK_EXT_layer_settings symbols newer than Debian 12's Vulkan-Hpp (1.3.239);
# scripts/vulkan-compat supplies them through -DVulkan_INCLUDE_DIR.
set -euo pipefail

variant=cpu
case "${1:-}" in
--vulkan) variant=vulkan ;;
"") ;;
*) printf 'build-engine: unknown option %s (usage: build-engine.sh [--vulkan])\n' "$1" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)

version=3.21.1
cache=${ZEALOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zealot}
root=$cache/engine-node-llama-cpp-$version
build=$root/build
stamp=$root/.built
targets=(llama-server llama-fit-params ggml-rpc-server)
extra=(-DGGML_RPC=ON)
if [ "$variant" = vulkan ]; then
	build=$root/build-vulkan
	stamp=$root/.built-vulkan
	targets=(llama-server llama-fit-params)
	extra=(-DGGML_VULKAN=ON "-DVulkan_INCLUDE_DIR=$here/vulkan-compat")
fi
bin=$build/bin
# GGML_NATIVE builds for this CPU: the stamp holds its flags, and a cache
# built on another CPU (AMX or AVX-512 where this one has none) is built
# again rather than dying of SIGILL at every boot. (A stamp from before it
# held them is empty and is taken as it is.)
cpu=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | tr ' ' '\n' | grep -E '^(avx|amx|f16c|fma|sse|bmi)' | sort | tr '\n' ' ')
say() { printf 'build-engine: %s\n' "$*" >&2; }

have=1
for t in "${targets[@]}"; do [ -x "$bin/$t" ] || have=; done
if [ -f "$stamp" ] && [ -n "$have" ]; then
	if [ ! -s "$stamp" ] || [ "$(cat "$stamp")" = "$cpu" ]; then
		echo "$bin"
		exit 0
	fi
	say "the cached engine was built for another CPU ($stamp): building it again"
	rm -rf "$build" "$stamp"
fi

mkdir -p "$root"
log=$root/build.log
[ "$variant" = cpu ] || log=$root/build-$variant.log
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
cmake -S "$root/src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
	-DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
	-DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=ON "${extra[@]}" >>"$log" 2>&1 ||
	{ say "cmake configure failed, see $log"; tail -20 "$log" >&2; exit 3; }
say "building ${targets[*]} ($variant) with $jobs jobs (a few minutes; --vulkan about 18 on two cores)"
cmake --build "$build" -j "$jobs" --target "${targets[@]}" >>"$log" 2>&1 ||
	{ say "build failed, see $log"; tail -30 "$log" >&2; exit 3; }
printf '%s' "$cpu" >"$stamp"
echo "$bin"
