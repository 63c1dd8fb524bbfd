# deepseek2 (MLA), glm4moe and qwen35moe without an engine: synth writes
# them, inspect derives their geometry from metadata, plan prices their KV
# the way the engine's caches hold it and mirrors their graphs, check
# refuses what the engine refuses. (tests/live/arch-mla.sh boots them.)
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

jqt() { jq -en "input | ($1)" "$2" >/dev/null; } # FILTER FILE: the filter holds

for a in deepseek2 glm4moe qwen35moe; do
	run "$ZEALOT" synth "$a" -o "$a.gguf"
	check "synth $a: exit 0" rc_is 0
	printf 'MODEL_FILE=%s.gguf\nCTX_SIZE=4096\nPARALLEL=2\n' "$a" >"$a.env"
	run "$ZEALOT" plan --json "$a.env"
	cp "$TMP/out" "$a.plan"
	check "plan $a: exit 0" rc_is 0
	check "plan $a: mirrored (exact, nothing unmirrored)" jqt '.exact == true and (.unmirrored | length == 0)' "$a.plan"
done

# deepseek2: the K-only MLA cache, kv_lora 64 + rope 16 per cell and layer
run "$ZEALOT" inspect --json deepseek2.gguf
cp "$TMP/out" ds.json
check "inspect deepseek2: MLA ranks and head sizes from metadata" \
	jqt '.mla == {kv_lora_rank: 64, q_lora_rank: 96, key_length_mla: 48, value_length_mla: 32, v_cached: false}' ds.json
check "inspect deepseek2: the cache row is kv_lora + rope (80), one KV head" \
	jqt '.key_length == 80 and .head_count_kv == 1' ds.json
check "inspect deepseek2: experts, shared, leading dense, sigmoid gating, norm and scale" \
	jqt '.experts | .count == 8 and .used == 2 and .shared == 1 and .leading_dense == 1 and .gating == "sigmoid" and .weights_norm and .weights_scale == 2.5' ds.json
# 4 layers x 4096 cells x 80 x f16 = 2.5 MiB of K, no V
check "plan deepseek2: K only, 4 layers x 4096 cells x 80 f16 (2.5 MiB), V 0" \
	jqt '.kv.k_mib == 2.5 and .kv.v_mib == 0 and .kv.layers == 4' deepseek2.plan
run "$ZEALOT" synth deepseek2 --set q_lora=0 --set gating=1 -o lite.gguf
check "synth deepseek2 without a q latent: exit 0" rc_is 0
run "$ZEALOT" inspect --json lite.gguf
check "inspect: q_lora_rank 0, softmax gating" jqt '.mla.q_lora_rank == 0 and .experts.gating == "softmax"' "$TMP/out"
# per layer: attn_q instead of attn_q_a, attn_q_a_norm, attn_q_b (70 - 4 x 2 tensors)
check "one attn_q per layer without a q latent (62 tensors)" jqt '.tensor_count == 62' "$TMP/out"
check "no attn_q_a in its header" test "$(head -c 65536 lite.gguf | grep -aoc attn_q_a)" = 0

# law S04: MLA reads V from K, the engine refuses different cache types
printf 'MODEL_FILE=deepseek2.gguf\nCTX_SIZE=4096\nCACHE_TYPE_K=bf16\n' >kv.env
run "$ZEALOT" check --json kv.env
check "check: K bf16 / V f16 on an MLA payload is refused by S04" \
	jqt '[.findings[]|select(.law=="S04" and .key=="CACHE_TYPE_V")]|length==1' "$TMP/out"
printf 'MODEL_FILE=deepseek2.gguf\nCTX_SIZE=4096\nCACHE_TYPE_K=bf16\nCACHE_TYPE_V=bf16\n' >kv2.env
run "$ZEALOT" check --json kv2.env
check "check: equal K and V types pass S04" jqt '[.findings[]|select(.law=="S04")]|length==0' "$TMP/out"
printf 'MODEL_FILE=glm4moe.gguf\nCTX_SIZE=4096\nCACHE_TYPE_K=q8_0\n' >kv3.env
run "$ZEALOT" check --json kv3.env
check "check: different K and V types on a non-MLA payload are no S04" \
	jqt '[.findings[]|select(.law=="S04")]|length==0' "$TMP/out"

# solve never proposes an MLA shape the engine refuses (K and V types apart)
must "$ZEALOT" synth deepseek2 --set kv_lora=96 --set rope_dims=32 --set head_dim=64 -o ds96.gguf || exit 1
printf 'MODEL_FILE=ds96.gguf\nCTX_SIZE=8192\nPARALLEL=2\nDEVICE=cpu\nADDRESSABLE_MIB=60\nSLACK_MIB=0\n' >sv.env
run "$ZEALOT" solve sv.env --maximize window
check "solve on MLA: exit 0" rc_is 0
check "solve on MLA: quantized caches on the frontier" grep -qE ' q8_0 +q8_0 ' "$TMP/out"
check "solve on MLA: no shape with K and V types apart" test "$(grep -cE ' (f16|q8_0|q4_0) +(f16|q8_0|q4_0) ' "$TMP/out")" = "$(grep -cE ' (f16 +f16|q8_0 +q8_0|q4_0 +q4_0) ' "$TMP/out")"
# the MTP draft context refuses them too
must "$ZEALOT" synth deepseek2 --set nextn=1 -o dsmtp.gguf || exit 1
printf 'MODEL_FILE=dsmtp.gguf\nCTX_SIZE=4096\nSPEC_TYPE=draft-mtp\nSPEC_DRAFT_N_MAX=2\nSPEC_DRAFT_TYPE_K=bf16\n' >dm.env
run "$ZEALOT" check --json dm.env
check "check: MLA draft K bf16 / V f16 refused by S04" \
	jqt '[.findings[]|select(.law=="S04" and .key=="SPEC_DRAFT_TYPE_V")]|length==1' "$TMP/out"

# glm4moe: the nextn block is skipped by the main graph but cached by the
# main KV (no layer filter), and the MTP draft context caches every layer
check "plan glm4moe: 5 KV layers (4 + the nextn block)" jqt '.kv.layers == 5' glm4moe.plan
printf 'MODEL_FILE=glm4moe.gguf\nCTX_SIZE=4096\nPARALLEL=2\nSPEC_TYPE=draft-mtp\nSPEC_DRAFT_N_MAX=2\n' >mtp.env
run "$ZEALOT" plan --json mtp.env
check "plan glm4moe MTP: the draft KV caches all 5 layers, and its graph is mirrored" \
	jqt '.draft_kv.layers == 5 and .exact == true and (.unmirrored | length == 0)' "$TMP/out"
run "$ZEALOT" inspect --json glm4moe.gguf
check "inspect glm4moe: one MTP block with its tensors" jqt '.mtp.present and .layers.nextn == 1' "$TMP/out"

# qwen35moe: qwen35's hybrid state, MoE FFN with a gated shared expert
check "plan qwen35moe: recurrent state and KV" jqt '.recurrent != null and .kv.layers == 2' qwen35moe.plan
check "synth qwen35moe: a shared-expert gate in each of the 9 blocks" \
	test "$(head -c 65536 qwen35moe.gguf | grep -ao ffn_gate_inp_shexp | wc -l)" = 9

# synth refuses what the engine would
run "$ZEALOT" synth deepseek2 --set rope_dims=48 -o x.gguf
check "synth deepseek2: rope_dims must be below head_dim (exit 2)" rc_is 2
run "$ZEALOT" synth deepseek2 --set groups=3 --set groups_used=1 -o x.gguf
check "synth deepseek2: groups must divide the experts (exit 2)" rc_is 2
run "$ZEALOT" synth glm4moe --set shared=0 -o x.gguf
check "synth glm4moe: shared experts > 0 (exit 2)" rc_is 2
check "no sanitizer report in any run" no_sanitizer
