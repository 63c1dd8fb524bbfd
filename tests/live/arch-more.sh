# More families against the real engine: seed_oss, smollm3, olmo2,
# granite, granitemoe, qwen2moe, olmoe, ernie4_5-moe, hunyuan-moe, exaone,
# ernie4_5, deepseek, exaone4, glm4, phimoe, qwen3vl, qwen3vlmoe,
# hunyuan-dense, xverse, baichuan, minicpm, qwen2vl, maincoder, internlm2,
# arcee, apertus, mellum, orion, gemma2. Each
# synthetic payload is booted through `zealot argv` (boot_for_ledger) and
# answers /health and a completion
# (check_answered); every KV, model and output term of the plan equals the
# boot ledger and every compute buffer is within 0.5 % of it, over flash
# attention on and off, one to four slots, ubatches of 64 to 1024 and a
# quantized cache. The worst compute error of each family is printed as a
# TAP comment.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_shapes: the four shapes, through case_ below
cd "$TMP" || exit 1

declare -A worst
# The ledger named this buffer in a line of TERM (kv, kv_swa, model).
has_line() { # NAME TERM BUFFER
	jq -en --arg t "$2" --arg b "$3" 'input | ([.comparison[]|select(.term==$t and .part==$b and .ledger > 0)]|length>=1)' \
		"$1.cmp" >/dev/null
}
# case_ NAME ARCH "synth sets" "KEY=VALUE ..."
case_() {
	local name=$1 arch=$2 sets=$3 keys=$4 s args=() err rel
	for s in $sets; do args+=(--set "$s"); done
	if ! "$ZEALOT" synth "$arch" "${args[@]}" -o "$name.gguf" 2>"$name.synth"; then
		check "$name: synth $arch writes it" false
		sed 's/^/#   /' "$name.synth"
		return
	fi
	boot_for_ledger "$name" "$keys"
	check_answered "$name" "$name.log"
	run "$ZEALOT" ledger "$name.log" --endpoint "$name.env" --json
	check "$name ($arch $sets | $keys): every exact term equals the ledger" rc_is 0
	[ "$rc" -eq 0 ] || jq -c '.comparison[]|select(.match==false)' "$TMP/out" 2>/dev/null | head -5 | sed 's/^/#   /'
	cp "$TMP/out" "$name.cmp"
	check "$name: the plan mirrors $arch's graph (no estimate)" \
		plan_mirrors "$name.env"
	# a buffer of a few KiB prints as 0.01 MiB: within the print's resolution it is a match
	err=$(jq '[.comparison[]|select(.term|test("compute"))|if (.diff|fabs) <= 0.01 then 0 else (.error_pct|fabs) end]|max // 0' \
		"$name.cmp" 2>/dev/null)
	rel=$(jq '[.comparison[]|select((.term|test("compute")) and .ledger >= 1)|.error_pct|fabs]|max // 0' "$name.cmp" 2>/dev/null)
	check "$name: every compute buffer within 0.5% of the ledger (worst ${rel}%)" \
		awk -v e="${err:-999}" 'BEGIN { exit !(e <= 0.5) }'
	awk -v e="${rel:-0}" -v w="${worst[$arch]:-0}" 'BEGIN { exit !(e > w) }' && worst[$arch]=$rel
	jq -r '.comparison[]|select(.term=="kv" or .term=="kv_swa" or (.term|test("compute")))|select(.part|test("^[A-Z]"))|"#   \(.term) \(.part): plan \(.plan) ledger \(.ledger) (\(.error_pct)%)"' "$name.cmp" 2>/dev/null
}

DENSE="layers=6 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=1024 vocab=4096"

# --- seed_oss: llama's block, the FFN norm named post_attention_norm ---
mirrored_shapes seed seed_oss "$DENSE" case_

# --- smollm3: llama's block without RoPE on every 4th layer ---
mirrored_shapes smol smollm3 "$DENSE layers=8" case_

# --- olmo2: no pre-norms, q/k normed over their whole width, post norms ---
mirrored_shapes olmo olmo2 "layers=6 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=1024 vocab=4096" case_

# --- granite, granitemoe: llama's block with Granite's embedding, residual
# and logit scales; granitemoe's softmax-gated experts ff wide ---
mirrored_shapes gran granite "$DENSE" case_
mirrored_shapes granmoe granitemoe "layers=4 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=512 vocab=4096 experts=8 experts_used=2" case_

# --- qwen2moe: qwen2's attention, routed experts (weights not normalised)
# beside a shared expert gated by its own router row ---
mirrored_shapes q2moe qwen2moe "layers=4 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=768 ff_exp=256 vocab=4096 experts=8 experts_used=2" case_

# --- olmoe: q/k normed over their whole width, unnormalised experts ---
mirrored_shapes olmoe olmoe "layers=4 embd=512 heads=8 kv_heads=8 head_dim=64 rope_dims=64 ff=256 vocab=4096 experts=8 experts_used=2" case_

# --- ernie4_5-moe: a dense lead layer, then biased, normalised experts
# beside a shared expert ---
mirrored_shapes ernie ernie4_5-moe "layers=4 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=1024 ff_exp=256 vocab=4096 experts=8 experts_used=2 lead_dense=1 shared=2" case_

# --- hunyuan-moe: q/k normed per head after RoPE, experts ff wide, a
# shared expert ff_exp wide ---
mirrored_shapes huny hunyuan-moe "layers=4 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=256 ff_exp=384 vocab=4096 experts=8 experts_used=2" case_

# --- exaone, ernie4_5: mistral3's dense block as it is ---
mirrored_shapes exa exaone "$DENSE" case_
mirrored_shapes ern ernie4_5 "$DENSE" case_

# --- deepseek (V1): a dense lead layer, unnormalised experts, shared ones ---
mirrored_shapes dsv1 deepseek "layers=4 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=1024 ff_exp=256 vocab=4096 experts=8 experts_used=2 lead_dense=1 shared=2" case_

# --- exaone4: olmo2's nodes with per-head q/k norms (no window: the engine
# sets one only for 64 layers) ---
mirrored_shapes exa4 exaone4 "$DENSE" case_

# --- glm4: post norms after the attention and the FFN, gate and up fused ---
mirrored_shapes glm4 glm4 "$DENSE" case_

# --- phimoe: phi3's graph with biased norms, softmax experts ff wide ---
mirrored_shapes phimoe phimoe "layers=4 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=256 vocab=4096 experts=8 experts_used=2" case_

# --- qwen3vl, qwen3vlmoe: qwen3's and qwen3moe's blocks with M-RoPE (four
# positions per token) ---
mirrored_shapes q3vl qwen3vl "$DENSE" case_
mirrored_shapes q3vlm qwen3vlmoe "layers=4 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=1024 ff_exp=256 vocab=4096 experts=8 experts_used=2" case_

# --- hunyuan-dense (hunyuan-vl's graph: q/k normed after RoPE), xverse,
# baichuan (RoPE only at 32 layers, ALiBi below) ---
mirrored_shapes hyd hunyuan-dense "$DENSE" case_
mirrored_shapes xv xverse "$DENSE" case_
mirrored_shapes bc baichuan "$DENSE" case_
case_ bc-7b baichuan "layers=32 embd=256 heads=4 kv_heads=4 head_dim=64 rope_dims=64 ff=512 vocab=2048" \
	"CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"

# --- minicpm (granite's graph, its scales always on), qwen2vl (qwen2's
# block with M-RoPE) ---
mirrored_shapes mcpm minicpm "$DENSE" case_
mirrored_shapes q2vl qwen2vl "$DENSE" case_

# --- maincoder (q/k normed after RoPE), internlm2, arcee (a squared-ReLU
# FFN without gate) ---
mirrored_shapes mc maincoder "$DENSE" case_
mirrored_shapes ilm internlm2 "$DENSE" case_
mirrored_shapes arc arcee "$DENSE" case_

# --- apertus: q/k normed per head with biases before RoPE, an xIELU FFN ---
mirrored_shapes apt apertus "$DENSE" case_

# --- mellum (no window): qwen3moe's block ---
mirrored_shapes mel mellum "layers=4 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=1024 ff_exp=256 vocab=4096 experts=8 experts_used=2" case_

# --- orion: layer norms with biases ---
mirrored_shapes ori orion "$DENSE" case_

# --- gemma2: a 512 window every other layer, post norms, the output tied ---
mirrored_shapes g2 gemma2 "layers=6 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=1024 vocab=4096" case_

# the engine's window rules per architecture (model.c's derive_swa):
# gemma2 without the key slides over 4096 cells; exaone4 with the key but
# not 64 layers does not slide at all
case_ g2-nokey gemma2 "layers=6 embd=512 heads=8 kv_heads=2 head_dim=64 rope_dims=64 ff=1024 vocab=4096 swa=0" \
	"CTX_SIZE=16384 PARALLEL=1 FLASH_ATTN=on UBATCH_SIZE=512"
check "g2-nokey: the 4096 window cache the engine defaults to" has_line g2-nokey kv_swa CPU
case_ exa4-win exaone4 "$DENSE swa=512" "CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
check "exa4-win: one cache, no window (6 layers)" sh -c "! grep -q 'SWA KV cache' exa4-win.log"
for a in "${!worst[@]}"; do echo "# $a: worst compute error ${worst[$a]}%"; done
