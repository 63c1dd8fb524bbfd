# gpt-oss and gemma4 metadata: what synth writes, what model.c derives
# from it and what plan bills (no engine; tests/live/arch-oss.sh holds the
# same terms against boots). The expected figures are worked out here from
# the engine's rules (llama-kv-cache-iswa.cpp: the window cache holds
# PAD(min(n_ctx_seq, n_swa * seqs + n_ubatch), 256) cells; has_kv(il):
# the last shared_kv_layers hold none), not read back from zealot.
. "$(dirname "$0")/../lib.sh"

plan_of() { # GGUF KEY=VALUE...: plan --json of an endpoint serving it
	local f=$1
	shift
	{
		echo "MODEL_FILE=$f"
		for kv in "$@"; do echo "$kv"; done
	} >"$TMP/p.env"
	run "$ZEALOT" plan --json "$TMP/p.env"
}

# --- gpt-oss ---
run "$ZEALOT" synth gpt-oss -o "$TMP/oss.gguf"
check "synth gpt-oss: exit 0" rc_is 0
check "synth gpt-oss: reports it" err_has "(gpt-oss,"
run "$ZEALOT" inspect --json "$TMP/oss.gguf"
check "gpt-oss, no pattern key: the engine's default period 2 (2 window + 2 full of 4)" \
	json_is '[.layers.swa,.layers.attention,.sliding_window]' '[2,2,128]'
plan_of "$TMP/oss.gguf" CTX_SIZE=8192 PARALLEL=2 UBATCH_SIZE=512 FLASH_ATTN=on
check "gpt-oss: mirrored (exact, nothing unmirrored)" json_is '[.exact,.unmirrored]' '[true,[]]'
# window cache: PAD(min(4096, 128 + 512), 256) = 768 cells per stream, 2 streams
check "gpt-oss: 2 full layers over 4096 cells, 2 window layers over 768" \
	json_is '[.kv.layers,.kv.cells,.kv_swa.layers,.kv_swa.cells]' '[2,4096,2,768]'
# 2 layers x 2 streams x 768 cells x (2 KV heads x 64) x 2 B, K and V alike
check "gpt-oss: window K = 2 x 2 x 768 x 128 x 2 B" \
	json_is '.kv_swa.k_mib' "$(awk 'BEGIN { print 2*2*768*128*2/1048576 }')"

# gpt-oss-20b's geometry (header-level: a sparse file): 24 layers, 64
# heads, 8 KV heads x 64, 32 experts (4 used), MXFP4 expert stacks
run "$ZEALOT" synth gpt-oss --set layers=24 --set embd=2880 --set heads=64 --set kv_heads=8 --set head_dim=64 \
	--set rope_dims=64 --set experts=32 --set experts_used=4 --set ff_exp=2880 --set vocab=201088 \
	--set ctx=131072 --set exp_type=mxfp4 -o "$TMP/oss20.gguf"
check "gpt-oss-20b geometry with MXFP4 experts: written" rc_is 0
plan_of "$TMP/oss20.gguf" CTX_SIZE=131072 PARALLEL=1 UBATCH_SIZE=512 FLASH_ATTN=on
check "gpt-oss-20b: 12 full layers x 131072 cells x 512 x 2 B of K = 1536 MiB" \
	json_is '[.kv.layers,.kv.k_mib,.kv_swa.layers,.kv_swa.cells]' '[12,1536,12,768]'
run "$ZEALOT" synth gpt-oss --set exp_type=q5_9 -o "$TMP/x.gguf"
check "exp_type not a ggml type: exit 2" rc_is 2
run "$ZEALOT" synth gpt-oss --set swa=0 -o "$TMP/x.gguf"
check "gpt-oss without a window: refused" err_has "gpt-oss needs a sliding window"

# --- gemma4 ---
run "$ZEALOT" synth gemma4 --set layers=12 --set swa_pattern=6 --set shared_kv=6 -o "$TMP/g4.gguf"
check "synth gemma4 with 6 shared-KV layers: exit 0" rc_is 0
run "$ZEALOT" inspect --json "$TMP/g4.gguf"
check "gemma4: the per-layer pattern array gives 10 window and 2 full layers" \
	json_is '[.layers.swa,.layers.attention]' '[10,2]'
plan_of "$TMP/g4.gguf" CTX_SIZE=8192 PARALLEL=2 UBATCH_SIZE=512 FLASH_ATTN=on
check "gemma4: mirrored (exact, nothing unmirrored)" json_is '[.exact,.unmirrored]' '[true,[]]'
check "gemma4: only the first 6 layers hold KV (1 full, 5 window)" \
	json_is '[.kv.layers,.kv_swa.layers]' '[1,5]'
# the full layer: K equals V (no attn_v) yet V is billed as wide as K (M11)
check "gemma4: the K=V full layer bills V as wide as K (M11)" json_is '.kv.v_mib == .kv.k_mib and .kv.k_mib > 0' true
# full: 2 streams x 4096 cells x (1 KV head x 128) x 2 B; window: 5 x 2 x
# PAD(512 + 512, 256) = 1024 cells x (2 x 64) x 2 B
check "gemma4: full K = 2 MiB, window K = 2.5 MiB" \
	json_is '[.kv.k_mib,.kv_swa.k_mib]' "[$(awk 'BEGIN { printf "%g,%g", 2*4096*128*2/1048576, 5*2*1024*128*2/1048576 }')]"
plan_of "$TMP/g4.gguf" CTX_SIZE=8192 PARALLEL=2 UBATCH_SIZE=512 FLASH_ATTN=off
check "gemma4 without FA: V padded to the widest layer's (128 either way here)" \
	json_is '.kv.v_mib == .kv.k_mib' true
run "$ZEALOT" synth gemma4 --set shared_kv=2 -o "$TMP/x.gguf"
check "gemma4: a shared_kv that leaves a window layer last is refused" \
	err_has "must be a full layer after a window layer"
run "$ZEALOT" synth gemma4 --set kv_heads_swa=3 -o "$TMP/x.gguf"
check "gemma4: heads not a multiple of kv_heads_swa: refused" err_has "kv_heads_swa"

# --- mistral3 ---
run "$ZEALOT" synth mistral3 --set temp_scale=1 -o "$TMP/m3.gguf"
check "synth mistral3 with the attention temperature: exit 0" rc_is 0
plan_of "$TMP/m3.gguf" CTX_SIZE=8192 PARALLEL=2 FLASH_ATTN=on
check "mistral3: mirrored (exact, nothing unmirrored)" json_is '[.exact,.unmirrored]' '[true,[]]'
# 4 layers x 2 streams x 4096 cells x (2 KV heads x 64) x 2 B
check "mistral3: one cache, 4 layers, K = 8 MiB" json_is '[.kv.layers,.kv.k_mib,.kv_swa]' '[4,8,null]'
