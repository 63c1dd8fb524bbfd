# zealot inspect: census of synthetic payloads, corrupt inputs, usage.
. "$(dirname "$0")/../lib.sh"

# --- corrupt inputs: exit 3, a message naming the file, no sanitizer report
for f in "$ROOT"/tests/data/corrupt/*.gguf; do
	n=$(basename "$f")
	run "$ZEALOT" inspect "$f"
	check "corrupt $n: exit 3" rc_is 3
	check "corrupt $n: message names the file" err_has "zealot: inspect: '$f'"
	check "corrupt $n: no sanitizer report" no_sanitizer
	run "$ZEALOT" inspect --json "$f"
	check "corrupt $n --json: exit 3 and nothing on stdout" test "$rc" -eq 3 -a ! -s "$TMP/out"
done
# The engine's reader (ggml/src/gguf.cpp) refuses these files; inspect names
# the tensor (or key) and the rule it breaks.
while IFS='|' read -r n want; do
	run "$ZEALOT" inspect "$ROOT/tests/data/corrupt/$n"
	check "engine rule $n: exit 3 naming it" test "$rc" -eq 3 -a -n "$(grep -F -- "$want" "$TMP/err")"
done <<'X'
row-block.gguf|tensor 'blk.0.ssm_out.weight' of type 12 (q4_K) has 128 elements per row, not a multiple of block size (256)
attn-k-heads.gguf|tensor 'blk.0.attn_k.weight' has shape [64, 32], the engine's loader expects [64, 64] (K: 16 x 4 from llama.attention.key_length x head_count_kv (layer 0)
removed-type.gguf|tensor 't' of type 4 has block size 0
gap.gguf|tensor 'b' has data offset 512, expected 256
out-of-order.gguf|tensor 'b' has data offset 256, expected 0
overlap.gguf|tensor 'a': 256 bytes of f32 data overlap tensor 'b'
misaligned.gguf|tensor 't': data offset 3 is not a multiple of the alignment 32
data-past-eof.gguf|tensor 't': 4096 bytes of f32 data run past the end of the file
dup-tensor.gguf|duplicate tensor 't'
dup-key.gguf|duplicate key 'general.architecture'
empty-key.gguf|invalid key (length 0)
alignment-type.gguf|general.alignment must be a u32 power of two
bad-alignment.gguf|general.alignment must be a u32 power of two
elements-overflow.gguf|tensor 't': element count overflows
bytes-overflow.gguf|tensor 't': byte size overflows
long-name.gguf|exceeds the engine's limit of 63
bad-dims.gguf|n_dims 9 is not in 1..4
X
run "$ZEALOT" inspect "$TMP/absent.gguf"
check "missing file: exit 3" rc_is 3
check "missing file: says so" err_has "cannot open '$TMP/absent.gguf'"
run "$ZEALOT" inspect "$TMP"
check "a directory: exit 3" rc_is 3

# Every truncation of a real header is refused cleanly (sample of cut points).
must "$ZEALOT" synth qwen35 -o "$TMP/q.gguf" || exit 1
hb=$("$ZEALOT" inspect --json "$TMP/q.gguf" | jq .header_bytes)
bad=0
for cut in 1 7 16 24 100 1000 5000 $((hb / 2)) $((hb - 40)) $((hb - 1)); do
	head -c "$cut" "$TMP/q.gguf" >"$TMP/cut.gguf"
	run "$ZEALOT" inspect "$TMP/cut.gguf"
	{ [ "$rc" -eq 3 ] && no_sanitizer && grep -qE 'offset|tensor|empty' "$TMP/err"; } || { bad=$((bad + 1)); _diag; }
done
check "10 truncations of a header: each exit 3 naming offset or tensor" test "$bad" -eq 0

# --- synthetic payloads of several geometries
run "$ZEALOT" inspect --json "$TMP/q.gguf"
check "qwen35 default: exit 0" rc_is 0
check "qwen35 default: 2 attention, 6 recurrent, 1 nextn" json_is '.layers' '{"attention":2,"swa":0,"recurrent":6,"nextn":1}'
check "qwen35 default: MTP declared and present" json_is '[.mtp.declared,.mtp.tensors,.mtp.present]' '[1,4,true]'
check "qwen35 default: weights = sum of the type histogram" \
	test "$(jq '[.tensor_types[].bytes]|add' "$TMP/out")" = "$(jq .weights_bytes "$TMP/out")"
check "qwen35 default: weights fit in the file after the header" \
	test "$(jq '.weights_bytes <= .file_bytes - .header_bytes' "$TMP/out")" = true
check "qwen35 default: no unknown types" json_is '.unknown_types' '[]'
check "qwen35 default: template effort values" json_is '.template.reasoning_effort' '["xhigh","medium","low"]'
check "qwen35 default: sampling defaults" json_is '.sampling' '{"temp":1,"top_p":0.949999988,"top_k":20}'

must "$ZEALOT" synth --preset bonsai-9b -o "$TMP/b9.gguf" || exit 1
run "$ZEALOT" inspect --json "$TMP/b9.gguf"
check "bonsai-9b: 33 blocks" json_is '.block_count' '33'
check "bonsai-9b: 8 attention + 24 recurrent + 1 nextn" json_is '.layers' '{"attention":8,"swa":0,"recurrent":24,"nextn":1}'
check "bonsai-9b: layer map" json_is '.layer_map' '"RRRARRRARRRARRRARRRARRRARRRARRRAN"'
check "bonsai-9b: context 262,144, vocab 248,320" json_is '[.context_length,.vocab_size]' '[262144,248320]'
check "bonsai-9b: KV 4 heads x 256 = 1024 per layer" json_is '.kv_geometry[0]' \
	'{"kind":"attention","layers":8,"head_count_kv":4,"n_embd_k_gqa":1024,"n_embd_v_gqa":1024}'
check "bonsai-9b: recurrent r/s widths" json_is '[.recurrent.n_embd_r,.recurrent.n_embd_s]' '[24576,524288]'
check "bonsai-9b: f16 weights counted" test "$(jq '.tensor_types[]|select(.type=="f16")|.count' "$TMP/out")" -gt 200
run "$ZEALOT" inspect "$TMP/b9.gguf"
check "bonsai-9b human: block line" out_has "33: 8 attention, 0 swa, 24 recurrent, 1 nextn"
check "bonsai-9b human: MTP present" out_has "declared 1, 4 nextn tensors in 1 block(s): present"

must "$ZEALOT" synth --preset ghost-mtp -o "$TMP/ghost.gguf" || exit 1
run "$ZEALOT" inspect --json "$TMP/ghost.gguf"
check "ghost-mtp: declared 1, no tensors, not present" json_is '[.mtp.declared,.mtp.tensors,.mtp.present]' '[1,0,false]'
run "$ZEALOT" inspect "$TMP/ghost.gguf"
check "ghost-mtp human: names the ghost drafter" out_has "DECLARED ONLY"

must "$ZEALOT" synth --preset bonsai-27b -o "$TMP/b27.gguf" || exit 1
run "$ZEALOT" inspect --json "$TMP/b27.gguf"
check "bonsai-27b: 16 attention + 48 recurrent, no MTP" json_is '[.layers.attention,.layers.recurrent,.mtp.declared]' '[16,48,0]'
must "$ZEALOT" synth --preset swift-27b -o "$TMP/s27.gguf" || exit 1
run "$ZEALOT" inspect --json "$TMP/s27.gguf"
check "swift-27b: 65 blocks, 1 nextn" json_is '[.block_count,.layers.nextn,.mtp.present]' '[65,1,true]'

must "$ZEALOT" synth gemma3 --set layers=12 --set swa_pattern=4 -o "$TMP/g.gguf" || exit 1
run "$ZEALOT" inspect --json "$TMP/g.gguf"
check "gemma3 12 layers pattern 4: 9 swa + 3 global" json_is '[.layers.swa,.layers.attention]' '[9,3]'
check "gemma3: window from metadata" json_is '.sliding_window' '512'

must "$ZEALOT" synth llama --set layers=5 --set kv_heads=1 -o "$TMP/l.gguf" || exit 1
run "$ZEALOT" inspect --json "$TMP/l.gguf"
check "llama: 5 attention layers, 1 KV head x 64" json_is '[.layers.attention,.kv_geometry[0].n_embd_k_gqa]' '[5,64]'

must "$ZEALOT" synth qwen35 --set type=142 -o "$TMP/pq.gguf" || exit 1
run "$ZEALOT" inspect --json "$TMP/pq.gguf"
check "custom type 142: listed as unknown" json_is '.unknown_types|map(.id)' '[142]'
check "custom type 142: bytes derived (> 0)" test "$(jq '.unknown_types[0].bytes' "$TMP/out")" -gt 0
check "custom type 142: histogram names the fork's type" json_is '[.tensor_types[]|select(.custom)|.type]' '["PQ2_0"]'
must "$ZEALOT" synth llama --set type=143 -o "$TMP/t143.gguf" || exit 1
run "$ZEALOT" inspect --json "$TMP/t143.gguf"
check "custom type 143 (no fork known): histogram says type143" json_is '[.tensor_types[]|select(.custom)|.type]' '["type143"]'
run "$ZEALOT" inspect "$TMP/pq.gguf"
check "custom type human: law S10 named" out_has "law S10"
check "custom type human: the tensor table names the fork's type" grep -qE "^ +PQ2_0 +72 " "$TMP/out"
check "custom type human: the id in the note" out_has "custom type 142: only a runtime"

# --- what the engine's loader refuses (law S17), non-regular files, the header cap
must "$ZEALOT" synth llama --set vocab=600 --set embd_rows=512 -o "$TMP/rows.gguf" || exit 1
run "$ZEALOT" inspect "$TMP/rows.gguf"
check "600 tokens over 512 token_embd rows: exit 3, the loader's refusal named" \
	test "$rc" -eq 3 -a -n "$(grep -F "tensor 'token_embd.weight' has shape [256, 512], the engine's loader expects [256, 600]" "$TMP/err")"
must "$ZEALOT" synth llama --set vocab=600 -o "$TMP/rows-ok.gguf" || exit 1
run "$ZEALOT" inspect "$TMP/rows-ok.gguf"
check "600 tokens over 600 rows: exit 0" rc_is 0
for c in heads_meta=8:attn_q:256,256:256,512 kv_heads_meta=4:attn_k:256,128:256,256 \
	head_dim_v_meta=32:attn_v:256,128:256,64 out_rows=128:attn_output:128,256:256,256; do
	IFS=: read -r set tensor got want <<<"$c"
	must "$ZEALOT" synth llama --set "$set" --force -o "$TMP/attn.gguf" || exit 1
	run "$ZEALOT" inspect "$TMP/attn.gguf"
	check "llama $set: exit 3, blk.0.$tensor.weight refused with both shapes" \
		test "$rc" -eq 3 -a -n "$(grep -F "tensor 'blk.0.$tensor.weight' has shape [${got/,/, }], the engine's loader expects [${want/,/, }]" "$TMP/err")"
done
must "$ZEALOT" synth gemma4 -o "$TMP/g4.gguf" || exit 1
run "$ZEALOT" inspect "$TMP/g4.gguf"
check "gemma4: exit 0, a loader line says its attention shapes are not checked" \
	eval 'rc_is 0 && unwrapped | grep -E "^loader +the attention projections" | grep -qF "gemma4.cpp"'
run "$ZEALOT" inspect "$TMP/rows-ok.gguf"
check "llama: no loader line (its attention is checked)" eval 'rc_is 0 && ! grep -qE "^loader " "$TMP/out"'
mkfifo "$TMP/fifo.gguf"
run timeout 20 "$ZEALOT" inspect "$TMP/fifo.gguf"
check "a FIFO: refused at once (exit 3, not a hang), named" \
	test "$rc" -eq 3 -a -n "$(grep -F "is not a regular file (a FIFO)" "$TMP/err")"
run timeout 20 "$ZEALOT" inspect /dev/zero
check "a character device: refused (exit 3), named" \
	test "$rc" -eq 3 -a -n "$(grep -F "is not a regular file (a character device)" "$TMP/err")"
python3 - "$TMP/s.sock" <<'PY'
import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])
PY
run timeout 20 "$ZEALOT" inspect "$TMP/s.sock"
check "a socket: refused (exit 3), named" \
	test "$rc" -eq 3 -a -n "$(grep -F "is not a regular file (a socket)" "$TMP/err")"
# a header claiming 2^30 tokens over a sparse 8 GiB file: every count fits
# the bytes left, so only the cap stops a walk of 8 GiB of page cache
python3 - "$TMP/v30.gguf" <<'PY'
import struct, sys
def s(x): return struct.pack('<Q', len(x)) + x
h = b'GGUF' + struct.pack('<IQQ', 3, 0, 2) + s(b'general.architecture') + struct.pack('<I', 8) + s(b'llama')
h += s(b'tokenizer.ggml.tokens') + struct.pack('<IIQ', 9, 8, 1 << 30)
with open(sys.argv[1], 'wb') as f:
    f.write(h)
    f.truncate(len(h) + (1 << 33) + 4096)
PY
t0=$(date +%s%N)
run "$ZEALOT" inspect "$TMP/v30.gguf"
ms=$((($(date +%s%N) - t0) / 1000000))
check "2^30-token header over a sparse 8 GiB file: exit 3 in ${ms} ms, the cap named" \
	test "$rc" -eq 3 -a "$ms" -lt 15000 -a -n "$(grep -F "refuses metadata past 1024 MiB" "$TMP/err")"

# set_u32 FILE KEY VALUE: rewrite a u32 key of FILE's header in place
set_u32() {
	python3 - "$@" <<'PY'
import struct, sys
key, val = sys.argv[2].encode(), int(sys.argv[3])
with open(sys.argv[1], 'r+b') as f:
    b = f.read(1 << 20)
    i = b.find(struct.pack('<Q', len(key)) + key) + 8 + len(key)
    assert i > 8 + len(key) and struct.unpack_from('<I', b, i)[0] == 4  # a u32
    f.seek(i + 4)
    f.write(struct.pack('<I', val))
PY
}

# an RWKV time mix whose wkv.head_size is 0 or does not divide the
# embedding: the engine cannot cut its heads, and the planner divided by it
# (SIGFPE); every RWKV family is refused by name, with the key
for a in rwkv6 rwkv7 arwkv7 rwkv6qwen2; do
	must "$ZEALOT" synth "$a" -o "$TMP/hs-$a.gguf" || exit 1
	for v in 0 48; do
		set_u32 "$TMP/hs-$a.gguf" "$a.wkv.head_size" "$v"
		printf 'MODEL_FILE=%s\nDEVICE=cpu\nCTX_SIZE=4096\n' "$TMP/hs-$a.gguf" >"$TMP/hs.env"
		run "$ZEALOT" plan "$TMP/hs.env"
		check "$a with wkv.head_size $v: plan refuses it (exit 3), naming the key" \
			test "$rc" -eq 3 -a -n "$(grep -F "$a.wkv.head_size = $v: " "$TMP/err")"
	done
done

# deepseek32's lightning indexer: a key row other than its tensor's (2^31
# wrapped the rotation's size), or no heads or top-k, is refused by name
for kv in key_length:0 key_length:2147483648 head_count:0 top_k:0; do
	must "$ZEALOT" synth deepseek32 --force -o "$TMP/ix.gguf" || exit 1
	set_u32 "$TMP/ix.gguf" "deepseek32.attention.indexer.${kv%:*}" "${kv#*:}"
	printf 'MODEL_FILE=%s\nDEVICE=cpu\nCTX_SIZE=4096\n' "$TMP/ix.gguf" >"$TMP/ix.env"
	run "$ZEALOT" plan "$TMP/ix.env"
	check "deepseek32 with indexer.${kv%:*} ${kv#*:}: plan refuses it (exit 3), naming the key" \
		test "$rc" -eq 3 -a -n "$(grep -F "deepseek32.attention.indexer.${kv%:*} = ${kv#*:}: " "$TMP/err")"
done

# --- usage
run "$ZEALOT" inspect --help
check "--help: exit 0 with usage" test "$rc" -eq 0
check "--help: documents --json" out_has "--json"
run "$ZEALOT" inspect
check "no file: exit 2" rc_is 2
run "$ZEALOT" inspect --bogus "$TMP/q.gguf"
check "unknown option: exit 2" rc_is 2
run "$ZEALOT" inspect "$TMP/q.gguf" extra
check "two files: exit 2" rc_is 2
