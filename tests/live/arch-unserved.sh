# Architectures llama-server loads but does not serve (law S18), mirrored
# all the same against the real engine: the plan of what a boot allocates
# is exact whatever the model is for. qwen3tts (the talker of a
# text-to-speech pipeline: qwen3vl's hparams, tensors and graph, IMRoPE)
# and pockettts (pocket-tts's text backbone: layer norms with biases,
# RoPE, a GELU FFN, no lm_head: the logits come from the token embedding)
# and t5 (the encoder-decoder: the context reserves its decoder, whose
# cross-attention spans n_ctx_train rows while nothing was encoded, and
# its output buffer holds logits and embeddings both; the warm-up encodes
# BOS and EOS, so a one-stream boot answers).
# Each synthetic payload boots through `zealot argv`; every exact term
# equals the boot ledger and every compute buffer is within 0.5 %, flash
# attention on and off; check names each one not served (S18).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

UNSERVED="qwen3tts pockettts t5"
run "$ZEALOT" archs
for a in $UNSERVED; do
	check "archs: $a is mirrored and named not served" grep -qE "^ *$a +mirrored .*not served" "$TMP/out"
done

mirrored_case tts-fa qwen3tts "layers=3" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
mirrored_case tts-nofa qwen3tts "layers=3" "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
mirrored_case tts-nopad qwen3tts "layers=2 vocab=3072" "CTX_SIZE=2048 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=128"
mirrored_case pocket-fa pockettts "layers=3" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
mirrored_case pocket-nofa pockettts "layers=3" "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
mirrored_case t5-fa t5 "layers=2 ctx=4096" "CTX_SIZE=4096 PARALLEL=2 KV_UNIFIED=1 FLASH_ATTN=on UBATCH_SIZE=512"
mirrored_case t5-nofa t5 "layers=2" "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
mirrored_case t5-wide t5 "layers=3 ctx=2048 vocab=4096 embd=1024" \
	"CTX_SIZE=2048 PARALLEL=8 KV_UNIFIED=1 FLASH_ATTN=off UBATCH_SIZE=128"
mirrored_case t5-q8kv t5 "layers=2 ctx=2048" \
	"CTX_SIZE=3000 PARALLEL=3 KV_UNIFIED=1 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
mirrored_case t5-ub64 t5 "layers=2 ctx=1024 heads=8 kv_heads=8 head_dim=32 rope_dims=32" \
	"CTX_SIZE=3000 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=64"
# t5 with two slots over two streams: the position bias (n_kv x n_tokens)
# cannot be added to a KQ split by stream, and the engine aborts at its
# first reserve (ggml_add's GGML_ASSERT(ggml_can_repeat(b, a)))
"$ZEALOT" synth t5 --set layers=2 -o t5-streams.gguf 2>t5-streams.synth
boot_for_ledger t5-streams "CTX_SIZE=2048 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=256"
check "t5-streams: the pinned engine aborts at reserve over two KV streams" \
	grep -q 'GGML_ASSERT(ggml_can_repeat(b, a)) failed' t5-streams.log
for n in tts-fa pocket-fa t5-fa; do
	run "$ZEALOT" check --json "$n.env"
	check "$n: check names it not served by llama-server (S18)" \
		jq -e '[.findings[]|select(.law=="S18" and .severity=="error")]|length == 1' "$TMP/out"
done

for a in "${!PLAN_WORST_BY[@]}"; do echo "# worst compute error: $a ${PLAN_WORST_BY[$a]}%"; done
