# Flags checked against the real runtime (law R02): every flag `zealot argv`
# renders must be listed in `RUNTIME --help`, read once per runtime (cached
# by its SHA-256), as nobody when root, with an empty environment. The real
# engine is clean; a stand-in whose --help is the real one without
# --spec-draft-n-max makes check fail naming the flag and the build. The
# engine's own --version build is held to RUNTIME_MIN_BUILD (law R01).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state

must "$ZEALOT" synth qwen35 -o q.gguf || exit 1
endpoint() { # RUNTIME
	printf 'RUNTIME=%s\nMODEL_FILE=q.gguf\nCTX_SIZE=4096\nPARALLEL=2\nDEVICE=cpu\nADDRESSABLE_MIB=16384\nPRESENCE_PENALTY=1.0\nSPEC_TYPE=ngram-mod\n' "$1" >ep.env
}
build=$("$SERVER" --version 2>&1 | sed -n 's/.*(build \([0-9]*\),.*/\1/p' | head -1)

# The sandbox's user must reach the engine. Where it cannot (a build under
# /root, as root), the engine and its libraries are copied where it can,
# behind a two-line script that execs the very binary with its library path.
rt=$SERVER
if [ "$(id -u)" = 0 ] && ! runuser -u nobody -- test -x "$SERVER" 2>/dev/null; then
	endpoint "$SERVER"
	run "$ZEALOT" check ep.env --json
	check "root: the engine where nobody cannot reach it is not run as root: R02 says flags unchecked, as nobody" \
		test -n "$(jq -r '.findings[]|select(.law=="R02" and .severity=="info")|.reason|select(test("as nobody"))' "$TMP/out")"
	chmod 755 "$TMP"
	mkdir -p pub/bin
	chmod 755 pub pub/bin
	cp -a "$ENGINE"/lib*.so* "$SERVER" pub/bin/
	printf '#!/bin/sh\nLD_LIBRARY_PATH=%q exec %q "$@"\n' "$TMP/pub/bin" "$TMP/pub/bin/llama-server" >pub/llama-server
	chmod 755 pub/llama-server
	rt=$TMP/pub/llama-server
fi
endpoint "$rt"
run "$ZEALOT" check ep.env --json
check "the real engine's --help lists every flag zealot renders (R02 clean, ngram-mod's spec flags included)" \
	test "$rc" -eq 0 -a "$(jq '[.findings[]|select(.law=="R02")]|length' "$TMP/out")" = 0
sha=$(sha256sum "$rt" | cut -d' ' -f1)
check "its --help is cached under the state dir by the runtime's SHA-256" grep -qF -- '--spec-draft-n-max' "$ZEALOT_STATE_DIR/runtime/$sha.help"

# the stand-in: the real help without --spec-draft-n-max, the real --version
mkdir -p pub/standin
chmod 755 pub pub/standin
grep -vF -- '--spec-draft-n-max' "$ZEALOT_STATE_DIR/runtime/$sha.help" >pub/standin/help.txt
cp "$ZEALOT_STATE_DIR/runtime/$sha.version" pub/standin/version.txt
chmod 644 pub/standin/*.txt
cat >pub/standin/llama-server <<'X'
#!/bin/sh
case "$1" in
--help) cat "${0%/*}/help.txt" ;;
--version) cat "${0%/*}/version.txt" >&2 ;;
*) exit 1 ;;
esac
X
chmod 755 pub/standin/llama-server
endpoint "$TMP/pub/standin/llama-server"
run "$ZEALOT" check ep.env --json
check "a runtime whose --help lacks --spec-draft-n-max: check exits 1" rc_is 1
check "the R02 error names the flag and the build ($build)" \
	test -n "$(jq -r '.findings[]|select(.law=="R02" and .severity=="error")|.reason|select(test("--spec-draft-n-max") and test("build '"$build"'"))' "$TMP/out")"
check "and no other flag" test "$(jq '[.findings[]|select(.law=="R02")]|length' "$TMP/out")" = 1

# R01: the engine's own build against RUNTIME_MIN_BUILD
endpoint "$rt"
run "$ZEALOT" check ep.env --set RUNTIME_MIN_BUILD="$build" --json
check "RUNTIME_MIN_BUILD at the engine's build ($build): no R01" test "$(jq '[.findings[]|select(.law=="R01")]|length' "$TMP/out")" = 0
run "$ZEALOT" check ep.env --set RUNTIME_MIN_BUILD=$((build + 1)) --json
check "RUNTIME_MIN_BUILD one above: check exits 1 naming build $build" \
	test "$rc" -eq 1 -a -n "$(jq -r '.findings[]|select(.law=="R01")|.reason|select(test("build '"$build"', below"))' "$TMP/out")"
check "no sanitizer report" no_sanitizer
