# Three small architectures against the real engine (src/models/NAME.cpp
# of the pinned engine): nomic-bert-moe (bert.cpp's graph, roped, with
# routed GELU experts in place of the FFN in layer il where
# il % moe_every_n_layers == 1: an embedding server with no memory),
# t5encoder (t5.cpp's encoder graph: a relative position bias on KQ, an
# embedding server over an unused KV cache) and graniteswitch (granite
# with switched LoRA deltas on every matrix, an adapter index a router
# head recovers from its own KV layer after the trunk). Each synthetic
# payload boots through `zealot argv`; every exact term of the plan
# equals the boot ledger and every compute buffer is within 0.5 % of it,
# flash attention on and off.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_case, plan_mirrors
. "$(dirname "$0")/../embdcase.sh" # ecase
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

SMALL="nomic-bert-moe t5encoder graniteswitch"
run "$ZEALOT" archs
for a in $SMALL; do
	check "archs: $a is mirrored" grep -qE "^ *$a +mirrored " "$TMP/out"
done

# nomic-bert-moe: 4 experts, 2 a token, on layers 1 and 3 of 4; then
# one expert a token (the sum made contiguous) on layers 1 and 4 of 5,
# the experts wide enough that their nodes, not KQ, make the peak
NBM="layers=4 embd=256 heads=4 head_dim=64 ff=512 vocab=1024"
ARCH=nomic-bert-moe ecase nbm-fa "$NBM" "CTX_SIZE=1024 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512 EMBEDDINGS=on POOLING=mean" 256
ARCH=nomic-bert-moe ecase nbm-nofa "$NBM layers=5 interval=3 experts=8 experts_used=1 heads=2 kv_heads=2 head_dim=128 ff=2048" \
	"CTX_SIZE=1024 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=512 EMBEDDINGS=on POOLING=cls" 256

# t5encoder: T5's encoder alone (relative position buckets, a KQ bias
# that keeps it off flash attention, a GELU-gated FFN); the engine makes
# it the default KV cache, unused, which the plan prices. One slot or a
# unified cache: with more streams the engine aborts at load.
T5="layers=4 embd=256 heads=4 head_dim=64 ff=512 vocab=1024"
ARCH=t5encoder ecase t5-fa "$T5" "CTX_SIZE=1024 PARALLEL=1 FLASH_ATTN=on UBATCH_SIZE=512 EMBEDDINGS=on POOLING=mean" 256
ARCH=t5encoder ecase t5-nofa "$T5 heads=8 kv_heads=8 head_dim=32 rope_dims=32" \
	"CTX_SIZE=2048 PARALLEL=2 KV_UNIFIED=1 FLASH_ATTN=off UBATCH_SIZE=256 EMBEDDINGS=on POOLING=cls" 256
# two slots over two streams: the engine sizes it (every term held to its
# ledger) but aborts at load, at the first decode (common_context_can_seq_rm)
"$ZEALOT" synth t5encoder $(printf -- '--set %s ' $T5) -o t5-streams.gguf 2>t5-streams.synth
embd_boot t5-streams "CTX_SIZE=1024 PARALLEL=2 FLASH_ATTN=on EMBEDDINGS=on POOLING=mean"
check "t5-streams: the pinned engine aborts at load on a ubatch split by streams" \
	grep -q 'GGML_ASSERT(!ubatch->equal_seqs()) failed' t5-streams.log
plan_ledger t5-streams t5encoder
run "$ZEALOT" check --json t5-streams.env
check "t5-streams: check names the shape (S19, an error on KV_UNIFIED)" \
	jq -e '[.findings[]|select(.law=="S19" and .severity=="error")]|length == 1' "$TMP/out"

# graniteswitch: granite's block with switched LoRA deltas on every matrix
# (3 adapters of rank 32), and the router's one head on its own KV layer
# after the trunk
GS="layers=4 embd=256 heads=4 kv_heads=2 head_dim=64 ff=512 vocab=1024"
mirrored_case gs-fa graniteswitch "$GS" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
mirrored_case gs-nofa graniteswitch "$GS" "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
mirrored_case gs-q8kv graniteswitch "$GS heads=8 kv_heads=8 head_dim=32 rope_dims=32" \
	"CTX_SIZE=3000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"

for a in "${!PLAN_WORST_BY[@]}"; do echo "# worst compute error: $a ${PLAN_WORST_BY[$a]}%"; done
