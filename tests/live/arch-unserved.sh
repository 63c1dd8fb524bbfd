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
# wavtokenizer-dec (a vocoder: a conv stem, a posnet of resnet, attention
# and group-norm blocks, convnext blocks with depthwise convs, an output
# projection embd_out wide) boots when two slots or more are asked for and
# refuses every completion (no logits); with one slot its warm-up (two
# tokens through encode) aborts in output_reserve, which a case holds.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

UNSERVED="qwen3tts pockettts t5 wavtokenizer-dec"
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
# wavtokenizer-dec: no completion to ask a vocoder for; the boot, the
# ledger and the plan's mirror are what a case holds
wavcase() {
	local name=$1 sets=$2 keys=$3 s args=()
	for s in $sets; do args+=(--set "$s"); done
	must "$ZEALOT" synth wavtokenizer-dec "${args[@]}" -o "$name.gguf" || return
	boot_for_ledger "$name" "$keys"
	check "$name: llama-server boots it (/health 200) and refuses a completion (HTTP 500: no logits)" \
		test "$ASK_HEALTH" = 200 -a "$ASK_HTTP" = 500 -a -z "$ASK_EXIT"
	plan_ledger "$name" wavtokenizer-dec
	check "$name: the plan mirrors wavtokenizer-dec's graph (exact, nothing unmirrored)" plan_mirrors "$name.env"
}
wavcase wav-fa "" "CTX_SIZE=2048 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
wavcase wav-nofa "layers=8 embd=384 ff=1024" "CTX_SIZE=1024 PARALLEL=3 FLASH_ATTN=off UBATCH_SIZE=256"
wavcase wav-embd "layers=7 embd=128 ff=768 vocab=1024" \
	"CTX_SIZE=4096 PARALLEL=4 FLASH_ATTN=on UBATCH_SIZE=1024 BATCH_SIZE=1024 EMBEDDINGS=on"
# over an rpc-server (half the layers offloaded): exact per device; over
# two (a split 1:1) the blocks take turns on them, the scheduler's copies
# between the turns are not replayed: the plan says so (one device's
# compute measured 27 % low)
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	wavcase wav-rpc "layers=7 embd=256 ff=1024" "CTX_SIZE=2048 PARALLEL=2 RPC=$R1 NGL=4"
	must "$ZEALOT" synth wavtokenizer-dec -o wav-split.gguf
	printf '%s\n' "MODEL_FILE=wav-split.gguf" "DEVICE=cpu" "CTX_SIZE=2048" "PARALLEL=2" "RPC=$R1,$R2" \
		"TENSOR_SPLIT=1,1" >wav-split.env
	run "$ZEALOT" plan --json wav-split.env
	check "wav-split: over two devices the plan names its compute not mirrored" \
		jq -e '.exact == false and any(.unmirrored[]; test("wavtokenizer-dec.*several devices"))' "$TMP/out"
	rpc_stop
else
	echo "# $RPC_SERVER is missing: the placement cases are skipped"
fi
# one slot: the warm-up decodes two tokens, encode reserves two outputs,
# the context allows one (n_outputs_max = PARALLEL): the engine aborts
must "$ZEALOT" synth wavtokenizer-dec -o wav-one.gguf
boot_for_ledger wav-one "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=on REPACK=0"
check "wav-one: one slot, the engine dies in its warm-up (status ${ASK_EXIT:-none})" \
	test "${ASK_EXIT:-0}" -gt 128
check "wav-one: in its own words (llama-context.cpp: n_outputs_max <= cparams.n_outputs_max)" \
	grep -q 'GGML_ASSERT(n_outputs_max <= cparams.n_outputs_max) failed' wav-one.log

for n in tts-fa pocket-fa t5-fa wav-fa; do
	run "$ZEALOT" check --json "$n.env"
	check "$n: check names it not served by llama-server (S18)" \
		jq -e '[.findings[]|select(.law=="S18" and .severity=="error")]|length == 1' "$TMP/out"
done

for a in "${!PLAN_WORST_BY[@]}"; do echo "# worst compute error: $a ${PLAN_WORST_BY[$a]}%"; done
