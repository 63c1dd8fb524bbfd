# The drafters of a target's hidden states: an eagle3 and a dflash
# drafter beside a synthetic llama target (SPEC_TYPE=draft-eagle3 /
# draft-dflash, SPEC_DRAFT_MODEL_FILE) boot through `zealot argv`, draft
# and answer a completion, flash attention on and off. The plan prices the
# drafter's weights, KV and compute but does not mirror them yet: its
# graph is estimated with the llama block, and the target's extracted
# layer inputs (llama_set_embeddings_layer_inp: a larger output buffer,
# allocated unlogged at the first decode, and a re-reserved graph) are not
# priced; the plan says so and archs still names both not mirrored.
# check refuses the pairings the engine cannot run (law S22): the engine's
# own abort is held for a drafter reading a layer past the target's.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # plan_ledger
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

# SPEC_TYPE's choices are the engine's names (its --spec-type table,
# common/speculative.cpp), the two drafters of hidden states among them
"$SERVER" --help 2>/dev/null | awk '$1 == "--spec-type" { print $2 }' | tr ',' '\n' | sort >engine.types
"$ZEALOT" check --keys --markdown 2>/dev/null | awk -F' [|] ' '$1 == "| `SPEC_TYPE`" { print $2 }' |
	sed 's/^one of //; s/\\//g' | tr '|,' '\n\n' | sort -u >zealot.types
check "SPEC_TYPE offers draft-eagle3 and draft-dflash, every choice a name of the engine's --spec-type" \
	eval "[ -s engine.types ] && grep -qx draft-eagle3 zealot.types && grep -qx draft-dflash zealot.types &&
		[ -z \"\$(comm -23 zealot.types engine.types)\" ]"

run "$ZEALOT" synth llama -o "$TMP/target.gguf"
run "$ZEALOT" synth eagle3 -o "$TMP/eagle3.gguf"
check "synth eagle3 writes the drafter" rc_is 0
run "$ZEALOT" synth dflash -o "$TMP/dflash.gguf"
check "synth dflash writes the drafter" rc_is 0
# and of other geometries: eagle3 with 8 heads of 32 over 4 KV heads and
# an FFN of 384; dflash of 3 blocks reading 2 layers, 2 heads over 1
run "$ZEALOT" synth eagle3 --set heads=8 --set head_dim=32 --set kv_heads=4 --set ff=384 --set rope_dims=32 \
	-o "$TMP/eagle3b.gguf"
run "$ZEALOT" synth dflash --set layers=3 --set tgt_extract=2 --set heads=2 --set kv_heads=1 -o "$TMP/dflashb.gguf"

# drafter_case NAME TYPE FILE "KEY=VALUE ...": boot synth llama with the
# drafter, check it answered and drafted, then hold the plan to the boot's
# ledger (plancase.sh plan_ledger: every exact term equal, every compute
# buffer within PLAN_TOL_PCT) and to mirroring both graphs
drafter_case() {
	local name=$1 type=$2 file=$3 keys=$4
	cp target.gguf "$name.gguf"
	boot_for_ledger "$name" "SPEC_TYPE=$type SPEC_DRAFT_MODEL_FILE=$TMP/$file $keys"
	check_answered "$name" "$name.log"
	check "$name: the engine drafted with $type" grep -q "adding speculative implementation '$type'" "$name.log"
	plan_ledger "$name" "${type#draft-}"
	check "$name: the plan mirrors target and drafter (exact, nothing unmirrored)" plan_mirrors "$name.env"
	run "$ZEALOT" check "$name.env"
	check "$name: check admits the pair (no S20, S21, S22)" eval "! grep -qE 'S20|S21|S22' '$TMP/out'"
}
E3=eagle3.gguf
drafter_case e3-fa draft-eagle3 $E3 "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on SPEC_DRAFT_N_MAX=3"
drafter_case e3-nofa draft-eagle3 eagle3b.gguf "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
drafter_case e3-q8 draft-eagle3 $E3 \
	"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 SPEC_DRAFT_TYPE_K=q8_0 SPEC_DRAFT_TYPE_V=q8_0"
drafter_case df-fa draft-dflash dflash.gguf "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on SPEC_DRAFT_N_MAX=3"
drafter_case df-nofa draft-dflash dflashb.gguf "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
drafter_case df-ub64 draft-dflash dflash.gguf "CTX_SIZE=9000 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=64 KV_UNIFIED=1"
run "$ZEALOT" plan --json e3-fa.env
check "plan prices the target's extracted layer inputs: 3 layers x 256 x n_batch 2048 floats = 6 MiB" \
	jq -e '.extract_mib == 6' "$TMP/out"

# the pairings the engine cannot run: check refuses them (S22)
refused() { # NAME SED-EXPR WHAT PATTERN
	sed "$2" e3-fa.env >"$1.env"
	run "$ZEALOT" check "$1.env"
	check "check refuses $3 (S22)" eval "[ $rc -ne 0 ] && grep -q 'S22' '$TMP/out' && grep -q '$4' '$TMP/out'"
}
refused mixed "s#eagle3.gguf#dflash.gguf#" "draft-eagle3 with a dflash drafter" "not eagle3"
refused asdfl "s#^SPEC_TYPE=.*#SPEC_TYPE=draft-dflash#" "an eagle3 drafter as draft-dflash" "only a dflash"
refused simple "s#^SPEC_TYPE=.*#SPEC_TYPE=draft-simple#" "an eagle3 drafter as draft-simple" "ctx_other"
run "$ZEALOT" synth eagle3 --set embd_out=128 -o "$TMP/narrow.gguf"
refused narrow "s#eagle3.gguf#narrow.gguf#" "an eagle3 fusing layers of another width" "target_hidden_size"
run "$ZEALOT" synth dflash --set embd=128 --set ff=256 -o "$TMP/dfnarrow.gguf"
refused dfnarrow "s#eagle3.gguf#dfnarrow.gguf#; s#^SPEC_TYPE=.*#SPEC_TYPE=draft-dflash#" \
	"a dflash drafter of another width" "no output.weight"
run "$ZEALOT" synth eagle3 --set tgt_layers=8 -o "$TMP/deep.gguf"
refused deep "s#eagle3.gguf#deep.gguf#" "an eagle3 reading a layer past the target's" "target layer 7"
# and the engine aborts on it, as check says (common/speculative.cpp)
sed -i "s#^LISTEN_PORT=.*#LISTEN_PORT=$(free_port)#" deep.env
mapfile -t cmd < <("$ZEALOT" argv deep.env)
timeout 30 "${cmd[@]}" >deep.log 2>&1
check "the engine aborts on the eagle3 reading target layer 7 of 4" \
	grep -q "EAGLE3: target layer id 7 exceeds target n_layer 4" deep.log

# a target whose graph records no layer inputs (qwen2.cpp): check refuses
# it, and the engine asserts at the first decode that extracts them
run "$ZEALOT" synth qwen2 -o "$TMP/qwen2.gguf"
refused q2target "s#^MODEL_FILE=.*#MODEL_FILE=$TMP/qwen2.gguf#" "an eagle3 beside a qwen2 target" "records no layer"
sed -i "s#^LISTEN_PORT=.*#LISTEN_PORT=$(free_port)#" q2target.env
mapfile -t cmd < <("$ZEALOT" argv q2target.env)
timeout 30 "${cmd[@]}" >q2target.log 2>&1 &
pid=$!
engine_ask "$pid" "$(sed -n 's/^LISTEN_PORT=//p' q2target.env)"
stop_pid "$pid"
check "the engine asserts beside the qwen2 target" grep -q 'layer input tensor is null' q2target.log
# qwen3.cpp records them: admitted, its graph's extra outputs named as not mirrored
run "$ZEALOT" synth qwen3 -o "$TMP/qwen3.gguf"
sed "s#^MODEL_FILE=.*#MODEL_FILE=$TMP/qwen3.gguf#" e3-fa.env >q3target.env
run "$ZEALOT" check q3target.env
check "check admits an eagle3 beside a qwen3 target (no S22)" eval "! grep -q S22 '$TMP/out'"
run "$ZEALOT" plan --json q3target.env
check "plan names qwen3's extracted layer inputs as not mirrored" \
	jq -e '.exact == false and (.unmirrored|map(test("layers of .qwen3. the drafter reads"))|any)' "$TMP/out"

# archs names both mirrored (as drafters); S18 still refuses both as MODEL_FILE
run "$ZEALOT" archs --json
check "archs counts eagle3 and dflash mirrored, not served as models" \
	jq -e '[.archs[]|select(.arch=="eagle3" or .arch=="dflash")|.mirrored and (.served|not)]|length == 2 and all' "$TMP/out"
printf 'MODEL_FILE=%s\nCTX_SIZE=4096\n' "$TMP/eagle3.gguf" >alone.env
run "$ZEALOT" check alone.env
check "check still refuses eagle3 as MODEL_FILE (S18)" eval "[ $rc -ne 0 ] && grep -q 'S18' '$TMP/out'"

echo "# worst compute error: ${PLAN_WORST}% (eagle3 ${PLAN_WORST_BY[eagle3]:-0}%, dflash ${PLAN_WORST_BY[dflash]:-0}%)"
