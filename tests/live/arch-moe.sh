# Hybrid and MoE families of issue 24 against the real engine: lfm2moe,
# nemotron_h_moe, mistral4 (deepseek32 has its own suite, arch-ds32.sh).
# Each synthetic payload is booted through
# `zealot argv` (engine.sh boot_for_ledger) and answers /health and a
# completion; every exact term of the plan (model, KV, recurrent state,
# output) equals the boot ledger and every compute buffer is within 0.5 %
# of it (plancase.sh), over flash attention on and off, one to four
# slots, ubatches of 64 to 1024 and a quantized cache; and the plan names
# the graph as mirrored. The worst compute error of each family is
# printed as a TAP comment.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh"
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

# --- lfm2moe: LFM2's short-conv and attention layers; past the dense lead
# the FFN is sigmoid-gated experts with a selection bias, whose routing
# build_moe_ffn expands with the layer ---
mirrored_shapes lfm2moe lfm2moe "layers=6 interval=3 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=1024 ff_exp=256 vocab=4096"
# softmax gating, one expert per token, no dense lead, an attention layer last
mirrored_case lfm2moe-k1 lfm2moe "layers=4 interval=2 lead_dense=0 gating=1 experts=4 experts_used=1 embd=512 heads=8 head_dim=64 rope_dims=64 vocab=4096" \
	"CTX_SIZE=4096 PARALLEL=2 UBATCH_SIZE=128"

# --- nemotron_h_moe: Nemotron-H's mamba2, attention and FFN layers, the
# FFN layers routed squared-ReLU experts (sigmoid over the router's
# logits, a selection bias, normalised and scaled weights) beside a shared
# expert; the routing and the experts are expanded with the layer ---
mirrored_shapes nemoe nemotron_h_moe "layers=8 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=768 ff_exp=256 vocab=4096"
# one expert per token, weights neither normalised nor scaled
mirrored_case nemoe-k1 nemotron_h_moe "layers=6 interval=3 embd=512 heads=8 head_dim=64 rope_dims=64 vocab=4096 experts=4 experts_used=1 w_norm=0 w_scale=0" \
	"CTX_SIZE=4096 PARALLEL=2 UBATCH_SIZE=128"
# latent MoE (Nemotron 3 Super): the experts moe_latent_size wide between
# ffn_latent_down and ffn_latent_up
mirrored_case nemoe-latent nemotron_h_moe "layers=8 embd=512 heads=8 head_dim=64 rope_dims=64 vocab=4096 latent=128" \
	"CTX_SIZE=4096 PARALLEL=2"
mirrored_case nemoe-latent-k1 nemotron_h_moe "layers=6 interval=3 embd=512 heads=8 head_dim=64 rope_dims=64 vocab=4096 experts=4 experts_used=1 latent=256" \
	"CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"

# --- mistral4: Mistral Small 4 is deepseek2's model class (its hparams,
# tensors and graph: MLA, routed experts beside the shared one), whose
# build_arch_graph builds the trunk for every graph type: its MTP draft
# context reserves the whole trunk again ---
mirrored_shapes m4 mistral4 "layers=6 embd=512 vocab=4096 kv_lora=96 rope_dims=32 head_dim=64"
mirrored_case m4-temp mistral4 "temp_scale=1" "CTX_SIZE=4096 PARALLEL=2"
mirrored_case m4-mha mistral4 "mha=1" "CTX_SIZE=4096 PARALLEL=1 FLASH_ATTN=off"
mirrored_case m4-mtp mistral4 "nextn=1" "CTX_SIZE=4096 PARALLEL=2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
check "m4-mtp: the draft context's compute equals the target's (the trunk again)" \
	jq -en 'input | ([.comparison[]|select(.term=="compute" or .term=="draft_compute")|.ledger]|length==2 and .[0]==.[1])' m4-mtp.cmp
if [ -x "$RPC_SERVER" ]; then
	rpc_pair
	mirrored_case m4-mtp-split mistral4 "nextn=1 layers=6" \
		"CTX_SIZE=4096 PARALLEL=2 RPC=$R1,$R2 TENSOR_SPLIT=1,1 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2"
	rpc_stop
else
	echo "# $RPC_SERVER is missing: the placement case is skipped"
fi

# The MLA families' boot death on an AMX host (deepseek2 and mistral4
# alike): with REPACK on, f16 attn_k_b/attn_v_b stacks go to the AMX
# buffer, whose matmul wants contiguous operands, and the graph multiplies
# them by permuted ones: the engine aborts reserving the graph,
# GGML_ASSERT(*cur_backend_id != -1). Law S16 is held to the engine's own
# fate on this host, whatever its CPU: `check --boot-log` raises it
# exactly when the boot died; a geometry whose stacks the AMX buffer
# cannot take (rows not whole 32-row tiles) boots.
fate_() { # NAME ARCH "synth sets"
	local name=$1 s args=() port s16
	for s in $3; do args+=(--set "$s"); done
	must "$ZEALOT" synth "$2" "${args[@]}" -o "$name.gguf" || return 1
	port=$(free_port)
	printf 'RUNTIME=%s\nMODEL_FILE=%s.gguf\nLISTEN_PORT=%s\nDEVICE=cpu\nCTX_SIZE=4096\nPARALLEL=1\nREPACK=1\n' \
		"$SERVER" "$name" "$port" >"$name.env"
	mapfile -t cmd < <("$ZEALOT" argv "$name.env")
	"${cmd[@]}" >"$name.log" 2>&1 &
	local pid=$! fate=died
	engine_ask "$pid" "$port" && fate=answered
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	"$ZEALOT" check --json --boot-log "$name.log" "$name.env" >"$name.check" 2>/dev/null
	s16=$(jq '[.findings[]|select(.law=="S16")]|length' "$name.check")
	local want=answered
	[ "$s16" -eq 0 ] || want=died
	check "$name REPACK=1: S16 raised $s16 time(s), and the engine $fate" test "$fate" = "$want"
	[ "$fate" = "$want" ] || grep -E 'GGML_ASSERT|AMX model' "$name.log" | head -2 | sed 's/^/#   engine: /'
	if [ "$fate" = died ]; then
		check "$name: the engine's message is the scheduler's assert" grep -qF 'GGML_ASSERT(*cur_backend_id != -1) failed' "$name.log"
	fi
}
fate_ m4-amx mistral4 ""
fate_ m4-amx-untiled mistral4 "kv_lora=48 head_dim_v=48"
fate_ ds2-amx deepseek2 ""

for a in "${!PLAN_WORST_BY[@]}"; do echo "# worst compute error: $a ${PLAN_WORST_BY[$a]}%"; done
