# State-carrying and dense families against the real engine's boot ledger
# (issue 12): each synthesised payload boots, answers, and its plan's exact
# terms (model, KV, recurrent state, output) equal the ledger; the compute
# buffers (the graph replay) are within 5 %. The worst compute error is
# printed as a TAP comment.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1

worst=0
# case NAME ARCH "synth sets" "KEY=VALUE ..."
case_() {
	local name=$1 arch=$2 sets=$3 keys=$4 s args=()
	for s in $sets; do args+=(--set "$s"); done
	"$ZEALOT" synth "$arch" "${args[@]}" -o "$name.gguf" 2>/dev/null
	boot_for_ledger "$name" "$keys"
	check_answered "$name" "$name.log"
	run "$ZEALOT" ledger "$name.log" --endpoint "$name.env" --json
	check "$name: every exact term equals the ledger" rc_is 0
	[ "$rc" -eq 0 ] || { jq -c '.comparison[]|select(.match==false)' "$TMP/out" 2>/dev/null | head -5 | sed 's/^/#   /'; tail -3 "$name.log" | sed 's/^/#   engine: /'; }
	local err
	err=$(jq '[.comparison[]|select(.term|test("compute"))|.error_pct|fabs]|max // 0' "$TMP/out" 2>/dev/null)
	check "$name: compute within 5% of the ledger (${err}%)" awk -v e="${err:-999}" 'BEGIN { exit !(e <= 5) }'
	awk -v e="${err:-0}" -v w="$worst" 'BEGIN { exit !(e > w) }' && worst=$err
}

case_ granitehybrid granitehybrid "" "CTX_SIZE=4096 PARALLEL=1"
echo "# worst compute error across arch-ssm: ${worst}%"
