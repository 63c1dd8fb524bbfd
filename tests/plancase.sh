# The plan-vs-ledger case of the live suites, written once: a synthesised
# payload boots in the real engine, answers, and zealot's plan is held to
# the boot's ledger. Source it after lib.sh and engine.sh.
#
# The rule, one for every suite:
#  - every exact term (model, KV, SWA KV, recurrent state, draft KV,
#    output, n_ctx; per device under placement) equals the ledger to
#    0.01 MiB: `zealot ledger LOG --endpoint ENV` exits 0;
#  - every compute buffer (the allocator replay) is within PLAN_TOL_PCT
#    (5) % of the ledger's, each buffer by its own error, whatever its
#    size.
# The worst compute error is kept in PLAN_WORST (and per architecture in
# PLAN_WORST_BY) for the suite's closing comment.

PLAN_TOL_PCT=5
PLAN_WORST=0
declare -A PLAN_WORST_BY

# plan_compute_err CMP: the rule's figure, the largest |error %| of any
# compute buffer in a `ledger --json` comparison.
plan_compute_err() {
	jq '[.comparison[]|select(.term|test("compute"))|.error_pct|fabs]|max // 0' "$1" 2>/dev/null
}

# plan_ledger NAME ARCH: hold NAME.env's plan to NAME.log's ledger (the
# two checks), leave the comparison in NAME.cmp and its per-device lines
# as TAP comments.
plan_ledger() {
	local name=$1 arch=$2 err
	run "$ZEALOT" ledger "$name.log" --endpoint "$name.env" --json
	check "$name: every exact term equals the ledger" rc_is 0
	[ "$rc" -eq 0 ] || {
		jq -c '.comparison[]|select(.match==false)' "$TMP/out" 2>/dev/null | head -5 | sed 's/^/#   /'
		tail -3 "$name.log" | sed 's/^/#   engine: /'
	}
	cp "$TMP/out" "$name.cmp"
	err=$(plan_compute_err "$name.cmp")
	check "$name: every compute buffer within ${PLAN_TOL_PCT}% of the ledger (worst ${err}%)" \
		awk -v e="${err:-999}" -v t="$PLAN_TOL_PCT" 'BEGIN { exit !(e <= t) }'
	awk -v e="${err:-0}" -v w="$PLAN_WORST" 'BEGIN { exit !(e > w) }' && PLAN_WORST=$err
	awk -v e="${err:-0}" -v w="${PLAN_WORST_BY[$arch]:-0}" 'BEGIN { exit !(e > w) }' && PLAN_WORST_BY[$arch]=$err
	jq -r '.comparison[]|select(.term=="model" or .term=="kv" or .term=="kv_swa" or .term=="recurrent" or (.term|test("compute")))|select(.part|test("^[A-Z]"))|"#   \(.term) \(.part): plan \(.plan) ledger \(.ledger) (\(.error_pct)%)"' \
		"$name.cmp" 2>/dev/null
}

# plan_case NAME ARCH "synth sets" "KEY=VALUE ...": synth NAME.gguf (a
# check that fails when synth refuses), boot it on the cpu profile with
# those keys (engine.sh boot_for_ledger), check it answered, plan_ledger.
plan_case() {
	local name=$1 arch=$2 sets=$3 keys=$4 s args=()
	for s in $sets; do args+=(--set "$s"); done
	if ! "$ZEALOT" synth "$arch" "${args[@]}" -o "$name.gguf" 2>"$name.synth"; then
		check "$name: synth $arch $sets writes it" false
		sed 's/^/#   /' "$name.synth"
		return 1
	fi
	boot_for_ledger "$name" "$keys"
	check_answered "$name" "$name.log"
	plan_ledger "$name" "$arch"
}

# mirrored_case NAME ARCH "synth sets" "KEY=VALUE ...": plan_case, then the
# plan mirrors ARCH's graph: exact, nothing unmirrored (a plan that fails
# or prints nothing fails it too).
mirrored_case() {
	plan_case "$@" || return
	check "$1: the plan mirrors $2's graph (exact, nothing unmirrored)" plan_mirrors "$1.env"
}

# plan_mirrors ENV: plan --json ENV says exact and names nothing unmirrored
# (jq -e alone holds on no input at all: -n and input make it fail).
plan_mirrors() {
	"$ZEALOT" plan --json "$1" 2>/dev/null |
		jq -en 'input | .exact == true and ((.unmirrored // []) | length == 0)' >/dev/null
}

# mirrored_shapes PREFIX ARCH "synth sets" [CASE]: the four shapes every
# architecture is proven on, through CASE (mirrored_case): FA on with two
# slots, FA off with one, a small ubatch over a unified cache, a q8_0 cache
# with three slots and ubatch 1024.
mirrored_shapes() {
	local c=${4:-mirrored_case}
	"$c" "$1-fa" "$2" "$3" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
	"$c" "$1-nofa" "$2" "$3" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
	"$c" "$1-ub64" "$2" "$3" "CTX_SIZE=9000 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=64 KV_UNIFIED=1"
	"$c" "$1-q8kv" "$2" "$3" \
		"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
}
