# Every synth architecture boots in the real engine, answers /health, a
# completion and a chat request; custom types are refused by a stock build
# (law S10).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"

chat='{"messages":[{"role":"user","content":"say hi"}],"max_tokens":8}'

boot() { # NAME FILE ARGS...
	local name=$1 file=$2
	shift 2
	engine_start "$name" -m "$file" -c 4096 --jinja -lv 4 "$@"
	check_answered "$name" "$ENGINE_LOG"
	[ -n "$ENGINE_PID" ] || return
	engine_post /v1/chat/completions "$chat"
	check "$name: chat answers 200" test "$http" = 200
	check "$name: chat has a finish_reason" test "$(jq -r '.choices[0].finish_reason' "$TMP/out")" != null
	check "$name: chat generated tokens" test "$(jq '.usage.completion_tokens' "$TMP/out")" -gt 0
	engine_stop
}

for a in llama qwen35 gemma3; do
	must "$ZEALOT" synth "$a" -o "$TMP/$a.gguf" || exit 1
	boot "$a" "$TMP/$a.gguf"
done

# inspect agrees with the engine's own reading of each payload: blocks
# (print_info n_layer_all), and the layers its KV caches hold.
kv_layers() { # LOG [SWA]: the "N layers" of the first (non-SWA or SWA) KV cache line
	if [ "${2:-}" = swa ]; then
		grep -A3 'creating     SWA KV cache' "$1" | grep -oE '[0-9]+ layers' | head -1 | grep -oE '[0-9]+'
	else
		grep -E 'llama_kv_cache: size = ' "$1" | head -1 | grep -oE '[0-9]+ layers' | grep -oE '[0-9]+'
	fi
}
for a in llama qwen35 gemma3; do
	run "$ZEALOT" inspect --json "$TMP/$a.gguf"
	blocks=$(grep -oE 'n_layer_all += [0-9]+' "$TMP/$a.log" | grep -oE '[0-9]+$')
	check "$a: inspect's block_count = engine's n_layer_all ($blocks)" json_is .block_count "$blocks"
	full=$(kv_layers "$TMP/$a.log")
	check "$a: inspect's attention layers = engine's KV layers ($full)" json_is .layers.attention "$full"
done
check "gemma3: inspect's swa layers = engine's SWA cache layers" json_is .layers.swa "$(kv_layers "$TMP/gemma3.log" swa)"
run "$ZEALOT" inspect --json "$TMP/qwen35.gguf"
all=$(grep -oE 'n_layer_all += [0-9]+' "$TMP/qwen35.log" | grep -oE '[0-9]+$')
trunk=$(grep -oE 'n_layer += [0-9]+' "$TMP/qwen35.log" | grep -oE '[0-9]+$')
check "qwen35: inspect's nextn count = engine's n_layer_all - n_layer" json_is .layers.nextn "$((all - trunk))"

# The MTP head drafts: the engine builds a draft context from the nextn block.
boot qwen35-mtp "$TMP/qwen35.gguf" --spec-type draft-mtp --spec-draft-n-max 2
check "qwen35-mtp: MTP draft context created" grep -qF 'creating MTP draft context' "$TMP/qwen35-mtp.log"

# A geometry other than the defaults.
must "$ZEALOT" synth qwen35 --set layers=12 --set interval=3 --set kv_heads=4 --set heads=8 -o "$TMP/q12.gguf" || exit 1
boot qwen35-interval3 "$TMP/q12.gguf"

# Custom type 142: zealot reads it, the stock engine refuses it.
must "$ZEALOT" synth qwen35 --set type=142 -o "$TMP/pq.gguf" || exit 1
engine_start pq -m "$TMP/pq.gguf" -c 4096
check "type 142: stock engine refuses the payload" test -z "$ENGINE_PID"
# the engine's refusal names the tensor's type id
restart_pq() { engine_start pq -m "$TMP/pq.gguf" -c 4096; }
check "type 142: engine names the type" log_holds "$ENGINE_LOG" 'type 142' ENGINE_STATUS restart_pq
engine_stop

# S08: a batch smaller than the slot count aborts the engine at load (it
# reserves an output per slot, more than the batch allows); check refuses
# the same shape
printf 'MODEL_FILE=%s\nCTX_SIZE=1024\nPARALLEL=4\nBATCH_SIZE=2\nUBATCH_SIZE=2\n' "$TMP/llama.gguf" >"$TMP/b2.env"
run "$ZEALOT" check --json "$TMP/b2.env"
check "S08: check refuses BATCH_SIZE below PARALLEL" \
	test "$rc" -eq 1 -a "$(jq '[.findings[]|select(.law=="S08" and .key=="BATCH_SIZE")]|length' "$TMP/out")" -eq 1
timeout 60 "$ENGINE/llama-server" -m "$TMP/llama.gguf" -c 1024 -np 4 -b 2 -ub 2 --host 127.0.0.1 --port "$(free_port)" \
	>"$TMP/b2.log" 2>&1
b2=$?
check "S08: the engine aborts at load with that shape (exit $b2)" \
	test "$b2" -ne 0 -a -n "$(grep -F 'n_outputs_max' "$TMP/b2.log")"
