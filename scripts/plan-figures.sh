#!/usr/bin/env bash
# plan-figures.sh ZEALOT OUTDIR: the plan figures of every live test shape,
# node for node, to diff a refactoring's before and after:
#
#   scripts/plan-figures.sh /tmp/zealot-before /tmp/before
#   scripts/plan-figures.sh ./zealot /tmp/after
#   diff -r -I '"addressable_mib"' -I '"free_mib"' /tmp/before /tmp/after
#
# Every case line (plan_case / case_ NAME ARCH "sets" "keys", at the start
# of a line) of tests/live/{arch-mla,arch-oss,arch-ssm,calibrate,placement,
# plan}.sh, the synth presets with and without the MTP drafter, each
# architecture at its defaults, and examples/*.env; each shape planned on
# cpu (avx2, and amx_int8), and on an rtx3090 with every layer and with 2:
# plan --json, and an md5 of ZEALOT_GA_TRACE (every allocation, in-place
# reuse and free of the allocator replays, by node). The host's free
# memory is the one figure that moves between runs (the -I above).
set -u
[ $# -eq 2 ] || { sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
Z=$(realpath "$1")
OUT=$(realpath -m "$2")
mkdir -p "$OUT"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 3
SERVER=/nonexistent/llama-server
R1=127.0.0.1:50911 R2=127.0.0.1:50912 repack="" AMX=0
norepack() { :; }
plan_() { # NAME ENVFILE TAG ARGS...
	local n=$1 e=$2 t=$3
	shift 3
	"$Z" plan --json "$e" "$@" >"$OUT/$n.$t.json" 2>"$OUT/$n.$t.err"
	echo "rc=$?" >>"$OUT/$n.$t.err"
	ZEALOT_GA_TRACE=1 "$Z" plan --json "$e" "$@" 2>&1 >/dev/null | grep '^GA ' | md5sum >"$OUT/$n.$t.trace"
}
case_() { # NAME ARCH|"--preset P" "synth sets" "KEY=VALUE ..."
	local name=$1 arch=$2 sets=$3 keys=$4 s args=()
	for s in $sets; do args+=(--set "$s"); done
	case $arch in --preset*) args+=($arch) arch= ;; esac
	"$Z" synth $arch "${args[@]}" -o "$name.gguf" 2>/dev/null
	{
		echo "RUNTIME=$SERVER"
		echo "MODEL_FILE=$name.gguf"
		echo "DEVICE=cpu"
		echo "ADDRESSABLE_MIB=20000"
		echo "SLACK_MIB=0"
		for s in $keys; do echo "$s"; done
	} >"$name.env"
	plan_ "$name" "$name.env" cpu --cpu-features avx2
	plan_ "$name" "$name.env" amx --cpu-features avx512,avx512_vnni,amx_int8
	plan_ "$name" "$name.env" card --device rtx3090 --set NGL=99 --cpu-features avx2
	plan_ "$name" "$name.env" part --device rtx3090 --set NGL=2 --cpu-features avx2
}
plan_case() { case_ "$@"; }
"$Z" synth clip -o mm.gguf 2>/dev/null
for f in arch-mla arch-oss arch-ssm calibrate placement plan; do
	src=$ROOT/tests/live/$f.sh
	grep -E '^(OSS|G4|G4D|M3)=' "$src" >"$f.vars"
	. "./$f.vars"
	awk '/^(plan_case|case_) /{c=1} c{print; if ($0 !~ /\\$/) c=0}' "$src" |
		sed -E "s/^(plan_case|case_) ([^ ]*)/case_ $f-\2/" >"$f.cases"
	. "./$f.cases"
done
for p in bonsai-9b bonsai-27b swift-27b ghost-mtp; do
	case_ "preset-$p" "--preset $p" "" "CTX_SIZE=65536 PARALLEL=2"
	case_ "preset-$p-mtp" "--preset $p" "" "CTX_SIZE=65536 PARALLEL=2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
done
for a in llama qwen35 gemma3 gpt-oss gemma4 mistral3 qwen3moe deepseek2 glm4moe qwen35moe granitehybrid qwen2 qwen3 \
	phi3 lfm2 mamba2 nemotron_h falcon-h1; do
	case_ "arch-$a" "$a" "" "CTX_SIZE=8192 PARALLEL=3 UBATCH_SIZE=256"
done
cd "$ROOT/examples" || exit 3
for e in *.env; do
	plan_ "ex-$e" "$e" cpu --cpu-features avx2
	plan_ "ex-$e" "$e" avx512 --cpu-features avx2,avx512
done
echo "plan-figures: $(ls "$OUT"/*.json | wc -l) plans in $OUT"
