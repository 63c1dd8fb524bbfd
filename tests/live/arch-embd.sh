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
cd "$TMP" || exit 1

# embd_boot NAME "KEY=VALUE ...": NAME.env serving NAME.gguf on the cpu
# profile, booted through `zealot argv`; one /v1/embeddings request (its
# answer in NAME.json, its HTTP status in EMBD_HTTP) and one /completion
# (its answer in NAME.comp); the engine stopped
# by PID, its log in NAME.log.
embd_boot() {
	local name=$1 keys=$2 s pid port cmd
	port=$(free_port)
	{
		echo "RUNTIME=$SERVER"
		echo "MODEL_FILE=$name.gguf"
		echo "LISTEN_PORT=$port"
		echo "DEVICE=cpu"
		echo "ADDRESSABLE_MIB=20000"
		echo "SLACK_MIB=0"
		echo "EXTRA_ARGS=--threads 1"
		for s in $keys; do echo "$s"; done
	} >"$name.env"
	mapfile -t cmd < <("$ZEALOT" argv "$name.env")
	"${cmd[@]}" >"$name.log" 2>&1 &
	pid=$!
	EMBD_HTTP=none
	if engine_up "$pid" "$port"; then
		EMBD_HTTP=$(curl -s -m 60 -o "$name.json" -w '%{http_code}' -H 'Content-Type: application/json' \
			-d '{"input":"The sky is blue"}' "http://127.0.0.1:$port/v1/embeddings")
		"$ZEALOT" probe "http://127.0.0.1:$port" --endpoint "$name.env" --only embeddings,rerank --json \
			>"$name.probe" 2>&1
		curl -s -m 60 -o "$name.comp" -H 'Content-Type: application/json' \
			-d '{"prompt":"The sky is","n_predict":2}' "http://127.0.0.1:$port/completion"
	fi
	stop_pid "$pid"
}

# ecase NAME "synth sets" "KEY=VALUE ..." [embd]: synth a bert (ARCH=A
# ecase ...: another encoder), boot it, hold the plan to the ledger; with
# embd, the answer is one vector of embd floats.
ecase() {
	local name=$1 sets=$2 keys=$3 embd=${4:-} s args=() err arch=${ARCH:-bert}
	for s in $sets; do args+=(--set "$s"); done
	"$ZEALOT" synth "$arch" "${args[@]}" -o "$name.gguf" >/dev/null 2>"$name.synth" ||
		{ check "$name: synth $arch writes it" false; return; }
	embd_boot "$name" "$keys"
	if [ -n "$embd" ]; then
		check "$name: /v1/embeddings answers one vector of $embd floats" \
			jq -e --argjson n "$embd" '(.data|length) == 1 and (.data[0].embedding|length) == $n' "$name.json"
		check "$name: the embeddings probe passes, a vector of n_embd = $embd floats" \
			grep -q "a vector of $embd floats = n_embd" "$name.probe"
	fi
	if [ -z "$embd" ]; then
		check "$name: without EMBEDDINGS=on the embeddings probe is skipped" \
			grep -q 'does not set EMBEDDINGS=on' "$name.probe"
	fi
	case " $keys " in
	*" POOLING=rank "*)
		check "$name: the rerank probe passes against /v1/rerank" \
			jq -e '.probes[]|select(.name=="rerank" and .status=="pass")' "$name.probe"
		check "$name: emit harness names the rerank path" sh -c "'$ZEALOT' emit harness '$name.env' | grep -q 'path: /v1/rerank'" ;;
	*) check "$name: the rerank probe is skipped without POOLING=rank" \
		jq -e '.probes[]|select(.name=="rerank" and .status=="skip")' "$name.probe" ;;
	esac
	run "$ZEALOT" ledger "$name.log" --endpoint "$name.env" --json
	check "$name ($arch $sets | $keys): every exact term equals the ledger" rc_is 0
	[ "$rc" -eq 0 ] || jq -c '.comparison[]|select(.match==false)' "$TMP/out" 2>/dev/null | head -5 | sed 's/^/#   /'
	cp "$TMP/out" "$name.cmp"
	check "$name: the plan mirrors $arch's graph (exact, nothing unmirrored)" plan_mirrors "$name.env"
	if [ "$arch" = llama-embed ]; then # create_memory makes it the default cache, unused
		check "$name: the KV cache the engine still makes equals the plan's" \
			jq -e '[.comparison[]|select(.term=="kv")]|length > 0 and all(.match)' "$name.cmp"
	else
		check "$name: no KV cache, in the boot or the plan" \
			sh -c "! grep -q 'KV buffer size' '$name.log' && ! jq -e '.comparison[]|select(.term==\"kv\")' '$name.cmp' >/dev/null"
	fi
	err=$(jq '[.comparison[]|select(.term|test("compute"))|if (.diff|fabs) <= 0.01 then 0 else (.error_pct|fabs) end]|max // 0' \
		"$name.cmp" 2>/dev/null)
	check "$name: every compute buffer within 0.5% of the ledger ($err%)" \
		awk -v e="${err:-999}" 'BEGIN { exit !(e <= 0.5) }'
	jq -r '.comparison[]|select(.term=="output" or (.term|test("compute")))|"#   \(.term) \(.part): plan \(.plan) ledger \(.ledger) (\(.error_pct)%)"' "$name.cmp" 2>/dev/null
}

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
