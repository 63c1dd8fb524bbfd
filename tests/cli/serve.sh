# zealot serve: the gates refuse with status 78 and never exec; a good
# endpoint execs the runtime with exactly `zealot argv`'s command line.
# The runtime here is a stub that records its argv (tests/live boots the
# real engine).
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state

cat >stub.sh <<'X'
#!/bin/sh
# a stand-in engine: record argv, one per line, and the pid
printf '%s\n' "$0" "$@" >"$(dirname "$0")/argv.out"
echo $$ >"$(dirname "$0")/pid.out"
exit 0
X
chmod +x stub.sh
must "$ZEALOT" synth qwen35 -o q.gguf || exit 1
size=$(stat -c %s q.gguf)
sha=$(sha256sum q.gguf | cut -d' ' -f1)
good() {
	cat <<X
RUNTIME=$TMP/stub.sh
MODEL_FILE=q.gguf
MODEL_BYTES=$size
MODEL_SHA256=$sha
CTX_SIZE=8192
PARALLEL=2
PRESENCE_PENALTY=1.0
DEVICE=cpu
ADDRESSABLE_MIB=16384
X
}
good >good.env

run "$ZEALOT" serve good.env
check "good endpoint: the stub ran (exit 0)" rc_is 0
check "good endpoint: gates passed said" err_has "gates passed (laws, files, pins, fit"
"$ZEALOT" argv good.env >want.out
check "good endpoint: exec'd with exactly zealot argv's command line" cmp -s want.out argv.out
check "good endpoint: the SHA-256 was verified" err_has "MODEL_FILE SHA-256 verified"
run "$ZEALOT" serve good.env
check "second boot: the hash comes from the stamp" err_has "(stamp: file unchanged since it was hashed)"
touch q.gguf
run "$ZEALOT" serve good.env
check "a touched payload is hashed again" test "$rc" -eq 0 -a -z "$(grep -F '(stamp:' "$TMP/err")"

# refusals: exit 78, and the stub never runs
refused() { # NAME GATE-TEXT
	local name=$1 text=$2
	rm -f argv.out
	run "$ZEALOT" serve "$name.env"
	check "$name: refused with 78" rc_is 78
	check "$name: says which gate ($text)" err_has "$text"
	check "$name: never exec'd" test ! -e argv.out
}
good | sed 's/^MODEL_FILE=.*/MODEL_FILE=not-downloaded.gguf/' >missing.env
refused missing "refused at the files gate: C03"
good | sed "s/^MODEL_BYTES=.*/MODEL_BYTES=$((size - 1))/" >bytes.env
refused bytes "refused at the pins gate: MODEL_FILE"
good | sed 's/^MODEL_SHA256=.*/MODEL_SHA256=0000000000000000000000000000000000000000000000000000000000000000/' >sha.env
refused sha "has SHA-256 $sha, MODEL_SHA256 pins 0000"
{ good; echo "CACHE_TYPE_V=q8_0"; echo "FLASH_ATTN=off"; } >law.env
refused law "refused at the laws gate: S03"
{ good; echo "KV_CACHE_TYPE=q8_0"; } >unknown.env
refused unknown "did you mean"
good | sed 's/^ADDRESSABLE_MIB=.*/ADDRESSABLE_MIB=64/' >fit.env
refused fit "refused at the fit gate: M09"
must "$ZEALOT" synth qwen35 --set mtp_tensors=0 -o ghost.gguf || exit 1
{ good | grep -v -e MODEL_BYTES -e MODEL_SHA256 | sed 's/^MODEL_FILE=.*/MODEL_FILE=ghost.gguf/'; echo "SPEC_TYPE=draft-mtp"; } >ghost.env
refused ghost "S06"
{ good | sed "s|^RUNTIME=.*|RUNTIME=$TMP/nowhere/llama-server|"; } >runtime.env
refused runtime "refused at the laws gate: C03"

run "$ZEALOT" serve --dry-run good.env
check "--dry-run: prints the argv and does not exec" test "$rc" -eq 0 -a -n "$(grep -Fx -- '--ctx-size' "$TMP/out")"
run "$ZEALOT" serve
check "no endpoint: exit 2" rc_is 2
# a missing or unreadable endpoint file is a refusal a restart cannot fix:
# 78, never 3, which Restart=on-failure would turn into a loop (C03)
run "$ZEALOT" serve "$TMP/none.env"
check "missing endpoint: refused with 78, naming the file" test "$rc" -eq 78 -a -n "$(grep -F "$TMP/none.env" "$TMP/err")"
mkdir dir.env
run "$ZEALOT" serve dir.env
check "unreadable endpoint (a directory): refused with 78" rc_is 78
{ good; printf 'ALIAS=x\rLD_PRELOAD=/tmp/evil.so\n'; } >cr.env
refused cr "refused at the laws gate: "
check "cr: the refusal names law C10 and the line" err_has "cr.env:10: ALIAS: a CR not followed by LF"
run "$ZEALOT" serve --help
check "--help names the refusal status" out_has "78"

# emit
run "$ZEALOT" emit unit good.env --user dank
check "unit: exit 0" rc_is 0
cp "$TMP/out" good.service
# the binary's path is quoted when it holds a space (a clone in such a path)
check "unit: ExecStart is zealot serve on the endpoint" \
	test -n "$(grep -E "^ExecStart=(/[^ ]*|\"/[^\"]*)zealot(-san)?\"? serve $TMP/good.env$" good.service)"
for line in "Restart=on-failure" "RestartSec=10" "TimeoutStopSec=180" "LimitMEMLOCK=infinity" \
	"RestartPreventExitStatus=78" "EnvironmentFile=-$TMP/good.env" "User=dank"; do
	check "unit: $line" grep -qFx "$line" good.service
done
if command -v systemd-analyze >/dev/null; then
	run systemd-analyze verify good.service
	check "unit: systemd-analyze verify passes" test "$rc" -eq 0 -a ! -s "$TMP/err"
	sed -E 's|^ExecStart=("?)/|ExecStart=\1|' good.service >bad.service
	run systemd-analyze verify bad.service
	check "control: a relative ExecStart fails systemd-analyze verify" test "$rc" -ne 0 -o -s "$TMP/err"
else
	echo "not ok - systemd-analyze is not installed (scripts/install-deps.sh installs systemd)"
fi
run "$ZEALOT" emit prometheus good.env
check "prometheus: a job scraping /metrics on the endpoint's port" \
	test -n "$(grep -F 'job_name: good' "$TMP/out")" -a -n "$(grep -F "targets: ['127.0.0.1:8080']" "$TMP/out")"
run "$ZEALOT" emit alerts good.env --slot-minutes 7
check "alerts: down, metrics-off (501) and no-free-slot rules" \
	test -n "$(grep -F LlmEndpointDown "$TMP/out")" -a -n "$(grep -F 501 "$TMP/out")" -a -n "$(grep -F 'for: 7m' "$TMP/out")"
run "$ZEALOT" emit harness good.env
check "harness: contextWindow is the per-slot window (8192 / 2)" out_has "contextWindow: 4096"
check "harness: the template's effort map folds high onto xhigh" out_has "high: xhigh"
check "harness: sampling defaults from general.sampling.*" out_has "top_k: 20"
check "harness: presence penalty from the endpoint" out_has "presence_penalty: 1.0"
run "$ZEALOT" emit nonsense good.env
check "emit: unknown kind exit 2" rc_is 2
