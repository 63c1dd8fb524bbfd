# The architectures the pinned engine knows: src/payload/archs.c is the
# engine's own list (scripts/gen-archs.sh reads its llama-arch.cpp), and a
# payload whose architecture is not in it is refused by check (law S15)
# exactly as the engine refuses to load it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$ROOT" || exit 1

src=$(cd "$ENGINE/../.." && pwd)/src
run scripts/gen-archs.sh "$src"
check "gen-archs reads the engine's llama-arch.cpp" rc_is 0
cp "$TMP/out" "$TMP/archs.c"
run diff -u src/payload/archs.c "$TMP/archs.c"
check "src/payload/archs.c is the built engine's list (regenerate: scripts/gen-archs.sh > src/payload/archs.c)" rc_is 0
n=$(grep -cE '^    "[^"]+",$' src/payload/archs.c)
check "the list holds the engine's names ($n), (unknown) left out" test "$n" -ge 140 -a -z "$(grep -F '"(unknown)"' src/payload/archs.c)"

# a llama payload renamed to an architecture nobody defines: the value of
# general.architecture and every "llama." key prefix, at equal length
must "$ZEALOT" synth llama -o "$TMP/l.gguf" || exit 1
python3 - "$TMP/l.gguf" "$TMP/zz.gguf" <<'X'
import sys
b = open(sys.argv[1], "rb").read()
key = b"general.architecture"
i = b.index(key) + len(key) + 4 + 8          # the value's type and length
assert b[i:i + 5] == b"llama"
b = b[:i] + b"zzama" + b[i + 5:]
b = b.replace(b"llama.", b"zzama.")
open(sys.argv[2], "wb").write(b)
X
zz_boot() {
	timeout 120 "$SERVER" --host 127.0.0.1 --port "$(free_port)" -m "$TMP/zz.gguf" -c 512 >"$TMP/zz.log" 2>&1
	erc=$?
}
zz_boot
# (the engine logs through a thread, and one that exits can lose its last
# line: log_holds boots again when the line is missing)
zz_refused() {
	log_holds "$TMP/zz.log" "unknown model architecture: 'zzama'" erc zz_boot && [ "$erc" -ne 0 ] && [ "$erc" -ne 124 ]
}
check "the engine refuses an architecture it does not know (exit $erc)" zz_refused

printf 'MODEL_FILE=zz.gguf\nDEVICE=cpu\nCTX_SIZE=512\nRUNTIME=llama-server\n' >"$TMP/zz.env"
run "$ZEALOT" check "$TMP/zz.env"
check "check refuses it before boot: S15, naming the engine's list" \
	eval 'rc_is 1 && unwrapped | grep -F S15 | grep -F "knows no architecture '"'"'zzama'"'"'" | grep -qF "llama-arch.cpp"'
printf 'MODEL_FILE=l.gguf\nDEVICE=cpu\nCTX_SIZE=512\nRUNTIME=llama-server\n' >"$TMP/l.env"
run "$ZEALOT" check "$TMP/l.env"
check "the same payload as llama: no S15" eval '! grep -qF S15 "$TMP/out" && no_sanitizer'
