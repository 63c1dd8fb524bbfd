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
run "$ZEALOT" synth lfm3 -o "$TMP/x.gguf"
check "unknown arch: exit 2" rc_is 2
check "unknown arch near a known one: did you mean it" err_has "unknown architecture 'lfm3' (did you mean lfm2?)"
run "$ZEALOT" synth transformerxl -o "$TMP/x.gguf"
check "unknown arch near none: exit 2, lists the known ones" test "$rc" -eq 2 -a -n "$(grep -F "llama, qwen35, gemma3" "$TMP/err")"
run "$ZEALOT" synth llama --set kv_head=2 -o "$TMP/x.gguf"
check "misspelled key: exit 2 naming it" test "$rc" -eq 2 -a -n "$(grep -F "unknown key 'kv_head'" "$TMP/err")"
run "$ZEALOT" synth llama --set layers=-1 -o "$TMP/x.gguf"
check "negative value: exit 2" rc_is 2
run "$ZEALOT" synth llama --set type=fp8 -o "$TMP/x.gguf"
check "no fp8 type: exit 2" rc_is 2
run "$ZEALOT" synth llama --set type=q8_0 --set embd=100 -o "$TMP/x.gguf"
check "q8_0 width not a block multiple: exit 2" rc_is 2
# The engine refuses a tensor whose row is not a whole number of its type's
# blocks; synth refuses to write one, naming the tensor and the keys.
run "$ZEALOT" synth qwen35 --set type=q4_K --set layers=4 --set embd=512 --set vocab=3000 -o "$TMP/x.gguf"
check "qwen35 q4_K, value width 128: exit 2" rc_is 2
check "qwen35 q4_K: names the tensor, its row and the keys" \
	err_has "tensor 'blk.0.ssm_out.weight' would have 128 elements per row (ssm_state=32 x ssm_dt_rank=4), not a multiple of the type's block size (256)"
check "qwen35 q4_K: no file written" test ! -e "$TMP/x.gguf"
run "$ZEALOT" synth llama --set type=q4_K --set ff=640 -o "$TMP/x.gguf"
check "llama q4_K, ff 640: exit 2 naming ffn_down and ff" test "$rc" -eq 2 -a -n "$(grep -F "'blk.0.ffn_down.weight' would have 640 elements per row (ff=640)" "$TMP/err")"
run "$ZEALOT" synth gemma3 --set type=q5_K --set head_dim=96 --set rope_dims=96 --set embd=512 --set ff=512 -o "$TMP/x.gguf"
check "gemma3 q5_K, 4 heads x 96: exit 2 naming attn_output" err_has "(head_dim=96 x heads=4)"
run "$ZEALOT" synth llama --set type=4 -o "$TMP/x.gguf"
check "a removed type id: exit 2" test "$rc" -eq 2 -a -n "$(grep -F "removed" "$TMP/err")"
run "$ZEALOT" synth qwen35 --set type=q4_K --set ssm_state=64 --set embd=512 --set ff=512 -o "$TMP/k.gguf"
check "qwen35 q4_K with every row a multiple of 256: written" rc_is 0
run "$ZEALOT" inspect "$TMP/k.gguf"
check "qwen35 q4_K with every row a multiple of 256: inspect reads it" rc_is 0
# Over a grid, every file synth agrees to write is one inspect (which holds
# the engine's reader rules) reads; the live test holds it to the engine.
bad=0
for a in llama qwen35 gemma3; do
	for t in q8_0 q4_0 q4_K iq4_xs 142; do
		for w in "" "--set embd=320 --set ff=640"; do
			# shellcheck disable=SC2086
			"$ZEALOT" synth "$a" --set type=$t $w -o "$TMP/g.gguf" 2>"$TMP/err"
			src=$?
			if [ "$src" -eq 0 ]; then
				"$ZEALOT" inspect "$TMP/g.gguf" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "# $a $t $w: written but inspect refuses"; }
			elif [ "$src" -ne 2 ] || ! grep -q "the engine refuses" "$TMP/err"; then
				bad=$((bad + 1)) && echo "# $a $t $w: exit $src"
			fi
			rm -f "$TMP/g.gguf"
		done
	done
done
check "grid of 3 archs x 5 types x 2 widths: synth refuses (exit 2, the engine's rule) or inspect reads the file" test "$bad" -eq 0
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

# image_answer (llama only, with answer) and the projector's red=1 (no preset)
run "$ZEALOT" synth llama --set answer=A --set image_answer=B -o "$TMP/img.gguf"
check "image_answer: written, exit 0, its entry in the vocabulary" \
	eval 'rc_is 0 && "$ZEALOT" inspect --json "$TMP/img.gguf" >/dev/null'
run "$ZEALOT" synth qwen3 --set answer=A --set image_answer=B -o "$TMP/x.gguf"
check "image_answer on qwen3: exit 2, llama only" eval 'rc_is 2 && err_has "llama only"'
run "$ZEALOT" synth llama --set image_answer=B -o "$TMP/x.gguf"
check "image_answer without answer: exit 2" eval 'rc_is 2 && err_has "needs --set answer"'
run "$ZEALOT" synth llama --set answer=A --set image_answer=A -o "$TMP/x.gguf"
check "image_answer equal to answer: exit 2" eval 'rc_is 2 && err_has "must differ"'
run "$ZEALOT" synth clip --set red=1 -o "$TMP/mm.gguf"
check "clip red=1: exit 0" rc_is 0
run "$ZEALOT" synth clip --preset bonsai-9b-mmproj --set red=1 -o "$TMP/x.gguf"
check "clip red=1 with a preset: exit 2" rc_is 2

# -o never replaces a file without --force (issue 34): the file is left as
# it was, and --force replaces it; with split=N, a shard that exists counts
echo keep >"$TMP/keep.gguf"
run "$ZEALOT" synth llama -o "$TMP/keep.gguf"
check "-o onto a file that exists: exit 2, says so and names --force" \
	eval 'rc_is 2 && err_has "'"'$TMP/keep.gguf'"' exists: --force replaces it"'
check "-o onto a file that exists: the file is untouched" test "$(cat "$TMP/keep.gguf")" = keep
run "$ZEALOT" synth llama --force -o "$TMP/keep.gguf"
check "--force replaces it" eval 'rc_is 0 && test "$(head -c 4 "$TMP/keep.gguf")" = GGUF'
echo keep >"$TMP/sh-00002-of-00002.gguf"
run "$ZEALOT" synth llama --set split=2 -o "$TMP/sh.gguf"
check "split=2 onto an existing second shard: exit 2 naming it" \
	eval 'rc_is 2 && err_has "sh-00002-of-00002.gguf'"'"' exists"'
run "$ZEALOT" synth clip -o "$TMP/keep.gguf"
check "clip onto a file that exists: exit 2" rc_is 2

# rope_dims keeps its default when head_dim is set: the refusal says so
# and names the value to set
run "$ZEALOT" synth llama --set head_dim=128 -o "$TMP/rd.gguf"
check "llama head_dim=128 alone: exit 2, explains rope_dims with head_dim" \
	eval 'rc_is 2 && err_has "rope_dims=64, head_dim=128" && err_has "set rope_dims=128 too"'
run "$ZEALOT" synth qwen3 --set head_dim=32 -o "$TMP/rd.gguf"
check "qwen3 head_dim=32 alone: exit 2, rope_dims does not follow head_dim" \
	eval 'rc_is 2 && err_has "rope_dims does not follow a head_dim set with --set"'
run "$ZEALOT" synth --help
check "--help: rope_dims says it does not follow head_dim" out_has "does not follow a head_dim set here"

# a llama.cpp file-type name (Q4_K_M) is taken as its main tensor type
# and said so; general.file_type is the file type's
run "$ZEALOT" synth llama --set type=Q4_K_M -o "$TMP/q4km.gguf"
check "type=Q4_K_M: exit 0, points to the tensor type" \
	eval 'rc_is 0 && err_has "type=Q4_K_M is a file type, a mix of tensor types: every matrix is q4_K"'
run "$ZEALOT" inspect --json "$TMP/q4km.gguf"
check "type=Q4_K_M: q4_K matrices, file type 15 (MOSTLY_Q4_K_M)" \
	json_is '[(.tensor_types|map(.type)|index("q4_K") != null), .file_type]' '[true,15]'
run "$ZEALOT" synth llama --set type=Q4_K_X -o "$TMP/x.gguf"
check "type=Q4_K_X: exit 2, lists the file-type names and their tensor type" \
	eval 'rc_is 2 && err_has "a file type name (Q2_K_S, Q3_K_S" && err_has "(Q4_K_M: q4_K)"'

# temp_scale is one key (it was two rows: mistral3's set deepseek2's field
# and wrote no key); the header carries attention.temperature_scale.
# hdr_f32 FILE KEY: the f32 value of KEY in FILE's header, or "none"
hdr_f32() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
h = open(sys.argv[1], "rb").read(1 << 20)
k = sys.argv[2].encode()
i = h.find(struct.pack("<Q", len(k)) + k)
if i < 0:
    print("none")
else:
    t, v = struct.unpack_from("<If", h, i + 8 + len(k))
    print("%s %.3f" % ("f32" if t == 6 else "type%d" % t, v))
PY
}
for a in mistral3 deepseek2; do
	run "$ZEALOT" synth "$a" --set temp_scale=1 -o "$TMP/t-$a.gguf"
	check "$a temp_scale=1: $a.attention.temperature_scale is 0.1 in the header" \
		test "$(hdr_f32 "$TMP/t-$a.gguf" "$a.attention.temperature_scale")" = "f32 0.100"
done
run "$ZEALOT" synth mistral3 --set temp_scale=7 -o "$TMP/t-m7.gguf"
check "mistral3 temp_scale=7: 0.7 (tenths, as deepseek2's)" \
	test "$(hdr_f32 "$TMP/t-m7.gguf" mistral3.attention.temperature_scale)" = "f32 0.700"
run "$ZEALOT" synth mistral3 -o "$TMP/t-none.gguf"
check "mistral3 without temp_scale: no temperature key" \
	test "$(hdr_f32 "$TMP/t-none.gguf" mistral3.attention.temperature_scale)" = none
