# Law S17 against the real engine: what its model loader refuses for a
# shape the header decides (the vocabulary, and each block's attention
# projections against head_count, head_count_kv, key_length and
# value_length), zealot inspect and check refuse before boot,
# with the same tensor and the same two shapes; the same geometry with the
# shapes in agreement boots and answers, and zealot passes it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1
printf '#!/bin/sh\nexec true\n' >rt.sh && chmod +x rt.sh

# endpoint NAME FILE: a cpu endpoint serving FILE
endpoint() {
	cat >"$1.env" <<E
RUNTIME=$TMP/rt.sh
MODEL_FILE=$2
CTX_SIZE=4096
PARALLEL=1
PRESENCE_PENALTY=
DEVICE=cpu
ADDRESSABLE_MIB=16384
E
}

# boot NAME: engine_start on NAME.gguf. The engine logs through a worker
# thread that an exit at load can cut short (seen: a log ending at its
# startup banner, exit 1); a boot that died with no "error loading model"
# in its log is tried again, up to 3 times, so the checks read the
# loader's own words.
boot() {
	local try
	for try in 1 2 3; do
		engine_start "$1" -m "$TMP/$1.gguf" -c 4096 && return 0
		grep -qF "error loading model" "$ENGINE_LOG" && return 1
		echo "# $1: the engine exited ($ENGINE_STATUS) with its log cut short (try $try)"
	done
	return 1
}

# vocab TOKENS ROWS: a token list of TOKENS over a token_embd of ROWS rows
for pair in 600:512 512:600 600:600; do
	tokens=${pair%:*} rows=${pair#*:} name=v$tokens-r$rows
	must "$ZEALOT" synth llama --set vocab="$tokens" --set embd_rows="$rows" -o "$name.gguf" || exit 1
	endpoint "$name" "$name.gguf"
	boot "$name"
	run "$ZEALOT" check --json "$name.env"
	s17=$(jq -r '[.findings[]|select(.law=="S17")|.reason]|join("")' "$TMP/out")
	if [ "$tokens" = "$rows" ]; then
		check "$name: the engine boots and answers" test -n "$ENGINE_PID"
		check "$name: check passes it (no S17, exit 0)" test "$rc" -eq 0 -a -z "$s17"
		run "$ZEALOT" inspect "$name.gguf"
		check "$name: inspect exit 0" rc_is 0
	else
		check "$name: the engine refuses the file (exit $ENGINE_STATUS)" \
			test -z "$ENGINE_PID" -a -n "$(grep -F "tensor 'token_embd.weight' has wrong shape" "$ENGINE_LOG")"
		# the engine prints "expected 256, T, got 256, R, 1, 1"
		want=$(grep -oE "expected +[0-9]+, +[0-9]+, got +[0-9]+, +[0-9]+" "$ENGINE_LOG" | head -1 | tr -s ' ' |
			sed -E 's/expected ([0-9]+), ([0-9]+), got ([0-9]+), ([0-9]+)/has shape [\3, \4], the engine'"'"'s loader expects [\1, \2]/')
		check "$name: check refuses it, S17, exit 1, with the engine's own two shapes ($want)" \
			test "$rc" -eq 1 -a -n "$want" -a -n "$(echo "$s17" | grep -F "$want")"
		run "$ZEALOT" inspect "$name.gguf"
		check "$name: inspect refuses it, exit 3, the same shapes" test "$rc" -eq 3 -a -n "$(grep -F "$want" "$TMP/err")"
	fi
	engine_stop
done
# the attention projections: src/payload/loader_attn.c is the engine's own
# load_arch_tensors, read by scripts/gen-loader-attn.sh
src=$(cd "$ENGINE/../.." && pwd)/src
run bash -c 'cd "$1" && scripts/gen-loader-attn.sh "$2"' _ "$ROOT" "$src"
check "gen-loader-attn reads the engine's llama-model.cpp and src/models" rc_is 0
cp "$TMP/out" "$TMP/loader_attn.c"
run diff -u "$ROOT/src/payload/loader_attn.c" "$TMP/loader_attn.c"
check "src/payload/loader_attn.c is the built engine's rules (regenerate: scripts/gen-loader-attn.sh > src/payload/loader_attn.c)" rc_is 0
n=$(grep -cE '^ +\{"[^"]+", "src/models/' "$ROOT/src/payload/loader_attn.c")
check "it mirrors the attention shapes of $n architectures (llama, qwen2, gpt-oss among them)" \
	test "$n" -ge 60 -a -n "$(grep -F '{"llama", "src/models/llama.cpp"' "$ROOT/src/payload/loader_attn.c")" \
	-a -n "$(grep -F '{"qwen2", "src/models/qwen2.cpp"' "$ROOT/src/payload/loader_attn.c")" \
	-a -n "$(grep -F '{"gpt-oss", "src/models/openai-moe.cpp"' "$ROOT/src/payload/loader_attn.c")"

# ARCH:SET:TENSOR: a header whose head count or size disagrees with the
# tensors (or an attn_output of other rows); the engine refuses TENSOR, and
# zealot refuses the same tensor with the engine's two shapes
for c in llama:heads_meta=8:attn_q llama:kv_heads_meta=4:attn_k qwen3:head_dim_meta=32:attn_q \
	llama:head_dim_v_meta=32:attn_v llama:out_rows=128:attn_output qwen2:kv_heads_meta=4:attn_k \
	qwen2:head_dim_v_meta=32:attn_k qwen3:heads_meta=8:attn_q gemma3:kv_heads_meta=4:attn_k \
	mistral3:head_dim_meta=32:attn_q gpt-oss:kv_heads_meta=4:attn_k glm4moe:heads_meta=8:attn_q; do
	arch=${c%%:*} rest=${c#*:} set=${rest%:*} tensor=blk.0.${rest#*:}.weight name=$arch-${set%%=*}
	sets=() && for kv in ${set//,/ }; do sets+=(--set "$kv"); done
	must "$ZEALOT" synth "$arch" "${sets[@]}" -o "$name.gguf" || exit 1
	endpoint "$name" "$name.gguf"
	boot "$name"
	check "$name: the engine refuses the file on $tensor (exit $ENGINE_STATUS)" \
		test -z "$ENGINE_PID" -a -n "$(grep -F "tensor '$tensor' has wrong shape" "$ENGINE_LOG")"
	grep -qF "tensor '$tensor' has wrong shape" "$ENGINE_LOG" || tail -5 "$ENGINE_LOG" | sed 's/^/#   engine: /'
	want=$(grep -oE "expected +[0-9]+, +[0-9]+, got +[0-9]+, +[0-9]+" "$ENGINE_LOG" | head -1 | tr -s ' ' |
		sed -E 's/expected ([0-9]+), ([0-9]+), got ([0-9]+), ([0-9]+)/has shape [\3, \4], the engine'"'"'s loader expects [\1, \2]/')
	run "$ZEALOT" check --json "$name.env"
	s17=$(jq -r '[.findings[]|select(.law=="S17" and .severity=="error")|.reason]|join("")' "$TMP/out")
	check "$name: check refuses it, S17, exit 1, on $tensor with the engine's own two shapes ($want)" \
		test "$rc" -eq 1 -a -n "$want" -a -n "$(echo "$s17" | grep -F "'$tensor' $want")"
	run "$ZEALOT" inspect "$name.gguf"
	check "$name: inspect refuses it, exit 3, the same tensor and shapes" \
		test "$rc" -eq 3 -a -n "$(grep -F "'$tensor' $want" "$TMP/err")"
	engine_stop
done

# the same architectures as synth writes them: zealot passes, the engine
# boots and answers
for c in qwen2 qwen3 gemma3 mistral3 gpt-oss glm4moe; do
	arch=${c%%:*} set=${c#"$arch"} set=${set#:} name=$arch${set:+-${set%%=*}}
	must "$ZEALOT" synth "$arch" ${set:+--set "$set"} -o "$name.gguf" || exit 1
	endpoint "$name" "$name.gguf"
	boot "$name"
	run "$ZEALOT" check --json "$name.env"
	s17=$(jq -r '[.findings[]|select(.law=="S17")|.reason]|join("")' "$TMP/out")
	check "$name: the engine boots and answers; check passes it (no S17)" \
		test -n "$ENGINE_PID" -a -z "$s17"
	engine_stop
done

# an architecture whose attention the engine builds otherwise: said, not guessed
must "$ZEALOT" synth gemma4 -o gemma4.gguf || exit 1
endpoint gemma4 gemma4.gguf
run "$ZEALOT" check --json gemma4.env
info=$(jq -r '[.findings[]|select(.law=="S17" and .severity=="info")|.reason]|join("")' "$TMP/out")
check "gemma4: check says its attention shapes are not checked, naming the engine's source (info, no error)" \
	test -n "$(echo "$info" | grep -F "of gemma4 are not checked" | grep -F "src/models/gemma4.cpp")" \
	-a -z "$(jq -r '.findings[]|select(.law=="S17" and .severity=="error")|.law' "$TMP/out")"
run "$ZEALOT" inspect gemma4.gguf
# (the line wraps at the report's width: its continuation lines are its own)
check "gemma4: inspect says so on its loader line" eval 'rc_is 0 && awk "/^loader +the attention projections/ { on = 1; print; next } on && /^ / { print; next } { on = 0 }" "$TMP/out" | grep -qF gemma4.cpp'
run "$ZEALOT" inspect --json gemma4.gguf
check "gemma4: inspect --json says so (loader_unmirrored)" \
	test -n "$(jq -r '.loader_unmirrored // empty' "$TMP/out" | grep -F gemma4.cpp)"
run "$ZEALOT" inspect --json qwen3.gguf
check "qwen3: inspect --json loader_unmirrored is null (mirrored)" test "$(jq -r '.loader_unmirrored' "$TMP/out")" = null

check "no sanitizer report" no_sanitizer
