# zealot solve: the largest window that fits, proved by `plan` (the window
# fits, one 256-cell step up is refused) on the seeds' endpoint and on a
# seeded sweep of payloads and cards no other test names; the frontier's
# shapes fit; the objectives, --fix and --vary; the errors.
#
# ZEALOT_SOLVE_SEED (default 2026) and ZEALOT_SOLVE_N (default 14) pick the
# sweep; every case prints its geometry so a failure is reproducible.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

mkdir payloads
must "$ZEALOT" synth --preset bonsai-9b --set type=142 -o payloads/bonsai-9b-pq2.gguf || exit 1
must "$ZEALOT" synth clip --preset bonsai-9b-mmproj --set projection_dim=4096 -o payloads/bonsai-9b-mmproj-q8.gguf || exit 1
must "$ZEALOT" synth lora --base payloads/bonsai-9b-pq2.gguf -o payloads/bonsai-9b-lora.gguf || exit 1
sed "s|=\.\./payloads/|=payloads/|" "$ROOT/examples/history/frank-zealot.env" >fz.env

# plan_keys FILE JQPATH [--set K=V ...]: `plan --json` of the endpoint with
# the keys at JQPATH; sets $rc
plan_keys() {
	local env=$1 path=$2
	shift 2
	local sets
	sets=$(jq -r "$path | to_entries[] | \"--set=\(.key)=\(.value)\"" solve.json)
	# shellcheck disable=SC2086
	"$ZEALOT" plan --json "$env" $sets "$@" >p.json 2>p.err
	rc=$?
}

run "$ZEALOT" solve fz.env --maximize window --slots 3 --json
cp "$TMP/out" solve.json
check "solve --maximize window --slots 3: exit 0" rc_is 0
check "solve: no sanitizer report" no_sanitizer
check "best.keys holds every shape key" \
	json_is '.best.keys | keys | sort' '["BATCH_SIZE","CACHE_TYPE_K","CACHE_TYPE_V","CTX_SIZE","FLASH_ATTN","KV_UNIFIED","PARALLEL","SPEC_DRAFT_N_MAX","SPEC_DRAFT_TYPE_K","SPEC_DRAFT_TYPE_V","SPEC_TYPE","UBATCH_SIZE"]'
check "best: 3 slots, the endpoint's precision and drafter kept" \
	json_is '[.best.slots,.best.keys.PARALLEL,.best.cache_k,.best.cache_v,.best.drafter]' '[3,"3","f16","q8_0","draft-mtp"]'
w=$(jq .best.window solve.json)
check "best: CTX_SIZE = 3 x window ($w), a whole number of 256-cell steps" \
	test "$(jq '.best.keys.CTX_SIZE | tonumber' solve.json)" -eq $((3 * w)) -a $((w % 256)) -eq 0
check "best: more window than the endpoint's 200,704" test "$w" -gt 200704
plan_keys fz.env .best.keys
check "plan of best.keys: fits (exit 0)" rc_is 0
check "plan of best.keys: the window and free MiB solve reported" \
	test "$(jq -c '[.n_ctx_seq,.free_mib]' p.json)" = "$(jq -c '[.best.window,.best.plan.free_mib]' solve.json)"
plan_keys fz.env .best.keys --set CTX_SIZE=$((3 * (w + 256)))
check "plan one 256-cell step up ($((w + 256)) per slot): refused (exit 1)" rc_is 1
check "solve's next_step is that refusal" \
	test "$(jq -c '[.free_mib,.verdict]' p.json)" = "$(jq -c '[.best.next_step.free_mib,.best.next_step.verdict]' solve.json)"

# The frontier: every shape fits, at its largest window.
n=$(jq '.frontier | length' solve.json)
check "the frontier has shapes ($n)" test "$n" -gt 3
ok_fit=0 ok_step=0 tried=0
for i in 0 $((n / 3)) $((2 * n / 3)) $((n - 1)); do
	tried=$((tried + 1))
	plan_keys fz.env ".frontier[$i].keys"
	[ "$rc" -eq 0 ] && ok_fit=$((ok_fit + 1))
	fw=$(jq ".frontier[$i].window" solve.json)
	if [ "$(jq ".frontier[$i].capped" solve.json)" = true ]; then
		[ "$fw" -eq 262144 ] && ok_step=$((ok_step + 1))
	else
		plan_keys fz.env ".frontier[$i].keys" --set CTX_SIZE=$(($(jq ".frontier[$i].slots" solve.json) * (fw + 256)))
		[ "$rc" -eq 1 ] && ok_step=$((ok_step + 1))
	fi
done
check "frontier shapes sampled fit ($ok_fit of $tried)" test "$ok_fit" -eq "$tried"
check "frontier shapes sampled: one step up refused, or the trained context ($ok_step of $tried)" test "$ok_step" -eq "$tried"
check "no frontier shape is beaten on every axis by another" \
	json_is '[.frontier[] as $a | .frontier[] as $b | select($a != $b and $b.slots >= $a.slots and $b.window >= $a.window and $b.cache_k == $a.cache_k and $b.cache_v == $a.cache_v and $b.drafter == $a.drafter and $b.ubatch >= $a.ubatch and ($b.slots > $a.slots or $b.window > $a.window or $b.ubatch > $a.ubatch))] | length' 0

# The objectives
run "$ZEALOT" solve fz.env --maximize slots --json
check "--maximize slots: 3 slots keep the 200,704 window, 4 do not" json_is '[.best.slots, .best.window >= 200704]' '[3,true]'
cp "$TMP/out" solve.json
plan_keys fz.env .best.keys --set PARALLEL=4 --set CTX_SIZE=$((4 * 200704))
check "--maximize slots: 4 slots at 200,704 refused by plan" rc_is 1
run "$ZEALOT" solve fz.env --maximize slots --min-window 65536 --json
check "--maximize slots --min-window 65536: more slots, each >= 65,536" \
	json_is '[.best.slots > 3, .best.window >= 65536]' '[true,true]'
run "$ZEALOT" solve fz.env --maximize precision --slots 2 --json
check "--maximize precision --slots 2: exact K and V fit at the endpoint's window" \
	json_is '[.best.cache_k,.best.cache_v,.best.window >= 200704]' '["f16","f16",true]'
run "$ZEALOT" solve fz.env --fix SPEC_TYPE=none --slots 3 --json
check "--fix SPEC_TYPE=none: the drafter and its keys are gone" \
	json_is '[.best.keys.SPEC_TYPE, .best.keys.SPEC_DRAFT_N_MAX, .best.drafter]' '["none",null,"none"]'
run "$ZEALOT" solve fz.env --slots 3 --vary CACHE_TYPE_V=q8_0,q4_0 --json
check "--vary CACHE_TYPE_V=q8_0,q4_0: the best window takes q4_0" json_is '.best.cache_v' '"q4_0"'
run "$ZEALOT" solve fz.env --slots 3 --fix SLACK_MIB=2048 --json
cp "$TMP/out" solve.json
check "--fix SLACK_MIB=2048: kept in the keys, the window shrinks" \
	test "$(jq -c '[.best.keys.SLACK_MIB, .best.window < '"$w"']' solve.json)" = '["2048",true]'
plan_keys fz.env .best.keys
check "--fix SLACK_MIB=2048: plan of the keys fits" rc_is 0
run "$ZEALOT" solve fz.env --slots 3
check "human: exit 0, the lines to paste and the frontier" test "$rc" -eq 0 -a -n "$(grep '^CTX_SIZE=' "$TMP/out")" -a -n "$(grep '^frontier' "$TMP/out")"
# --top: the human report shows the 10 best frontier shapes by the
# objective (a screen), --top N the N best; --json keeps every shape
# unless --top is given, best first, and counts them all
rows() { awk '/^  slots +window/ { on = 1; next } on && NF == 0 { exit } on { n++ } END { print n + 0 }' "$TMP/out"; }
run "$ZEALOT" solve fz.env --json
cp "$TMP/out" all.json
nf=$(jq '.frontier_shapes' all.json)
check "--json: every frontier shape ($nf), frontier_shapes counts them" \
	test "$nf" -gt 10 -a "$(jq '.frontier | length' all.json)" -eq "$nf"
check "--json: the frontier best first by the window" \
	test "$(jq '.frontier[0].window == (.frontier | map(.window) | max)' all.json)" = true
run "$ZEALOT" solve fz.env
check "human: the 10 best of $nf shapes, saying so" test "$(rows)" -eq 10 -a -n "$(grep -F 'the 10 best by window (--top N shows more' "$TMP/out")"
check "human: the first row is the JSON's first shape" \
	test "$(awk '/^  slots +window/ { getline; print $1, $2; exit }' "$TMP/out" | tr -d ,)" = "$(jq -r '"\(.frontier[0].slots) \(.frontier[0].window)"' all.json)"
run "$ZEALOT" solve fz.env --top 3
check "--top 3: three rows" test "$(rows)" -eq 3
run "$ZEALOT" solve fz.env --top 1000
check "--top 1000: every shape, no 'best' line" test "$(rows)" -eq "$nf" -a -z "$(grep -F -- '--top N shows more' "$TMP/out")"
run "$ZEALOT" solve fz.env --top 3 --json
check "--top 3 --json: three shapes of $nf" json_is '[(.frontier | length), .frontier_shapes]' "[3,$nf]"
run "$ZEALOT" solve fz.env --top 0
check "--top 0: usage, exit 2" rc_is 2
run "$ZEALOT" solve fz.env --slots 3 --fix SLACK_MIB=30000
check "nothing fits: exit 1, best null" test "$rc" -eq 1
run "$ZEALOT" solve fz.env --slots 3 --fix SLACK_MIB=30000 --json
check "nothing fits: best null" json_is '.best' 'null'

# A seeded sweep of payloads and cards
rng=${ZEALOT_SOLVE_SEED:-2026}
pick() {
	local var=$1
	shift
	local a=("$@")
	rng=$(((rng * 1103515245 + 12345) % 2147483648))
	printf -v "$var" '%s' "${a[(rng >> 8) % ${#a[@]}]}"
}
cases=0 proved=0 bound=0 capped=0 none=0
for i in $(seq "${ZEALOT_SOLVE_N:-14}"); do
	pick arch llama qwen35 gemma3
	pick hd 64 128 256
	pick kvh 1 2 4 8
	pick embd 512 1024 2048
	pick layers 4 8 12 16
	pick ctx 262144 1048576 4194304
	sets="layers=$layers embd=$embd ff=$((embd * 2)) heads=$((kvh * 2)) kv_heads=$kvh head_dim=$hd rope_dims=$hd ctx=$ctx vocab=32000"
	case $arch in
	qwen35) pick mtp 0 1 && sets="$sets nextn=$mtp" ;;
	gemma3) pick swa 512 1024 4096 && sets="$sets swa=$swa swa_pattern=3" ;;
	esac
	pick dev cpu rtx3060 rtx3090 rtx4060ti-16g
	pick addr 2048 4096 8192 16384 ""
	pick np 1 2 3 4
	pick ck f16 q8_0 q4_0
	pick cv f16 q8_0 q4_0
	pick ub 128 512 1024
	pick fa on on off
	[ "$fa" = off ] && cv=f16
	# shellcheck disable=SC2086
	"$ZEALOT" synth $arch $(printf -- '--set %s ' $sets) -o r$i.gguf 2>/dev/null || continue
	{
		echo "MODEL_FILE=r$i.gguf"
		echo "CTX_SIZE=$((np * 4096))"
		echo "PARALLEL=$np"
		echo "CACHE_TYPE_K=$ck"
		echo "CACHE_TYPE_V=$cv"
		echo "UBATCH_SIZE=$ub"
		echo "FLASH_ATTN=$fa"
		echo "DEVICE=$dev"
		[ "$dev" = cpu ] && echo "ADDRESSABLE_MIB=${addr:-8192}" || { [ -n "$addr" ] && echo "ADDRESSABLE_MIB=$addr"; }
		[ "$arch" = qwen35 ] && [ "$mtp" = 1 ] && printf 'SPEC_TYPE=draft-mtp\nSPEC_DRAFT_N_MAX=2\n'
	} >r$i.env
	what="r$i: $arch $sets | $(tr '\n' ' ' <r$i.env)"
	"$ZEALOT" solve r$i.env --maximize window --slots "$np" --json >solve.json 2>solve.err
	src=$?
	cases=$((cases + 1))
	if [ "$src" -gt 1 ]; then
		echo "# $what: solve exit $src: $(head -1 solve.err)"
		continue
	fi
	if [ "$src" -eq 1 ]; then
		# nothing fits: the smallest window must be refused too
		"$ZEALOT" plan r$i.env --set CTX_SIZE=$((np * 256)) >/dev/null 2>&1
		if [ $? -eq 1 ]; then proved=$((proved + 1)) none=$((none + 1)); else echo "# $what: solve found nothing, plan fits at 256"; fi
		continue
	fi
	bw=$(jq .best.window solve.json)
	plan_keys r$i.env .best.keys
	fit=$rc
	if [ "$(jq .best.capped solve.json)" = true ]; then
		# capped by the trained context (law S02): the cap is the window
		if [ "$fit" -eq 0 ] && [ "$bw" -eq $((ctx / 256 * 256)) ]; then proved=$((proved + 1)) capped=$((capped + 1)); else echo "# $what: capped at $bw (fit $fit)"; fi
		continue
	fi
	plan_keys r$i.env .best.keys --set CTX_SIZE=$((np * (bw + 256)))
	if [ "$fit" -eq 0 ] && [ "$rc" -eq 1 ]; then
		proved=$((proved + 1)) bound=$((bound + 1))
	else
		echo "# $what: window $bw fits=$fit, next step rc=$rc"
	fi
done
echo "# sweep: $bound bound by memory, $capped by the trained context, $none where nothing fits"
check "sweep: the memory bound is exercised ($bound cases)" test "$bound" -ge $((cases / 3))
check "sweep: every case's window fits and one step up is refused by plan ($proved of $cases)" test "$proved" -eq "$cases" -a "$cases" -gt 0

# Errors
run "$ZEALOT" solve --help
check "--help: exit 0, documents the objectives and --json" test "$rc" -eq 0 -a -n "$(grep 'precision' "$TMP/out")" -a -n "$(grep -e '--json:' "$TMP/out")"
run "$ZEALOT" solve fz.env --maximize speed
check "--maximize speed: exit 2" rc_is 2
run "$ZEALOT" solve fz.env --vary CTX_SIZE=1,2
check "--vary CTX_SIZE: exit 2 (the window is searched)" test "$rc" -eq 2 -a -n "$(grep CTX_SIZE "$TMP/err")"
run "$ZEALOT" solve fz.env --fix NOT_A_KEY=1
check "--fix an unknown key: exit 2" rc_is 2
run "$ZEALOT" solve fz.env --vary CACHE_TYPE_K=fp8
check "--vary a cache type the engine lacks: exit 2, names S04" test "$rc" -eq 2 -a -n "$(grep S04 "$TMP/err")"
run "$ZEALOT" solve nope.env
check "a missing endpoint file: exit 3" rc_is 3

# The memo with devices (memo.h): every answer equals the one the full
# replay gives (ZEALOT_FULL_REPLAY=1 prices every graph of every candidate
# by the scheduler's replay, no memo), the search's own counts and times
# aside; the memo did the pricing (graph replays counted) where the full
# replay counts none. On the seeds' card and on two rpc-servers (every
# layer offloaded: pipeline parallelism).
must "$ZEALOT" synth qwen35 --set ctx=65536 -o q35.gguf || exit 1
printf 'MODEL_FILE=q35.gguf\nCTX_SIZE=8192\nPARALLEL=2\nRPC=127.0.0.1:50061,127.0.0.1:50062\nTENSOR_SPLIT=1,2\nSPEC_TYPE=draft-mtp\nSPEC_DRAFT_N_MAX=2\nDEVICES=rpc:4096,rpc:8192\nADDRESSABLE_MIB=65536\n' >rpc2.env
for e in fz.env rpc2.env; do
	run "$ZEALOT" solve "$e" --maximize slots --json
	cp "$TMP/out" memo.json
	run env ZEALOT_FULL_REPLAY=1 "$ZEALOT" solve "$e" --maximize slots --json
	check "solve $e --maximize slots: the memo's answer is the full replay's, every figure" \
		test "$(jq -c 'del(.search)' memo.json)" = "$(jq -c 'del(.search)' "$TMP/out")" -a "$rc" -eq 0
	check "solve $e: the memo priced it ($(jq .search.replays memo.json) graph replays), the full replay none" \
		test "$(jq .search.replays memo.json)" -gt 0 -a "$(jq .search.replays "$TMP/out")" -eq 0
done
