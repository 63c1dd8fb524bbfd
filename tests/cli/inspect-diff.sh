# zealot inspect --diff A B (issue 33 item 10): two payloads' headers, the
# keys and tensors that differ; a re-export that changes only provenance
# (general.name) is a drop-in (exit 0), one whose geometry or tensor types
# differ is not (exit 1, each difference named).
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

must "$ZEALOT" synth llama -o a.gguf || exit 1
must "$ZEALOT" synth llama --set name=re-export -o renamed.gguf || exit 1
must "$ZEALOT" synth llama --set ctx=8192 -o ctx.gguf || exit 1
must "$ZEALOT" synth llama --set type=q8_0 -o q8.gguf || exit 1

run "$ZEALOT" inspect --diff a.gguf a.gguf --json
check "the same file: a drop-in, exit 0, nothing differs" \
	test "$rc" -eq 0 -a "$(jq -c '[.drop_in, .keys_differ, .tensors_differ, (.rows|length)]' "$TMP/out")" = '[true,0,0,0]'
run "$ZEALOT" inspect --diff a.gguf renamed.gguf --json
check "general.name only: a drop-in (exit 0), the key named as provenance" \
	test "$rc" -eq 0 -a "$(jq -c '[.drop_in, [.rows[]|[.name,.provenance]]]' "$TMP/out")" = '[true,[["general.name",true]]]'
check "... with both values" test "$(jq -r '.rows[0].b' "$TMP/out")" = re-export
run "$ZEALOT" inspect --diff a.gguf ctx.gguf --json
check "another trained context: not a drop-in (exit 1), llama.context_length named with both values" \
	test "$rc" -eq 1 -a "$(jq -c '[.drop_in, [.rows[]|select(.provenance|not)|[.kind,.name]]]' "$TMP/out")" = \
	'[false,[["key","llama.context_length"]]]' -a "$(jq -r '.rows[]|select(.name=="llama.context_length")|.b' "$TMP/out")" = 8192
run "$ZEALOT" inspect --diff a.gguf q8.gguf --json
check "another weight type: the tensors differ by type, named with type and shape" \
	test "$rc" -eq 1 -a "$(jq '.tensors_differ > 0' "$TMP/out")" = true -a \
	-n "$(jq -r '.rows[]|select(.name=="blk.0.attn_q.weight")|.b' "$TMP/out" | grep -E '^q8_0 \[[0-9]+, [0-9]+\]$')"
run "$ZEALOT" inspect --diff a.gguf q8.gguf
check "text: a difference is marked !!, the verdict says not a drop-in" \
	eval 'grep -qE "^!! tensor blk\.0\.attn_q\.weight +f16 \[" "$TMP/out" && out_has ": not a drop-in"'
run "$ZEALOT" inspect --diff a.gguf renamed.gguf
check "text: provenance is marked so, the verdict a drop-in" \
	eval 'grep -qE "^   key general\.name .*\(provenance\)$" "$TMP/out" && out_has ": a drop-in (the same geometry and census"'

run "$ZEALOT" inspect --diff a.gguf
check "--diff with one payload: usage, exit 2" rc_is 2
run "$ZEALOT" inspect a.gguf ctx.gguf
check "two payloads without --diff: usage, exit 2" rc_is 2
run "$ZEALOT" inspect --diff a.gguf missing.gguf
check "--diff with a missing payload: exit 3" rc_is 3
check "no sanitizer report" no_sanitizer
