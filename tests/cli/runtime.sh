# The runtime pinned like the payload (law R01: RUNTIME_SHA256 through
# serve's stamp cache, RUNTIME_MIN_BUILD against --version) and the flags
# zealot renders checked against the runtime's --help (law R02), read once
# per runtime (cached by its SHA-256), unprivileged and with an empty
# environment. Stand-in runtimes here; tests/live/runtime.sh reads the real
# engine's --help.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

# a directory the sandbox's user (nobody, when root) can reach
chmod 755 "$TMP"
mkdir -p pub/rt pub/log
chmod 755 pub pub/rt
chmod 1777 pub/log
must "$ZEALOT" synth qwen35 -o q.gguf || exit 1
cat >ep.env <<X
RUNTIME=$TMP/pub/rt/llama-server
MODEL_FILE=q.gguf
CTX_SIZE=4096
DEVICE=cpu
ADDRESSABLE_MIB=16384
PRESENCE_PENALTY=1.0
SPEC_TYPE=ngram-mod
X
# the stand-in: --help prints help.txt beside it, --version the seeds' fork
# build; it notes who ran it and with what environment
cat >pub/rt/llama-server <<'X'
#!/bin/sh
d=${0%/*}
case "$1" in
--help) id -u >"$d/../log/uid"; env >"$d/../log/env"; cat "$d/help.txt" ;;
--version) echo "version: 0.2.0-dev (build 10777, commit e3de71522)" >&2 ;;
*) exit 1 ;;
esac
X
chmod 755 pub/rt/llama-server
# its help lists every flag zealot renders for ep.env, one per line
help_without() {
	{
		echo "usage: llama-server [options]"
		echo "-m,    --model FNAME    model path"
		"$ZEALOT" argv ep.env | grep -E '^--?[a-zA-Z]' | grep -vxF -- "$1" | sed 's/^/      /; s/$/ VALUE   an option/'
	} >pub/rt/help.txt
	chmod 644 pub/rt/help.txt
}
help_without --no-such-flag
sha=$(sha256sum pub/rt/llama-server | cut -d' ' -f1)
reachable=1
if [ "$(id -u)" = 0 ] && ! runuser -u nobody -- test -x "$TMP/pub/rt/llama-server" 2>/dev/null; then reachable=0; fi

run env ZEALOT_PLANTED=unit-env "$ZEALOT" check ep.env --json
check "R02: a runtime whose --help lists every rendered flag: check exits 0" rc_is 0
check "R02: no R02 finding" json_is '[.findings[]|select(.law=="R02")]' '[]'
if [ "$reachable" = 1 ]; then
	check "the help is cached by the runtime's SHA-256 under the state dir" test -s "$ZEALOT_STATE_DIR/runtime/$sha.help"
	if [ "$(id -u)" = 0 ]; then
		check "--help ran unprivileged: as nobody, not root" test "$(cat pub/log/uid)" = "$(id -u nobody)"
	else
		check "--help ran as this user" test "$(cat pub/log/uid)" = "$(id -u)"
	fi
	check "--help ran with an empty environment (no variable of zealot's, no unit's)" \
		test -z "$(grep -E 'ZEALOT|PLANTED|ASAN|HOME=' pub/log/env)"
else
	echo "ok - # SKIP $TMP is not reachable by nobody"
fi

# read once: the same binary is not asked again (its help.txt gone, the cache answers)
mv pub/rt/help.txt pub/rt/help.gone
rm -f pub/log/uid
run "$ZEALOT" check ep.env --json
check "cached: a second check does not run the runtime" test "$rc" -eq 0 -a ! -e pub/log/uid
mv pub/rt/help.gone pub/rt/help.txt

# a runtime whose --help lacks --spec-draft-n-max (another binary: a new cache entry)
help_without --spec-draft-n-max
echo "# build b" >>pub/rt/llama-server
run "$ZEALOT" check ep.env --json
check "R02: a flag the runtime lacks is a check error: exit 1" rc_is 1
check "R02: the error names the flag and the build" \
	test -n "$(jq -r '.findings[]|select(.law=="R02" and .severity=="error")|.reason|select(test("--spec-draft-n-max") and test("build 10777"))' "$TMP/out")"
check "R02: only that flag" json_is '[.findings[]|select(.law=="R02")]|length' 1
run "$ZEALOT" check ep.env --set SPEC_TYPE=none --json
check "R02: without speculation nothing renders the flag: clean" json_is '[.findings[]|select(.law=="R02")]' '[]'
run "$ZEALOT" check ep.env --set EXTRA_ARGS=--frobnicate --set SPEC_TYPE=none --json
check "R02: an EXTRA_ARGS flag is checked too" \
	test -n "$(jq -r '.findings[]|select(.law=="R02")|.reason|select(test("--frobnicate"))' "$TMP/out")"

# a runtime that is no llama-server says so, and checks nothing
run "$ZEALOT" check ep.env --set RUNTIME=/bin/true --json
check "R02: /bin/true's help is no llama-server help: flags unchecked (info), no error" \
	json_is '[.findings[]|select(.law=="R02")|.severity]' '["info"]'

# R01: RUNTIME_SHA256
sha=$(sha256sum pub/rt/llama-server | cut -d' ' -f1)
wrong=$(printf '%064d' 0)
run "$ZEALOT" check ep.env --set SPEC_TYPE=none --set RUNTIME_SHA256="$sha" --json
check "R01: the runtime's own SHA-256 pinned: no R01" json_is '[.findings[]|select(.law=="R01")]' '[]'
run "$ZEALOT" check ep.env --set SPEC_TYPE=none --set RUNTIME_SHA256="$wrong" --json
check "R01: another runtime than the pin: check exits 1" rc_is 1
check "R01: the error names both hashes" \
	test -n "$(jq -r '.findings[]|select(.law=="R01")|.reason|select(test("'"$sha"'") and test("'"$wrong"'"))' "$TMP/out")"
sed -i 's/^SPEC_TYPE=.*/SPEC_TYPE=none/' ep.env
printf 'RUNTIME_SHA256=%s\n' "$wrong" >>ep.env
run "$ZEALOT" serve ep.env --dry-run
check "R01: serve refuses a RUNTIME_SHA256 mismatch with 78" test "$rc" -eq 78 -a -n "$(grep -F 'R01' "$TMP/err")"
sed -i "s/^RUNTIME_SHA256=.*/RUNTIME_SHA256=$sha/" ep.env
run "$ZEALOT" serve ep.env --dry-run
check "R01: serve passes the pinned runtime" rc_is 0
check "R01: the runtime's hash went through the stamp cache" test -n "$(ls "$ZEALOT_STATE_DIR" | head -1)"

# R01: RUNTIME_MIN_BUILD (the stand-in is build 10777; the seeds' floor is 10776)
run "$ZEALOT" check ep.env --set RUNTIME_MIN_BUILD=10776 --json
check "R01: build 10777 meets RUNTIME_MIN_BUILD=10776" json_is '[.findings[]|select(.law=="R01")]' '[]'
run "$ZEALOT" check ep.env --set RUNTIME_MIN_BUILD=10778 --json
check "R01: below RUNTIME_MIN_BUILD: check exits 1, naming the build" \
	test "$rc" -eq 1 -a -n "$(jq -r '.findings[]|select(.law=="R01")|.reason|select(test("build 10777, below RUNTIME_MIN_BUILD 10778"))' "$TMP/out")"
run "$ZEALOT" check ep.env --set RUNTIME=/bin/true --set RUNTIME_SHA256= --set RUNTIME_MIN_BUILD=1 --json
check "R01: a runtime whose --version names no build fails a floor" \
	test "$rc" -eq 1 -a "$(jq '[.findings[]|select(.law=="R01")]|length' "$TMP/out")" -eq 1
# root without a capability (the emitted unit's empty CapabilityBoundingSet=)
# cannot drop to nobody and has nothing to drop: serve still reads the build
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	printf 'RUNTIME_MIN_BUILD=10776\n' >>ep.env
	run env ZEALOT_STATE_DIR="$TMP/capless" setpriv --bounding-set -all --inh-caps -all -- "$ZEALOT" serve ep.env --dry-run
	check "R01: serve as root with no capability reads the build (no cache) and passes the floor" rc_is 0
	sed -i 's/^RUNTIME_MIN_BUILD=10776$/RUNTIME_MIN_BUILD=10778/' ep.env
	run env ZEALOT_STATE_DIR="$TMP/capless2" setpriv --bounding-set -all --inh-caps -all -- "$ZEALOT" serve ep.env --dry-run
	check "R01: ... and refuses a build below it with 78" test "$rc" -eq 78 -a -n "$(grep -F 'build 10777, below RUNTIME_MIN_BUILD 10778' "$TMP/err")"
else
	printf 'RUNTIME_MIN_BUILD=10778\n' >>ep.env
fi
run "$ZEALOT" serve ep.env --dry-run
check "R01: serve refuses a build below the floor with 78" rc_is 78
check "no sanitizer report" no_sanitizer

# fetch --pin writes the runtime's pin beside the payload's
grep -v '^RUNTIME_SHA256=\|^RUNTIME_MIN_BUILD=' ep.env >fp.env
run "$ZEALOT" fetch fp.env --pin
sha=$(sha256sum pub/rt/llama-server | cut -d' ' -f1)
check "fetch --pin: RUNTIME_SHA256 written, the runtime's SHA-256, right after RUNTIME" \
	test "$rc" -eq 0 -a "$(grep -A1 '^RUNTIME=' fp.env | tail -1)" = "RUNTIME_SHA256=$sha"
run "$ZEALOT" fetch fp.env --pin
check "fetch --pin again: the pin is not written twice" test "$rc" -eq 0 -a "$(grep -c '^RUNTIME_SHA256=' fp.env)" = 1
run "$ZEALOT" check fp.env --json
check "the pin fetch wrote holds (no R01)" json_is '[.findings[]|select(.law=="R01")]' '[]'

# the runtime in the era: history and diff show a runtime change like a payload change
store_fixture fixture
check "the store fixture builds" test -x fixture
export ZEALOT_STATE_DIR=$TMP/era-state
mkdir -p "$ZEALOT_STATE_DIR"
echo null >plan.json
cp ep.env rt.env
shaA=$(printf 'a%.0s' $(seq 64)) shaB=$(printf 'b%.0s' $(seq 64))
pins() { printf '{"RUNTIME":{"path":"/opt/llama/llama-server","bytes":1,"sha256":"%s"}}' "$1"; }
FIXTURE_PINS=$(pins "$shaA") FIXTURE_RUNTIME_VERSION="version: 1 (build 10709, commit 1111111)" \
	./fixture era "$ZEALOT_STATE_DIR" rt rt.env plan.json 1792224000 "prism-b10709" >/dev/null
FIXTURE_PINS=$(pins "$shaB") ./fixture era "$ZEALOT_STATE_DIR" rt rt.env plan.json 1792300000 "prism-b10777" >/dev/null
FIXTURE_PINS=$(pins "$shaB") ./fixture era "$ZEALOT_STATE_DIR" rt rt.env plan.json 1792400000 "same runtime" >/dev/null
run "$ZEALOT" diff rt 1 2 --json
check "diff: a runtime change between eras with the same keys is shown" \
	test "$(jq -c '[.runtime.changed, .runtime.from.sha256[0:4], .runtime.to.sha256[0:4], .runtime.from.build, .runtime.to.build]' "$TMP/out")" = '[true,"aaaa","bbbb","b10709-1111111","b10777-e3de71522"]'
run "$ZEALOT" diff rt 1 2
check "diff (text): runtime CHANGED, both builds named" test -n "$(grep -A1 '^runtime CHANGED' "$TMP/out" | grep -F 'b10709-1111111' | grep -F 'b10777-e3de71522')"
run "$ZEALOT" diff rt 2 3 --json
check "diff: the same runtime is no change" json_is '.runtime.changed' false
run "$ZEALOT" diff rt.env --json
sha_now=$(sha256sum pub/rt/llama-server | cut -d' ' -f1)
check "diff against the file: the runtime on disk, hashed now" json_is '[.runtime.to.sha256, .runtime.changed]' "[\"$sha_now\",true]"
run "$ZEALOT" history rt --json
check "history: the rollback to the era before names a runtime change" \
	json_is '[.eras[].rollback | if . == null then null else .runtime_changed end]' '[null,true,false]'
run "$ZEALOT" history rt
check "history (text): each era's runtime sha256" test "$(grep -c 'sha256 aaaaaaaaaaaa\.\.\.\|sha256 bbbbbbbbbbbb\.\.\.' "$TMP/out")" -ge 3
check "no sanitizer report (history, diff)" no_sanitizer

# issue 28 item 2: a runtime whose --help answers and whose --version exits
# non-zero (a wrapper script, a runtime the sandbox user cannot run) is a
# finding that names the cause, not a crash
export ZEALOT_STATE_DIR=$TMP/wrap-state
mkdir -p pub/wrap
chmod 755 pub/wrap
help_without --no-such-flag
cp pub/rt/help.txt pub/wrap/help.txt
chmod 644 pub/wrap/help.txt
cat >pub/wrap/llama-server <<'X'
#!/bin/sh
case "$1" in
--help) cat "${0%/*}/help.txt" ;;
*) echo "wrapper: no such option $1" >&2; exit 4 ;;
esac
X
chmod 755 pub/wrap/llama-server
run "$ZEALOT" check ep.env --set RUNTIME="$TMP/pub/wrap/llama-server" --set RUNTIME_SHA256= --set RUNTIME_MIN_BUILD= --set SPEC_TYPE=none --json
check "R02: --version exiting 4 is no crash (check answers, no signal)" test "$rc" -lt 128 -a -s "$TMP/out"
check "R02: ... it is an info finding naming the cause (exit status 4)" \
	test -n "$(jq -r '.findings[]|select(.law=="R02" and .severity=="info")|.reason|select(test("version") and test("exit status 4"))' "$TMP/out")"
check "no sanitizer report (a --version that fails)" no_sanitizer

# issue 28 item 7: a runtime whose RUNTIME_SHA256 does not match is never
# run, neither for --help nor for --version (vetting a file runs no code)
export ZEALOT_STATE_DIR=$TMP/pin-state
cat >pub/wrap/trap <<'X'
#!/bin/sh
echo "$*" >>"${0%/*}/../log/ran"
cat "${0%/*}/help.txt"
X
chmod 755 pub/wrap/trap
rm -f pub/log/ran
wrong=$(printf '0%.0s' $(seq 64))
run "$ZEALOT" check ep.env --set RUNTIME="$TMP/pub/wrap/trap" --set RUNTIME_SHA256="$wrong" --set RUNTIME_MIN_BUILD=10776 --json
check "R01: a runtime the pin does not match is not run (no --help, no --version)" test ! -e pub/log/ran
check "R01: ... check still refuses it (exit 1, R01)" \
	test "$rc" -eq 1 -a -n "$(jq -r '.findings[]|select(.law=="R01" and .severity=="error")|.reason' "$TMP/out")"
check "R01: ... the build is unread because the pin fails (said)" \
	test -n "$(jq -r '.findings[]|.reason|select(test("not run: its SHA-256"))' "$TMP/out")"
sha_trap=$(sha256sum pub/wrap/trap | cut -d' ' -f1)
run "$ZEALOT" check ep.env --set RUNTIME="$TMP/pub/wrap/trap" --set RUNTIME_SHA256="$sha_trap" --set RUNTIME_MIN_BUILD= --json
if [ "$reachable" = 1 ]; then
	check "control: the same runtime pinned right is run" test -s pub/log/ran
fi
check "no sanitizer report (pins)" no_sanitizer

# calibration asks the runtime its build through the same runtime_ask: a
# runtime the pin does not match is not run by plan either (it once ran
# RUNTIME --version unsandboxed and unpinned, store/calib.c)
export ZEALOT_STATE_DIR=$TMP/calib-state
EX=$ROOT/examples/history
must "$ZEALOT" ledger "$EX/frank-zealot-2026-10-19.journal" --record "$EX/frank-zealot.env" --settled-used 22870 >/dev/null
rm -f pub/log/ran
run "$ZEALOT" plan "$EX/frank-zealot.env" --json --set RUNTIME="$TMP/pub/wrap/trap" --set RUNTIME_SHA256="$wrong"
check "plan: a boot of this device and payload is recorded (so the runtime is worth asking)" \
	test "$(jq -r '.calibration' "$TMP/out")" != "" -a "$rc" -eq 0
check "plan: a runtime the pin does not match is not run for its --version" test ! -e pub/log/ran
run "$ZEALOT" plan "$EX/frank-zealot.env" --json --set RUNTIME="$TMP/pub/wrap/trap" --set RUNTIME_SHA256="$sha_trap"
if [ "$reachable" = 1 ]; then
	check "control: plan runs the same runtime pinned right" test -s pub/log/ran
fi
check "no sanitizer report (calibration's runtime)" no_sanitizer
