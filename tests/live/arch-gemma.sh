# gemma3n against the real engine (src/models/gemma3n.cpp): synthetic
# payloads with the altup streams, laurel branches and per-layer token
# embeddings the engine requires, booted through `zealot argv`
# (boot_for_ledger), each answering /health and a completion
# (check_answered); every model, KV and output term of the plan equals the
# boot ledger and every compute buffer is within 0.5 % of it, over flash
# attention on and off, one to four slots, ubatches of 64 to 1024 and a
# quantized cache. The KV-sharing rule is held by its own checks: the
# engine gives the first 20 layers a cache (n_layer_kv_from_start = 20, no
# key), and the later layers read layer 18's (window) or 19's (full). The
# worst compute error of each family is printed as a TAP comment.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh"
cd "$TMP" || exit 1

PLAN_TOL_PCT=0.5

# The ledger's figure of TERM's FIELD (layers, cells) in NAME.cmp.
ledger_of() { # NAME TERM FIELD
	jq -r --arg t "$2" --arg p "$3" '.comparison[]|select(.term==$t and .part==$p)|.ledger' "$1.cmp" 2>/dev/null
}
# plan_case, then: the plan mirrors ARCH's graph (no estimate).
mirrored_case() { # NAME ARCH "synth sets" "KEY=VALUE ..."
	plan_case "$@" || return
	check "$1: the plan mirrors $2's graph (no estimate)" \
		sh -c "! '$ZEALOT' plan '$1.env' 2>&1 | grep -qi 'not mirrored'"
}
# four shapes: FA on with two slots, FA off with one, a small ubatch over
# a unified cache, a q8_0 cache (rotated: head 64) with three slots
shapes() { # PREFIX ARCH "synth sets"
	mirrored_case "$1-fa" "$2" "$3" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
	mirrored_case "$1-nofa" "$2" "$3" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
	mirrored_case "$1-ub64" "$2" "$3" "CTX_SIZE=9000 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=64 KV_UNIFIED=1"
	mirrored_case "$1-q8kv" "$2" "$3" \
		"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
}

run "$ZEALOT" archs
check "archs: gemma3n is mirrored" grep -qE '^ *gemma3n +mirrored ' "$TMP/out"

# --- gemma3n: 25 layers, a window on 4 of 5; 20 layers with a cache ---
G3N="layers=25 embd=256 heads=4 kv_heads=2 head_dim=64 ff=512 vocab=4096"
shapes g3n gemma3n "$G3N"
# the KV rule: 16 window and 4 full layers hold a cache, the other 5 none
check "g3n-fa: the engine caches 4 full layers (20..24 share)" test "$(ledger_of g3n-fa kv layers)" = 4
check "g3n-fa: the engine caches 16 window layers" test "$(ledger_of g3n-fa kv_swa layers)" = 16
# at 20 layers or fewer every layer has its own cache
mirrored_case g3n-12 gemma3n "layers=12 embd=512 heads=8 kv_heads=4 head_dim=64 ff=1024 vocab=4096 swa=256" \
	"CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
check "g3n-12: 12 layers, 12 caches (2 full + 10 window)" \
	test "$(ledger_of g3n-12 kv layers)+$(ledger_of g3n-12 kv_swa layers)" = "2+10"
# a window pattern of 4 (the key), 30 layers as E2B: 10 layers share
mirrored_case g3n-p4 gemma3n "layers=30 embd=256 heads=4 kv_heads=1 head_dim=128 ff=768 vocab=4096 swa_pattern=4" \
	"CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=on UBATCH_SIZE=512"
check "g3n-p4: 20 caches under the window pattern 4 (5 full + 15 window)" \
	test "$(ledger_of g3n-p4 kv layers)+$(ledger_of g3n-p4 kv_swa layers)" = "5+15"
# synth refuses a pattern whose layer 19 is not full after a window layer
run "$ZEALOT" synth gemma3n --set swa_pattern=3 -o p3.gguf
check "synth gemma3n swa_pattern=3 (layer 19 a window layer): refused" rc_is 2

for a in "${!PLAN_WORST_BY[@]}"; do echo "# $a: worst compute error ${PLAN_WORST_BY[$a]}%"; done
