# Drafters that are not models of their own: a gemma4-assistant beside a
# synthetic gemma4 target (SPEC_TYPE=draft-mtp, SPEC_DRAFT_MODEL_FILE) boots
# through `zealot argv` and answers a completion; the plan prices the
# assistant's weights (draft_model, exact), its compute (draft_compute,
# src/models/gemma4-assistant.cpp mirrored) and no KV of its own (its
# layers share the target's last window and full layers' cache,
# src/llama-model.cpp create_memory): every exact term equals the boot
# ledger, every compute buffer within 0.5 %, flash attention on and off,
# f16 and q8_0 caches, 1-4 slots, unified or not.
# check refuses the pairings the engine cannot run (law S21).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # plan_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

run "$ZEALOT" synth gemma4-assistant -o "$TMP/g4a.gguf"
check "synth gemma4-assistant writes the drafter" rc_is 0
A="SPEC_TYPE=draft-mtp SPEC_DRAFT_MODEL_FILE=$TMP/g4a.gguf"
plan_case g4a-fa gemma4 "" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on $A SPEC_DRAFT_N_MAX=3"
check "g4a-fa: the plan mirrors target and assistant (exact, nothing unmirrored)" plan_mirrors g4a-fa.env
check "g4a-fa: the engine drafted with the assistant" grep -q "adding speculative implementation 'draft-mtp'" g4a-fa.log
draft_compared() { jq -e "[.comparison[]|select(.term==\"$2\")]|length > 0" "$1" >/dev/null; }
check "g4a-fa: the ledger holds the assistant's weights and compute apart" \
	eval "draft_compared g4a-fa.cmp draft_model && draft_compared g4a-fa.cmp draft_compute"
check "g4a-fa: the assistant holds no KV cache of its own (plan and ledger)" \
	eval "! draft_compared g4a-fa.cmp draft_kv && ! '$ZEALOT' plan --json g4a-fa.env | jq -e '.draft_kv.mib > 0' >/dev/null"
run "$ZEALOT" rungs g4a-fa.env
check "rungs offers the assistant no draft cache type (it keeps no cache)" \
	eval "[ $rc -eq 0 ] && ! grep -q SPEC_DRAFT_TYPE '$TMP/out'"
plan_case g4a-nofa gemma4 "" "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256 $A SPEC_DRAFT_N_MAX=2"
check "g4a-nofa: the plan mirrors target and assistant" plan_mirrors g4a-nofa.env
# a q8_0 cache (the assistant's queries rotate as the target's cache does)
# over three slots, and a unified cache at ubatch 64 over four
plan_case g4a-q8 gemma4 "" \
	"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0 $A"
plan_case g4a-ub64 gemma4 "" "CTX_SIZE=9000 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=64 KV_UNIFIED=1 $A"

# the pairings the engine cannot run: check refuses them (S21)
run "$ZEALOT" synth llama --set vocab=512 -o "$TMP/llama.gguf"
sed "s#$TMP/g4a.gguf#$TMP/llama.gguf#" g4a-fa.env >notassist.env
run "$ZEALOT" check notassist.env
check "check refuses draft-mtp with a drafter that is not a gemma4-assistant (S21)" \
	eval "[ $rc -ne 0 ] && grep -q 'S21.*SPEC_DRAFT_MODEL_FILE' '$TMP/out'"
sed 's/^SPEC_TYPE=.*/SPEC_TYPE=draft-simple/' g4a-fa.env >simple.env
run "$ZEALOT" check simple.env
check "check refuses a gemma4-assistant as draft-simple (S21)" \
	eval "[ $rc -ne 0 ] && grep -q 'S21.*SPEC_TYPE' '$TMP/out'"
run "$ZEALOT" synth gemma4-assistant --set embd_out=512 -o "$TMP/g4a512.gguf"
sed "s#$TMP/g4a.gguf#$TMP/g4a512.gguf#" g4a-fa.env >wide.env
run "$ZEALOT" check wide.env
check "check refuses an assistant of another hidden width (S21)" \
	eval "[ $rc -ne 0 ] && grep -q 'S21' '$TMP/out' && grep -q 'embedding_length_out' '$TMP/out'"
run "$ZEALOT" check g4a-fa.env
check "check admits the gemma4 target with its assistant (no S06, S20, S21)" \
	eval "! grep -qE 'S06|S20|S21' '$TMP/out'"

# archs names it mirrored, as a drafter, and S18 still refuses it as MODEL_FILE
run "$ZEALOT" archs --json
check "archs counts gemma4-assistant mirrored, not served as a model" \
	jq -e '.archs[]|select(.arch=="gemma4-assistant")|.mirrored and (.served|not)' "$TMP/out"
printf 'MODEL_FILE=%s\nCTX_SIZE=4096\n' "$TMP/g4a.gguf" >alone.env
run "$ZEALOT" check alone.env
check "check still refuses the assistant as MODEL_FILE (S18)" eval "[ $rc -ne 0 ] && grep -q 'S18' '$TMP/out'"

echo "# worst compute error: ${PLAN_WORST}%"
