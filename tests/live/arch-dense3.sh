# The classic dense decoders against the real engine (src/models/NAME.cpp
# of the pinned engine): layer norms with biases, fused or separate q, k
# and v, GELU or gated FFNs, partial RoPE (phi2, stablelm, gptneox),
# learned positions (gpt2, starcoder), ALiBi (mpt, bloom, refact, jais),
# the parallel blocks (phi2, falcon, gptneox, plamo), squared-ReLU FFNs
# (jais2, nemotron), chameleon's image logits, bitnet's sub-norms,
# chatglm's and plamo3's fused SwiGLU (plamo3's post norms) and talkie's
# weightless norms and scaled skip, deci's layer without KV heads,
# openelm's per-layer geometry (written uniform) and residual-first add,
# pangu-embedded (llama's block, an attn_output bias). Each synthetic payload boots
# through `zealot argv` (boot_for_ledger) and answers; every exact term of
# the plan (model, KV, output) equals the boot ledger and every compute
# buffer is within 0.5 % of it, flash attention on and off.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

CLASSIC="starcoder2 phi2 stablelm olmo qwen gpt2 gptneox falcon mpt bloom starcoder refact codeshell jais jais2
	nemotron plamo chameleon bitnet chatglm plamo3 talkie nanbeige deci openelm
	pangu-embedded"
run "$ZEALOT" archs
for a in $CLASSIC; do
	check "archs: $a is mirrored" grep -qE "^ *$a +mirrored " "$TMP/out"
done

# gptj: a name the engine knows without a builder (llama_model_mapping has
# no case for it), so archs names it refused, with the engine's words
check "archs: gptj is refused, the engine's reason given" \
	grep -qE '^ *gptj +refused .*unsupported model architecture' "$TMP/out"

SMALL="layers=3 vocab=1024"
for a in $CLASSIC; do
	sets=$SMALL
	[ "$a" = chameleon ] && sets="layers=3" # its graph sets the logits of tokens 4 .. 8195
	mirrored_case "$a-fa" "$a" "$sets" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
	mirrored_case "$a-nofa" "$a" "$sets" "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
done

# placement: learned positions are the input layer's (gpt2: the host),
# the embeddings' norm layer 0's (bloom: the first server), split over
# two rpc-servers; every exact term per device equal, compute within 0.5 %
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	for a in gpt2 bloom; do
		mirrored_case "$a-split" "$a" "$SMALL" "CTX_SIZE=4096 PARALLEL=1 RPC=$R1,$R2 TENSOR_SPLIT=1,1 FLASH_ATTN=off"
	done
	# chameleon's image-logit leaf follows its consumer (the output layer, on
	# the server with -ngl 2), not the host as an input would
	mirrored_case chameleon-rpc chameleon "layers=3" "CTX_SIZE=4096 PARALLEL=2 RPC=$R1 NGL=2"
	rpc_stop
else
	echo "# $RPC_SERVER is missing: the placement cases are skipped"
fi

for a in "${!PLAN_WORST_BY[@]}"; do echo "# worst compute error: $a ${PLAN_WORST_BY[$a]}%"; done
