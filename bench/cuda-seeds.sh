#!/usr/bin/env bash
# cuda-seeds: every CUDA figure the seeds measured, the plan's figure for
# the same shape, and the error. One command; no GPU needed (the plan is
# modelled from the pinned engine's source, not measured on a GPU here).
#
#   bench/cuda-seeds.sh [--json] [--rows FILE]
#       the seeds' boots (bench/cuda-seeds.tsv): each shape planned on a
#       stand-in payload synthesised to the seeds' payload byte count
#       (zealot synth --set bytes=N), the example endpoint of its era and
#       the row's overrides
#   bench/cuda-seeds.sh --boot-log LOG --endpoint ENDPOINT [--json]
#       a real CUDA boot (a verbosity-4 log, or a journal excerpt) against
#       the plan of its endpoint, every term the ledger holds
#
# Output: boot, term, buffer, measured MiB, planned MiB, error % (planned
# against measured). Exit 0 when every row was planned, 2 usage, 3 when a
# plan or a ledger could not be made.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
ZEALOT=${ZEALOT:-$root/zealot}
json=0 rows=$root/bench/cuda-seeds.tsv log= ep=
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=1 ;;
	--rows) rows=$2; shift ;;
	--boot-log) log=$2; shift ;;
	--endpoint) ep=$2; shift ;;
	-h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "cuda-seeds: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
command -v jq >/dev/null || { echo "cuda-seeds: needs jq" >&2; exit 3; }
[ -x "$ZEALOT" ] || { echo "cuda-seeds: $ZEALOT is not built (make zealot)" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/rows.jsonl
: >"$out"

emit() { # BOOT TERM BUFFER MEASURED PLANNED SOURCE
	jq -nc --arg b "$1" --arg t "$2" --arg f "$3" --argjson m "$4" --argjson p "$5" --arg s "$6" \
		'{boot:$b, term:$t, buffer:$f, measured:$m, planned:$p,
		  error_pct:(if $m == 0 then null else ((($p - $m) / $m * 10000 | round) / 100) end), source:$s}' >>"$out"
}

if [ -n "$log" ]; then
	[ -n "$ep" ] || { echo "cuda-seeds: --boot-log needs --endpoint" >&2; exit 2; }
	rc=0
	"$ZEALOT" ledger "$log" --endpoint "$ep" --json >"$tmp/l.json" 2>"$tmp/err" || rc=$?
	if [ "$rc" -ge 2 ]; then
		cat "$tmp/err" >&2
		exit 3
	fi
	boot="$(basename "$log") ($(jq -r '.build // "build unknown"' "$tmp/l.json"))"
	jq -c '.comparison[] | select(.part != "n_ctx" and .part != "n_ctx_seq" and .part != "n_seq_max")' \
		"$tmp/l.json" | while read -r r; do
		emit "$boot" "$(jq -r .term <<<"$r")" "$(jq -r .part <<<"$r")" "$(jq .ledger <<<"$r")" \
			"$(jq .plan <<<"$r")" "$(jq -r 'if .exact then "ledger (exact term)" else "ledger" end' <<<"$r")"
	done
else
	[ -f "$root/examples/payloads/bonsai-9b-mmproj-q8.gguf" ] ||
		{ echo "cuda-seeds: the example payloads are missing (make examples)" >&2; exit 3; }
	grep -v '^#' "$rows" | grep -v '^$' >"$tmp/rows"
	while IFS=$'\t' read -r boot env sets preset bytes term buf measured source; do
		key=$(printf '%s|%s|%s' "$env" "$sets" "$preset$bytes" | md5sum | cut -c1-12)
		payload=$tmp/$preset-$bytes.gguf
		[ -f "$payload" ] || "$ZEALOT" synth --preset "$preset" --set type=142 --set "bytes=$bytes" \
			-o "$payload" 2>/dev/null || { echo "cuda-seeds: synth $preset failed" >&2; exit 3; }
		if [ ! -f "$tmp/$key.json" ]; then
			sed -e "s|^MODEL_FILE=.*|MODEL_FILE=$payload|" -e "s|=../payloads/|=$root/examples/payloads/|" \
				"$root/examples/history/$env" >"$tmp/$key.env"
			args=()
			if [ "$sets" != - ]; then
				IFS=, read -ra kv <<<"$sets"
				for x in "${kv[@]}"; do args+=(--set "$x"); done
			fi
			"$ZEALOT" plan --json "$tmp/$key.env" "${args[@]}" >"$tmp/$key.json" 2>"$tmp/err" || true
			jq -e .verdict "$tmp/$key.json" >/dev/null 2>&1 || { cat "$tmp/err" >&2; exit 3; }
		fi
		p=$tmp/$key.json
		case $term in
		compute | draft_compute)
			planned=$(jq --arg t "$term" --arg b "$buf" \
				'[.[$t][] | select($b == "all" or .device == $b) | .mib] | add // 0' "$p") ;;
		model) planned=$(jq --arg b "$buf" '[.model[] | select(.device == $b) | .mib] | add // 0' "$p") ;;
		kv | draft_kv | recurrent) planned=$(jq --arg t "$term" '.[$t].mib // 0' "$p") ;;
		settled) planned=$(jq '.total_mib' "$p") ;;
		*) echo "cuda-seeds: unknown term '$term'" >&2; exit 3 ;;
		esac
		emit "$boot" "$term" "$buf" "$measured" "$planned" "$source"
	done <"$tmp/rows"
fi

if [ "$json" = 1 ]; then
	jq -s '{engine: "llama.cpp of 2026-09-12 (node-llama-cpp 3.21.1)",
		note: "planned figures are modelled from source, not measured on a GPU here", rows: .}' "$out"
	exit 0
fi
echo "planned: modelled from source, not measured on a GPU here (the pinned llama.cpp of 2026-09-12)"
printf '%-50s %-14s %-11s %10s %10s %8s  %s\n' boot term buffer measured planned error source
jq -r '[.boot, .term, .buffer, (.measured | tostring), (.planned | tostring),
	(if .error_pct == null then "-" else (.error_pct | tostring) end), .source] | @tsv' "$out" |
	while IFS=$'\t' read -r b t f m p e s; do
		[ "$e" = - ] || e=$(printf '%+.2f%%' "$e")
		printf '%-50s %-14s %-11s %10.2f %10.2f %8s  %s\n' "$b" "$t" "$f" "$m" "$p" "$e" "$s"
	done
