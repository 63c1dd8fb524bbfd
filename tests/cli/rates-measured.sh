# Measured rates beside the byte model (issue 33 item 7): where `zealot arm`
# benched a change on the endpoint's current era, rungs and solve show the
# arm's measured decode change (marked m), name the arm, and say how far the
# byte model was off. The store holds the seeds' 2026-10-18 census, as arm
# records it: production (drafter armed, ubatch 1,024) 213.5 t/s, the
# drafter off 167.2, ubatch 2,048 beside the drafter 109.2.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state

mkdir payloads
must "$ZEALOT" synth --preset bonsai-9b --set type=142 --set name=Ternary-Bonsai-2-9B-PQ2_0-MTP -o payloads/bonsai-9b-pq2.gguf || exit 1
must "$ZEALOT" synth clip --preset bonsai-9b-mmproj --set projection_dim=4096 -o payloads/bonsai-9b-mmproj-q8.gguf || exit 1
must "$ZEALOT" synth lora --base payloads/bonsai-9b-pq2.gguf --set base_name=Ternary-Bonsai-2-9B-PTQ1_0.gguf -o payloads/bonsai-9b-lora.gguf || exit 1
sed "s|=\.\./payloads/|=payloads/|" "$ROOT/examples/history/frank-zealot.env" >fz.env

rung() { jq -c --arg l "$1" "[.rungs[] | select(.line == \$l) | $2]" "$TMP/out"; }

# Nothing recorded: the byte model, said.
run "$ZEALOT" rungs fz.env --json
check "nothing recorded: every rung's decode is the byte model's" \
	json_is '[.rungs[].decode_measured.source] | unique' '["byte model"]'
check "nothing recorded: SPEC_TYPE=none, the byte model's -45.4 %" \
	test "$(rung SPEC_TYPE=none '.decode_measured.model_pct')" = '[-45.4]'

"$ZEALOT" ledger "$ROOT/examples/history/frank-zealot-2026-10-19.journal" --record fz.env >/dev/null 2>&1
sqlite3 "$ZEALOT_STATE_DIR/zealot.db" "
INSERT INTO eras (endpoint, env_text, started) VALUES ('fz', '', 1);
INSERT INTO boots (era_id, endpoint, at, source, bench_json) VALUES ((SELECT max(id) FROM eras), 'fz', 1796000000,
	'arm', '{\"decode_tps\":{\"median\":213.5}}');
INSERT INTO arms (endpoint, era_id, boot_id, at, keys_json, reason, bench_json) VALUES ('fz', (SELECT max(id) FROM eras),
	(SELECT max(id) FROM boots), 1796000100, '{\"SPEC_TYPE\":\"none\"}', 'drafter off', '{\"decode_tps\":{\"median\":167.2}}');
INSERT INTO arms (endpoint, era_id, boot_id, at, keys_json, reason, bench_json) VALUES ('fz', (SELECT max(id) FROM eras),
	(SELECT max(id) FROM boots), 1796000200, '{\"UBATCH_SIZE\":\"2048\"}', 'ubatch up', '{\"decode_tps\":{\"median\":109.2}}');
INSERT INTO arms (endpoint, era_id, boot_id, at, keys_json, reason, bench_json) VALUES ('fz', (SELECT max(id) FROM eras),
	(SELECT max(id) FROM boots), 1796000300, '{\"UBATCH_SIZE\":\"2048\",\"PARALLEL\":\"2\"}', 'two keys', '{\"decode_tps\":{\"median\":100.0}}');"

run "$ZEALOT" rungs fz.env --json
check "rungs: exit 0, no sanitizer report" eval 'rc_is 0 && no_sanitizer'
check "SPEC_TYPE=none: measured by arm 1, -21.7 % (167.2 against 213.5), the byte model -45.4 %, 23.7 points off" \
	test "$(rung SPEC_TYPE=none '.decode_measured|[.source,.arm,.measured_pct,.model_pct,.off_points]')" = '[["arm",1,-21.7,-45.4,-23.7]]'
check "UBATCH_SIZE=2048: measured -48.9 % beside the drafter where the byte model says unchanged" \
	test "$(rung UBATCH_SIZE=2048 '.decode_measured|[.arm,.measured_pct,.model_pct]')" = '[[2,-48.9,0]]'
check "an arm of two keys is no rung of one: UBATCH_SIZE=512 and the rest stay the byte model's" \
	test "$(jq -c '[.rungs[]|select(.decode_measured.source=="arm")|.line]' "$TMP/out")" = '["SPEC_TYPE=none","UBATCH_SIZE=2048"]'
check "a change no arm benched: CACHE_TYPE_K=q8_0 stays the byte model's +14.3 %" \
	test "$(rung CACHE_TYPE_K=q8_0 '.decode_measured|[.source,.model_pct]')" = '[["byte model",14.3]]'
run "$ZEALOT" rungs fz.env
check "rungs text: the decode column marks the measured change" \
	test -n "$(grep -E '^ *[0-9]+ SPEC_TYPE=none .* -21\.7 % m$' "$TMP/out")"
check "rungs text: the line under it names the arm, the era and the byte model's miss" \
	out_has_unwrapped "decode -21.7 % measured by arm 1 of era 1"
check "rungs text: ... the byte model said -45.4 %: 23.7 points off" out_has_unwrapped "the byte model said -45.4 %: 23.7 points off"
check "rungs text: the note names the measured changes" out_has "measured: a decode marked m is zealot arm's: 3 changes benched on era 1"

run "$ZEALOT" solve fz.env --fix SPEC_TYPE=none --json
check "solve: the best shape (the drafter off, any window) is priced from arm 1" \
	json_is '.best.decode_measured|[.source,.arm,.measured_pct]' '["arm",1,-21.7]'
run "$ZEALOT" solve fz.env --json
check "solve: frontier shapes that change what an arm changed carry its figure (arm 3: 2 slots, ubatch 2,048)" \
	test "$(jq -c '[.frontier[]|select(.decode_measured.source=="arm")|.decode_measured.arm]|unique' "$TMP/out")" = '[1,2,3]'
check "solve: arm 3's shape is the one with PARALLEL=2, UBATCH_SIZE=2048 and the endpoint's other values" \
	test "$(jq -c '[.frontier[]|select(.decode_measured.arm==3)|[.keys.PARALLEL,.keys.UBATCH_SIZE,.keys.CACHE_TYPE_K,.keys.CACHE_TYPE_V,.keys.SPEC_TYPE]]|unique' "$TMP/out")" = '[["2","2048","f16","q8_0","draft-mtp"]]'
check "solve: the others stay the byte model's" \
	test "$(jq '[.frontier[]|select(.decode_measured.source=="byte model")]|length' "$TMP/out")" -gt 0
run "$ZEALOT" solve fz.env --fix SPEC_TYPE=none
check "solve text: the best shape's measured line" out_has_unwrapped "measured: decode -21.7 % measured by arm 1 of era 1"
check "no sanitizer report" no_sanitizer
