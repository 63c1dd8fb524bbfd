# zealot rungs: the seeds' corrected fallback figures on their endpoint,
# every rung equal to `plan --set` with its lines, no rung that breaks a
# law, the fitting ones first, and the errors.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

# The seeds' endpoint as examples/ ships it, on payloads made the way
# `make examples` makes them.
mkdir payloads
must "$ZEALOT" synth --preset bonsai-9b --set type=142 --set name=Ternary-Bonsai-2-9B-PQ2_0-MTP -o payloads/bonsai-9b-pq2.gguf || exit 1
must "$ZEALOT" synth clip --preset bonsai-9b-mmproj --set projection_dim=4096 -o payloads/bonsai-9b-mmproj-q8.gguf || exit 1
must "$ZEALOT" synth lora --base payloads/bonsai-9b-pq2.gguf --set base_name=Ternary-Bonsai-2-9B-PTQ1_0.gguf -o payloads/bonsai-9b-lora.gguf || exit 1
sed "s|=\.\./payloads/|=payloads/|" "$ROOT/examples/history/frank-zealot.env" >fz.env

run "$ZEALOT" rungs fz.env --json
cp "$TMP/out" rungs.json
check "rungs on the seeds' endpoint: exit 0" rc_is 0
check "rungs: no sanitizer report" no_sanitizer
check "base: the seeds' shape, 3 x 200,704, f16 K + q8_0 V, draft-mtp" \
	json_is '[.base.keys.CTX_SIZE,.base.keys.PARALLEL,.base.keys.CACHE_TYPE_K,.base.keys.CACHE_TYPE_V,.base.keys.SPEC_TYPE,.base.shape.window]' \
	'["602112","3","f16","q8_0","draft-mtp",200704]'
rung() { jq -c --arg l "$1" "[.rungs[] | select(.line == \$l) | $2]" rungs.json; }

# The seeds' fallback table, corrected (the env header's figures were wrong).
check "SPEC_TYPE=none returns the draft KV's 2,352.00 MiB" test "$(rung SPEC_TYPE=none .delta.draft_kv)" = "[-2352]"
check "SPEC_TYPE=none returns the 301.50 MiB of rollback planes" test "$(rung SPEC_TYPE=none .delta.recurrent)" = "[-301.5]"
dc=$(jq '.base.plan.terms.draft_compute' rungs.json)
check "SPEC_TYPE=none returns the whole draft compute ($dc MiB)" test "$(rung SPEC_TYPE=none '(.delta.draft_compute + '"$dc"' | fabs < 0.005)')" = "[true]"
check "SPEC_TYPE=none: the cost names decode" test "$(rung SPEC_TYPE=none '.gives_up')" = '["decode"]'
check "CTX_SIZE=401408 (two 200,704 conversations) frees 4,802.00 MiB of target KV" \
	test "$(rung 'CTX_SIZE=401408 PARALLEL=2' .delta.kv)" = "[-4802]"
check "CTX_SIZE=401408: the draft KV shrinks with it" \
	test "$(rung 'CTX_SIZE=401408 PARALLEL=2' '.delta.draft_kv < 0')" = "[true]"
check "CTX_SIZE=401408: the cost says 2 conversations at the same window" \
	test "$(rung 'CTX_SIZE=401408 PARALLEL=2' '[.cost.slots,.cost.window]')" = "[[2,200704]]"
check "CACHE_TYPE_V=f16 costs +4,410.00 MiB of KV" test "$(rung CACHE_TYPE_V=f16 .delta.kv)" = "[4410]"
check "CACHE_TYPE_V=f16 with the drafter armed: refused (the seam refuses it)" \
	test "$(rung CACHE_TYPE_V=f16 .verdict)" = '["refused"]'
check "CACHE_TYPE_K=q8_0 frees 4,410.00 MiB" test "$(rung CACHE_TYPE_K=q8_0 .delta.kv)" = "[-4410]"
check "CACHE_TYPE_K=q8_0: the cost names the keys' precision" \
	test "$(rung CACHE_TYPE_K=q8_0 '[.gives_up, (.cost.words | test("keys"))]')" = '[["precision",true]]'
check "the projector off frees its bill (law M06)" \
	test "$(rung MMPROJ_FILE= '(.delta.projector + '"$(jq .base.plan.terms.projector rungs.json)"' | fabs < 0.005)')" = "[true]"
check "ubatch halved and doubled are offered" \
	test "$(jq '[.rungs[].keys.UBATCH_SIZE // empty] | sort' -c rungs.json)" = '["2048","512"]'
check "the draft cache quantized is offered (SPEC_DRAFT_TYPE_K/V)" \
	test "$(jq '[.rungs[] | select(.keys.SPEC_DRAFT_TYPE_K == "q8_0" or .keys.SPEC_DRAFT_TYPE_V == "q8_0")] | length' rungs.json)" = 2
check "the largest window that fits is offered, and fits" \
	test "$(jq '[.rungs[] | select((.keys | keys) == ["CTX_SIZE"] and .cost.window > 200704) | .verdict]' -c rungs.json)" = '["fits"]'
check "each rung's delta adds up to its total" \
	test "$(jq '[.rungs[] | ((.delta | to_entries | map(select(.key != "total") | .value) | add) - .delta.total | fabs) < 0.05] | all' rungs.json)" = true
check "the rungs that fit come first" \
	test "$(jq '[.rungs[].verdict] | . as $v | [range(1; length) | select($v[.] == "fits" and $v[. - 1] == "refused")] | length' rungs.json)" = 0
check "among the fitting, those that free memory come before those that cost it" \
	test "$(jq '[.rungs[] | select(.verdict == "fits") | .delta.total > 0] | . as $v | [range(1; length) | select($v[.] == false and $v[. - 1] == true)] | length' rungs.json)" = 0

# Every rung is the plan `plan --set` makes of its lines, and breaks no
# law the endpoint does not already break (M09 is the verdict itself).
errors() { # check's error laws, without the fit gate
	"$ZEALOT" check --json "$@" 2>/dev/null | jq -c '[.findings[] | select(.severity == "error" and .law != "M09") | .law] | sort | unique'
}
base_laws=$(errors fz.env --set RUNTIME=/bin/true)
n=$(jq '.rungs | length' rungs.json)
same=0 legal=0
for i in $(seq 0 $((n - 1))); do
	sets=$(jq -r ".rungs[$i].keys | to_entries[] | \"--set=\(.key)=\(.value)\"" rungs.json)
	# shellcheck disable=SC2086
	"$ZEALOT" plan --json fz.env $sets >p.json 2>/dev/null
	if [ "$(jq -c '[.free_mib,.verdict]' p.json)" = "$(jq -c ".rungs[$i] | [.free_mib,.verdict]" rungs.json)" ]; then
		same=$((same + 1))
	else
		echo "# rung $(jq -r ".rungs[$i].line" rungs.json): plan says $(jq -c '[.free_mib,.verdict]' p.json)"
	fi
	# shellcheck disable=SC2086
	[ "$(errors fz.env --set RUNTIME=/bin/true $sets)" = "$base_laws" ] && legal=$((legal + 1))
done
check "all $n rungs: free MiB and verdict equal 'plan --set' of their lines ($same)" test "$same" -eq "$n"
check "all $n rungs: no law error the endpoint does not already have ($legal)" test "$legal" -eq "$n"

# Human output
run "$ZEALOT" rungs fz.env
check "human: exit 0" rc_is 0
check "human: the line, its delta and the cost" out_has "SPEC_TYPE=none"
check "human: a cost line" out_has "cost: "
check "human: names the terms a rung moves" out_has "draft_kv -2,352.00"

# A payload whose head size no quantized block divides (80 % 32): law S04
# leaves it no quantized cache to offer; no MTP head, no drafter rung.
must "$ZEALOT" synth llama --set head_dim=80 --set rope_dims=80 --set heads=4 --set kv_heads=2 -o h80.gguf || exit 1
printf 'MODEL_FILE=h80.gguf\nCTX_SIZE=8192\nPARALLEL=2\nDEVICE=cpu\nADDRESSABLE_MIB=4096\n' >h80.env
run "$ZEALOT" rungs --json h80.env
check "head size 80: exit 0" rc_is 0
check "head size 80: no quantized K or V offered (law S04)" \
	json_is '[.rungs[] | (.keys.CACHE_TYPE_K // .keys.CACHE_TYPE_V // empty)] | map(select(startswith("q") or startswith("iq"))) | length' 0
check "no MTP head: no drafter rung" json_is '[.rungs[] | select(.keys.SPEC_TYPE)] | length' 0
run "$ZEALOT" rungs --json h80.env --set CACHE_TYPE_K=f32
check "an f32 K steps down to f16" json_is '[.rungs[] | select(.keys.CACHE_TYPE_K == "f16")] | length' 1

# A payload with the head, the drafter off: arming it is a rung that costs.
run "$ZEALOT" rungs --json fz.env --set SPEC_TYPE=none --set SPEC_DRAFT_N_MAX=2
check "drafter off: arming it is offered, costs memory and gives up nothing else" \
	json_is '[.rungs[] | select(.keys.SPEC_TYPE == "draft-mtp") | [.delta.draft_kv > 0, .gives_up]]' '[[true,"nothing"]]'

# Errors
run "$ZEALOT" rungs --help
check "--help: exit 0, documents --json and --svg" test "$rc" -eq 0 -a -n "$(grep -e '--svg' "$TMP/out")"
run "$ZEALOT" rungs fz.env --bogus
check "an unknown option: exit 2" rc_is 2
run "$ZEALOT" rungs missing.env
check "a missing endpoint file: exit 3" rc_is 3
run "$ZEALOT" rungs fz.env --set CACHE_TYPE_K=fp8
check "a cache type the engine lacks: exit 2, names S04" test "$rc" -eq 2 -a -n "$(grep S04 "$TMP/err")"
run "$ZEALOT" rungs fz.env --accept 2
check "--accept outside 0..1: exit 2" rc_is 2

# Rates recorded by `zealot arm` (docs/arm.md): without --accept, rungs
# prices the drafter with the per-position acceptance derived from the
# era's recorded drafted and accepted totals, and says which it used.
run "$ZEALOT" rungs fz.env --json
check "rates: nothing recorded: the seeds' default acceptance, said so" \
	json_is '[.rates.accept, .rates.accept_source, .rates.recorded_boot]' "[0.79,\"default (the seeds' 2.41)\",null]"
"$ZEALOT" ledger "$ROOT/examples/history/frank-zealot-2026-10-19.journal" --record fz.env >/dev/null 2>&1
sqlite3 "$ZEALOT_STATE_DIR/zealot.db" "INSERT INTO eras (endpoint, env_text, started) VALUES ('fz', '', 1);
	INSERT INTO boots (era_id, endpoint, at, source, bench_json) VALUES ((SELECT max(id) FROM eras), 'fz', 1796000000,
	'arm', '{\"decode_tps\":{\"median\":41.5},\"draft\":{\"drafted\":1000,\"accepted\":612,\"acceptance\":0.612}}')"
run "$ZEALOT" rungs fz.env --json
# depth 2 (SPEC_DRAFT_N_MAX=2): (a + a^2) / 2 = 0.612, a = 0.7141
check "rates: the recorded acceptance, per position at depth 2 (0.714 from 612 of 1000)" \
	json_is '[(.rates.accept * 1000 | round), (.accept * 1000 | round), .rates.accept_source, .rates.recorded_decode_tps]' \
	'[714,714,"recorded",41.5]'
decode_recorded=$(jq -c '[.rungs[].cost.decode_change_pct]' "$TMP/out")
run "$ZEALOT" rungs fz.env
check "rates: the text names the recorded acceptance and the measured decode" \
	eval 'out_has "recorded acceptance 0.714 per draft position" && out_has "measured decode at era"'
run "$ZEALOT" rungs fz.env --accept 0.79 --json
check "rates: --accept overrides it, said so, and the drafter's rungs price differently" \
	eval 'json_is .rates.accept_source "\"--accept\"" && test "$(jq -c "[.rungs[].cost.decode_change_pct]" "$TMP/out")" != "$decode_recorded"'
run "$ZEALOT" solve fz.env --maximize rate --json
check "rates: solve uses and names the recorded acceptance too" json_is '.rates.accept_source' '"recorded"'
