# zealot synth: arguments, errors, sparse output.
. "$(dirname "$0")/../lib.sh"

for a in llama qwen35 gemma3; do
	run "$ZEALOT" synth "$a" -o "$TMP/$a.gguf"
	check "synth $a: exit 0" rc_is 0
	check "synth $a: reports what it wrote" err_has "wrote $TMP/$a.gguf ($a,"
	check "synth $a: file is a GGUF" test "$(head -c 4 "$TMP/$a.gguf")" = GGUF
done
run "$ZEALOT" synth --preset bonsai-9b -o "$TMP/b9.gguf"
size=$(stat -c %s "$TMP/b9.gguf")
disk=$(($(stat -c %b "$TMP/b9.gguf") * $(stat -c %B "$TMP/b9.gguf")))
check "bonsai-9b: ${size}-byte file on ${disk} bytes of disk (sparse)" test "$size" -gt $((16 << 30)) -a "$disk" -lt $((64 << 20))
run "$ZEALOT" synth qwen35 --preset bonsai-9b -o "$TMP/b9b.gguf"
check "arch matching the preset: accepted" rc_is 0
run "$ZEALOT" synth llama --preset bonsai-9b -o "$TMP/x.gguf"
check "arch contradicting the preset: exit 2" rc_is 2
check "arch contradicting the preset: says so" err_has "is a qwen35 payload, not llama"
run "$ZEALOT" synth mamba -o "$TMP/x.gguf"
check "unknown arch: exit 2" rc_is 2
check "unknown arch: lists the known ones" err_has "llama, qwen35, gemma3"
run "$ZEALOT" synth llama --set kv_head=2 -o "$TMP/x.gguf"
check "misspelled key: exit 2 naming it" test "$rc" -eq 2 -a -n "$(grep -F "unknown key 'kv_head'" "$TMP/err")"
run "$ZEALOT" synth llama --set layers=-1 -o "$TMP/x.gguf"
check "negative value: exit 2" rc_is 2
run "$ZEALOT" synth llama --set type=fp8 -o "$TMP/x.gguf"
check "no fp8 type: exit 2" rc_is 2
run "$ZEALOT" synth llama --set type=q8_0 --set embd=100 -o "$TMP/x.gguf"
check "q8_0 width not a block multiple: exit 2" rc_is 2
run "$ZEALOT" synth llama -o "$TMP/no/such/dir/x.gguf"
check "unwritable path: exit 3" rc_is 3
check "unwritable path: named" err_has "cannot create '$TMP/no/such/dir/x.gguf'"
run "$ZEALOT" synth llama
check "no -o: exit 2" rc_is 2
run "$ZEALOT" synth --help
check "--help: exit 0" rc_is 0
check "--help: lists presets" out_has "bonsai-9b"
check "--help: lists keys" out_has "kv_heads"
run "$ZEALOT" synth llama --set embd=512 --set heads=8 --set kv_heads=8 --set type=q8_0 -o "$TMP/q8.gguf"
run "$ZEALOT" inspect --json "$TMP/q8.gguf"
check "q8_0 weights: histogram has q8_0 and file type 7" \
	json_is '[(.tensor_types|map(.type)|index("q8_0") != null), .file_type]' '[true,7]'

# The top level
run "$ZEALOT"
check "no command: exit 2" rc_is 2
run "$ZEALOT" frobnicate
check "unknown command: exit 2 naming it" test "$rc" -eq 2 -a -n "$(grep -F "'frobnicate' is not a zealot command" "$TMP/err")"
run "$ZEALOT" --help
check "zealot --help lists inspect and synth" test "$rc" -eq 0 -a -n "$(grep -E '^  inspect' "$TMP/out")" -a -n "$(grep -E '^  synth' "$TMP/out")"
run "$ZEALOT" --version
check "--version" out_has "zealot "
