# Embedding servers against the real engine: bert (src/models/bert.cpp),
# and nomic-bert, jina-bert-v2 and jina-bert-v3 over its graph:
# non-causal encoders the engine gives no memory; eurobert, neo-bert and
# llama-embed (llama's block over the ubatch; llama-embed keeps the
# default KV cache), gemma-embedding (gemma3's block over the ubatch, no
# memory) and the diffusion decoders dream, llada, llada-moe and rnd1
# (the same with the lm_head, no memory). Each synthetic payload
# boots through `zealot argv` with EMBEDDINGS=on (--embeddings) and
# answers /v1/embeddings with one vector of embd floats; every exact term
# of the plan (model, output: logits and an embedding per slot; no KV
# line in the plan or the boot) equals the boot ledger and every compute
# buffer (the encoder over the ubatch, then the pooling) is within 0.5 %
# of it, with flash attention and without (V's transposed copy comes
# before KQ in the graph), over mean, cls and last pooling and one to
# four slots. A reranker (POOLING=rank) passes the rerank probe against
# /v1/rerank, and emit harness writes its embedding entry.
# One boot without EMBEDDINGS holds the plain output buffer.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # plan_mirrors
. "$(dirname "$0")/../embdcase.sh" # ecase
cd "$TMP" || exit 1

BIG="layers=6 embd=512 heads=8 head_dim=64 rope_dims=64 ff=2048 vocab=8192"
ecase bert-mean "$BIG" "CTX_SIZE=512 PARALLEL=2 FLASH_ATTN=on EMBEDDINGS=on" 512
ecase bert-cls-nofa "$BIG" "CTX_SIZE=2048 PARALLEL=4 FLASH_ATTN=off UBATCH_SIZE=256 EMBEDDINGS=on POOLING=cls" 512
ecase bert-small "" "CTX_SIZE=512 PARALLEL=1 FLASH_ATTN=on UBATCH_SIZE=128 EMBEDDINGS=on POOLING=last" 256
ecase bert-big-nofa "$BIG" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=1024 BATCH_SIZE=1024 EMBEDDINGS=on" 512
# a reranker (POOLING=rank): the rerank probe and the harness entry
ecase bert-rank "" "CTX_SIZE=1024 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=256 EMBEDDINGS=on POOLING=rank" 256
check "bert-rank: emit harness says an embedding endpoint, inputs up to the ubatch, no completions" \
	sh -c "'$ZEALOT' emit harness bert-rank.env | tr '\\n' ' ' | grep -q 'kind: embedding .*maxInputTokens: 256 .*dimensions: 256 .*pooling: rank .*completions: false'"
ecase bert-cls4 "$BIG" "CTX_SIZE=2048 PARALLEL=4 FLASH_ATTN=on UBATCH_SIZE=256 EMBEDDINGS=on POOLING=cls" 512
# without --embeddings the output buffer holds logits alone, and no pooling
ecase bert-noembd "$BIG" "CTX_SIZE=512 PARALLEL=2 FLASH_ATTN=on"
# bert.cpp's other encoders: nomic-bert (roped, SiLU-gated, no biases),
# jina-bert-v2 (ALiBi, no positions, GELU-gated) and jina-bert-v3 (roped
# bert), with flash attention and without
ARCH=nomic-bert ecase nomic-fa "$BIG" "CTX_SIZE=2048 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=256 EMBEDDINGS=on" 512
ARCH=nomic-bert ecase nomic-nofa "$BIG" "CTX_SIZE=1024 PARALLEL=1 FLASH_ATTN=off EMBEDDINGS=on POOLING=cls" 512
ARCH=jina-bert-v2 ecase jina2-fa "$BIG" "CTX_SIZE=2048 PARALLEL=4 FLASH_ATTN=on UBATCH_SIZE=256 EMBEDDINGS=on" 512
ARCH=jina-bert-v2 ecase jina2-nofa "" "CTX_SIZE=512 PARALLEL=2 FLASH_ATTN=off EMBEDDINGS=on POOLING=mean" 256
ARCH=jina-bert-v3 ecase jina3-fa "" "CTX_SIZE=1024 PARALLEL=2 FLASH_ATTN=on EMBEDDINGS=on POOLING=last" 256
ARCH=jina-bert-v3 ecase jina3-nofa "$BIG" "CTX_SIZE=2048 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=512 EMBEDDINGS=on" 512
# llama-embed: llama's graph<true> (attention over the ubatch, no lm_head)
ARCH=llama-embed ecase lembed-fa "$BIG" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=on EMBEDDINGS=on POOLING=last" 512
ARCH=llama-embed ecase lembed-nofa "" "CTX_SIZE=2048 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=256 EMBEDDINGS=on POOLING=mean" 256
# eurobert: the same llama block over the ubatch, no output matrix at all
ARCH=eurobert ecase euro-fa "$BIG" "CTX_SIZE=2048 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512 EMBEDDINGS=on POOLING=mean" 512
ARCH=eurobert ecase euro-nofa "" "CTX_SIZE=1024 PARALLEL=1 FLASH_ATTN=off EMBEDDINGS=on POOLING=cls" 256
# neo-bert: the same over one attn_qkv, a SwiGLU from one ffn_up
ARCH=neo-bert ecase neo-fa "$BIG" "CTX_SIZE=2048 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512 EMBEDDINGS=on POOLING=mean" 512
ARCH=neo-bert ecase neo-nofa "" "CTX_SIZE=1024 PARALLEL=2 FLASH_ATTN=off EMBEDDINGS=on POOLING=last" 256
# gemma-embedding: gemma3's block over the ubatch (symmetric sliding
# window, no memory), the final norm is t_embd, the tied output unused
ARCH=gemma-embedding ecase gembd-fa "$BIG" "CTX_SIZE=2048 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512 EMBEDDINGS=on POOLING=mean" 512
ARCH=gemma-embedding ecase gembd-nofa "" "CTX_SIZE=1024 PARALLEL=1 FLASH_ATTN=off EMBEDDINGS=on POOLING=cls" 256
# the diffusion decoders: llama's graph over the ubatch with the lm_head;
# no memory, so llama-server computes no logits (every completion HTTP
# 500), which check names (S18)
ARCH=dream ecase dream-fa "$BIG" "CTX_SIZE=2048 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512 EMBEDDINGS=on POOLING=mean" 512
ARCH=llada ecase llada-nofa "" "CTX_SIZE=1024 PARALLEL=1 FLASH_ATTN=off EMBEDDINGS=on POOLING=cls" 256
# llada-moe and rnd1: the same over qwen3moe's tensors (q and k normed,
# experts; rnd1 normalises the chosen experts' weights, llada-moe not)
ARCH=llada-moe ecase lmoe-fa "layers=3 experts=8 experts_used=2" "CTX_SIZE=2048 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512 EMBEDDINGS=on POOLING=mean" 256
ARCH=rnd1 ecase rnd1-nofa "layers=3 experts=4 experts_used=1" "CTX_SIZE=1024 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256 EMBEDDINGS=on POOLING=cls" 256
for n in dream-fa llada-nofa lmoe-fa rnd1-nofa; do
	check "$n: llama-server answers a completion with the error S18 quotes" \
		jq -e '.error.code == 500 and (.error.message|test("does not logits computation"))' "$n.comp"
	run "$ZEALOT" check --json "$n.env"
	check "$n: check names it not served by llama-server (S18)" \
		jq -e '[.findings[]|select(.law=="S18" and .severity=="error")]|length == 1' "$TMP/out"
done
# modern-bert (src/models/modern-bert.cpp): layer norms without biases
# (none before layer 0's attention), one attn_qkv roped, a GEGLU from
# one ffn_up, the final norm t_embd
ARCH=modern-bert ecase modern-fa "$BIG kv_heads=8" "CTX_SIZE=2048 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512 EMBEDDINGS=on POOLING=mean" 512
ARCH=modern-bert ecase modern-nofa "" "CTX_SIZE=1024 PARALLEL=2 FLASH_ATTN=off EMBEDDINGS=on POOLING=cls" 256
