# A separate drafter model (SPEC_TYPE=draft-simple, SPEC_DRAFT_MODEL_FILE)
# against the real engine: a synthetic llama target and a smaller llama
# drafter of the same vocabulary boot through `zealot argv` and answer a
# completion; the plan prices the drafter as its own terms (its weights per
# buffer, its KV cache, its output and compute buffers: common/speculative.cpp
# gives its context the target's n_ctx and slots, the draft cache types and
# one output per slot) and every exact term equals the boot ledger, every
# compute buffer (the target's, whose outputs grow by the draft depth, and
# the drafter's) within 0.5 %, flash attention on and off. A drafter of
# another vocabulary is refused by check (law S20) as the engine refuses
# it (common_speculative_are_compatible), after loading it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # plan_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

TARGET="layers=4 vocab=1024"
DRAFT="layers=2 embd=256 heads=4 kv_heads=2 head_dim=64 ff=512 vocab=1024"
run "$ZEALOT" synth llama --set layers=2 --set embd=256 --set heads=4 --set kv_heads=2 --set head_dim=64 \
	--set ff=512 --set vocab=1024 -o "$TMP/dft.gguf"
check "synth llama writes the drafter ($DRAFT)" rc_is 0
D="SPEC_TYPE=draft-simple SPEC_DRAFT_MODEL_FILE=$TMP/dft.gguf"

# argv renders the drafter inside the speculative set, once
printf 'MODEL_FILE=%s\nCTX_SIZE=4096\n%s\n' "$TMP/dft.gguf" "$(printf '%s\n' $D)" >argv.env
run "$ZEALOT" argv argv.env
check "argv renders --spec-draft-model after --spec-type draft-simple" \
	eval "tr '\n' ' ' <'$TMP/out' | grep -q -- '--spec-type draft-simple --spec-draft-model $TMP/dft.gguf '"

plan_case simple-fa llama "$TARGET" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on $D SPEC_DRAFT_N_MAX=3"
# CMP compares the drafter's weights (term draft_model) apart from the target's
draft_model_compared() { jq -e '[.comparison[]|select(.term=="draft_model")]|length > 0' "$1" >/dev/null; }
check "simple-fa: the ledger holds the drafter's weights apart from the target's" \
	draft_model_compared simple-fa.cmp
check "simple-fa: the plan mirrors both graphs (exact, nothing unmirrored)" plan_mirrors simple-fa.env
run "$ZEALOT" plan simple-fa.env
check "plan lists the drafter's weights as draft_model rows" grep -qE '^draft_model +(AMX|CPU)' "$TMP/out"
plan_case simple-nofa llama "$TARGET" \
	"CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256 $D SPEC_DRAFT_N_MAX=2 SPEC_DRAFT_TYPE_K=q8_0"
plan_case simple-p3 llama "$TARGET" \
	"CTX_SIZE=6144 PARALLEL=3 KV_UNIFIED=on UBATCH_SIZE=128 $D SPEC_DRAFT_N_MAX=4"

# another vocabulary: check refuses it (S20); the engine refuses it after
# loading it (tools/server/server-context.cpp: an error line, then it serves
# on without drafting, the drafter's memory held)
run "$ZEALOT" synth llama --set layers=2 --set vocab=512 -o "$TMP/dft512.gguf"
sed "s#$TMP/dft.gguf#$TMP/dft512.gguf#" simple-fa.env >bad.env
run "$ZEALOT" check bad.env
check "check refuses a drafter of another vocabulary (S20)" \
	eval "[ $rc -ne 0 ] && grep -q 'S20.*SPEC_DRAFT_MODEL_FILE' '$TMP/out'"
cp simple-fa.gguf badvocab.gguf
boot_for_ledger badvocab "CTX_SIZE=4096 PARALLEL=2 SPEC_TYPE=draft-simple SPEC_DRAFT_MODEL_FILE=$TMP/dft512.gguf"
check "the engine refuses the same pair (vocabs not compatible) and serves without drafting" \
	eval "grep -q 'the target and draft vocabs are not compatible' badvocab.log && [ \"\$ASK_HTTP\" = 200 ]"

# the drafter file crosses the same gate as MODEL_FILE: it must be there
sed "s#$TMP/dft.gguf#$TMP/gone.gguf#" simple-fa.env >gone.env
run "$ZEALOT" check gone.env
check "check refuses a drafter file that is not there (C03)" \
	eval "[ $rc -ne 0 ] && grep -q 'C03.*SPEC_DRAFT_MODEL_FILE' '$TMP/out'"

# the drafter's pins: fetch --pin writes them, serve's pins gate holds them
cp simple-fa.env pin.env
"$ZEALOT" fetch --pin pin.env >/dev/null 2>&1
check "fetch --pin pins the drafter (SPEC_DRAFT_MODEL_SHA256)" grep -q '^SPEC_DRAFT_MODEL_SHA256=[0-9a-f]\{64\}$' pin.env
sed -i 's/^SPEC_DRAFT_MODEL_SHA256=.*/SPEC_DRAFT_MODEL_SHA256=0000000000000000000000000000000000000000000000000000000000000000/' pin.env
run "$ZEALOT" serve --dry-run pin.env
check "serve refuses a drafter that is not its pinned file" \
	eval "[ $rc -ne 0 ] && grep -q 'pins gate: SPEC_DRAFT_MODEL_FILE' '$TMP/err'"

echo "# worst compute error: ${PLAN_WORST}%"

