#!/usr/bin/env bash
# synth-plans.sh ZEALOT OUT: the reference plans over every architecture
# synth writes: 2 payloads (the defaults, vocab=1000) x 7 endpoint shapes
# x 3 devices (cpu, an rtx3090 with every layer and with 2) for each, the
# plan --json and its exit status, plus an md5 of ZEALOT_GA_TRACE on the
# cpu; 64 architectures make 2,688 plans. To diff a refactoring's before
# and after (the host's free memory is the one figure that moves):
#
#   scripts/synth-plans.sh /tmp/zealot-before /tmp/before
#   scripts/synth-plans.sh ./zealot /tmp/after
#   diff -r -I '"addressable_mib"' -I '"free_mib"' /tmp/before /tmp/after
set -u
[ $# -eq 2 ] || { sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 2; }
Z=$(realpath "$1")
OUT=$(realpath -m "$2")
mkdir -p "$OUT"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 3
shapes=(
	"CTX_SIZE=8192 PARALLEL=3 UBATCH_SIZE=256"
	"CTX_SIZE=4096 PARALLEL=1"
	"CTX_SIZE=32768 PARALLEL=2 FLASH_ATTN=on"
	"CTX_SIZE=16384 PARALLEL=4 FLASH_ATTN=on CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
	"CTX_SIZE=8192 PARALLEL=1 UBATCH_SIZE=512 BATCH_SIZE=2048"
	"CTX_SIZE=2048 PARALLEL=8"
	"CTX_SIZE=65536 PARALLEL=1 UBATCH_SIZE=128"
)
archs=$("$Z" synth qqqqqq -o x.gguf 2>&1 | sed 's/.*synth knows //; s/)$//' | tr -d ',')
[ -n "$archs" ] || { echo "synth-plans: no architecture list from $Z" >&2; exit 3; }
plan_() { # NAME ENVFILE TAG ARGS...
	local n=$1 e=$2 t=$3
	shift 3
	"$Z" plan --json "$e" "$@" >"$OUT/$n.$t.json" 2>"$OUT/$n.$t.err"
	echo "rc=$?" >>"$OUT/$n.$t.err"
}
for a in $archs; do
	for p in 0 1; do
		set=()
		[ "$p" = 1 ] && set=(--set vocab=1000)
		"$Z" synth "$a" "${set[@]}" -o "$a.$p.gguf" 2>/dev/null
		for i in "${!shapes[@]}"; do
			n=$a.$p.$i
			{
				echo "RUNTIME=/nonexistent/llama-server"
				echo "MODEL_FILE=$a.$p.gguf"
				echo "DEVICE=cpu"
				echo "ADDRESSABLE_MIB=20000"
				echo "SLACK_MIB=0"
				for s in ${shapes[$i]}; do echo "$s"; done
			} >"$n.env"
			plan_ "$n" "$n.env" cpu --cpu-features avx2
			plan_ "$n" "$n.env" card --device rtx3090 --set NGL=99 --cpu-features avx2
			plan_ "$n" "$n.env" part --device rtx3090 --set NGL=2 --cpu-features avx2
			ZEALOT_GA_TRACE=1 "$Z" plan --json "$n.env" --cpu-features avx2 2>&1 >/dev/null |
				grep '^GA ' | md5sum >"$OUT/$n.cpu.trace"
		done
		rm -f "$a.$p.gguf"
	done
done
echo "synth-plans: $(ls "$OUT"/*.json | wc -l) plans in $OUT" >&2
