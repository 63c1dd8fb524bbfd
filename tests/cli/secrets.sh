# No secret in output: marker secrets planted in an endpoint's URLs (user
# and password), in a deploy reason, and in the environment and command line
# of a process that audit reads, never reach stdout, stderr, JSON, the
# store's rows (sqlite3 .dump) or an emitted file; the redaction mark shows
# where they were. (One function decides: src/base/redact.c.)
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state
mkdir outs

must "$ZEALOT" synth qwen35 -o q.gguf || exit 1
cat >e.env <<X
RUNTIME=/bin/true
MODEL_FILE=q.gguf
CTX_SIZE=4096
PARALLEL=1
PRESENCE_PENALTY=1.0
MMPROJ_FILE=gone.gguf
MMPROJ_URL=http://alice:MARKERPW1@127.0.0.1:1/mm.gguf
LORA_FILE=
LORA_URL=https://MARKERTOK2@127.0.0.1:1/l.gguf?X-Amz-Credential=MARKERCRED10&X-Amz-Date=1&X-Amz-Signature=MARKERSIG11&sig=MARKERSIG12&Signature=MARKERSIG13&X-Goog-Signature=MARKERSIG14
X
n=0
out() { # NAME CMD...: run, keep stdout and stderr under outs/
	n=$((n + 1))
	"${@:2}" >"outs/$n-$1.out" 2>"outs/$n-$1.err"
}
out fetch "$ZEALOT" fetch e.env
out fetch-json "$ZEALOT" fetch --json e.env
check "control: fetch failed on the URL (it was tried)" grep -qF "Couldn't connect" outs/1-fetch.err
out check "$ZEALOT" check e.env
out check-json "$ZEALOT" check --json e.env
out serve "$ZEALOT" serve --dry-run e.env
out deploy "$ZEALOT" deploy e.env --reason "rotate token=MARKERREASON3 via http://bob:MARKERPW4@example.org/"
out deploy-json "$ZEALOT" deploy e.env --json --reason "again, password=MARKERREASON9"
check "control: the deploy attempt was recorded" test -s state/zealot.db
for k in unit prometheus alerts harness; do
	out "emit-$k" "$ZEALOT" emit "$k" e.env
done
# an era recorded the way deploy records it (tests/store-fixture.c): its
# endpoint text holds the URLs, and history shows its keys
store_fixture fixture
"$ZEALOT" plan --no-calibration --json e.env >e.plan.json 2>/dev/null
./fixture era "$ZEALOT_STATE_DIR" e "$TMP/e.env" e.plan.json 1792224000 "first, api_key=MARKERREASON8" >/dev/null
out history "$ZEALOT" history e
out history-json "$ZEALOT" history e --json
check "control: history shows the era's keys (MMPROJ_URL among them)" grep -qF MMPROJ_URL outs/*-history-json.out

# a process with the secrets audit must not print
# (/usr/bin/python3, not a PATH shim that execs it again: the process is
# read while it runs, not while it execs)
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
LLAMA_ARG_API_KEY=MARKERENV5 HF_TOKEN=MARKERENV6 "$py" -c 'import time; time.sleep(120)' \
	--api-key MARKERARGV7 --port 8080 &
pid=$!
holds_markers() { # until it runs with both
	grep -qz MARKERARGV7 "/proc/$1/cmdline" && grep -qz MARKERENV5 "/proc/$1/environ" &&
		grep -qz 'time.sleep' "/proc/$1/cmdline"
} 2>/dev/null
wait_for 60 holds_markers "$pid"
check "control: the process holds the markers in its environment and argv" \
	test -n "$(tr '\0' '\n' </proc/$pid/environ | grep -F MARKERENV5)" -a -n "$(tr '\0' '\n' </proc/$pid/cmdline | grep -F MARKERARGV7)"
out audit "$ZEALOT" audit e.env --pid "$pid"
out audit-json "$ZEALOT" audit e.env --pid "$pid" --json
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
check "control: audit read the process (its LLAMA_ARG_API_KEY row is there)" grep -qF LLAMA_ARG_API_KEY outs/*-audit.out
check "audit: the engine's LLAMA_ARG_API_KEY is C09's, naming the key that owns the flag" \
	test -n "$(grep -F C09 outs/*-audit.out | grep -F 'env LLAMA_ARG_API_KEY' | grep -F '(unset: API_KEY_FILE owns it)')"
# every row, the era's endpoint text included, is redacted: the era's whole
# text (for a rollback) is in state/secrets/era-N.env, 0600 in a 0700
# directory, and nowhere else in the state directory
sqlite3 state/zealot.db "SELECT * FROM attempts; SELECT * FROM steps; SELECT * FROM boots;
	SELECT * FROM eras;" >outs/store.dump
check "control: the store holds the attempt and the era" \
	test -n "$(grep -F "rotate token=" outs/store.dump)" -a -n "$(grep -F "first, api_key=" outs/store.dump)"
check "the era's text in the store has the URLs' userinfo redacted" \
	test -n "$(grep -F 'MMPROJ_URL=http://<redacted>@127.0.0.1:1/mm.gguf' outs/store.dump)"
era_secret=$(ls state/secrets/era-*.env 2>/dev/null | head -1)
check "the era's whole text is in state/secrets, 0600 in a 0700 directory, the markers in it" \
	test -n "$era_secret" -a "$(stat -c %a state/secrets 2>/dev/null)" = 700 \
	-a "$(stat -c %a "$era_secret" 2>/dev/null)" = 600 -a -n "$(grep -F MARKERPW1 "$era_secret")"
check "the state directory is 0700, the database and its WAL 0600" \
	test "$(stat -c %a state)" = 700 -a "$(stat -c %a state/zealot.db)" = 600 \
	-a "$(stat -c %a state/zealot.db-wal 2>/dev/null || echo 600)" = 600
raw=$(grep -rlaE 'MARKER[A-Z]*[0-9]' state --exclude-dir=secrets 2>/dev/null)
check "no marker secret in any byte of the state directory but state/secrets (the database, its WAL, locks)" \
	test -z "$raw"
for f in $raw; do echo "#   $f"; done
parts=$(find . -name '*.part.state' 2>/dev/null)
check "no marker secret in a fetch's .part.state ($(echo $parts | wc -w) files)" \
	test -z "$(grep -laE 'MARKER[A-Z]*[0-9]' $parts /dev/null)"

leaks=$(grep -rlE 'MARKER[A-Z]*[0-9]' outs/ 2>/dev/null)
check "no marker secret in any output, JSON, store row or emitted file ($(ls outs | wc -l) files)" test -z "$leaks"
for f in $leaks; do grep -HnE 'MARKER[A-Z]*[0-9]' "$f" | head -3 | sed 's/^/#   /'; done
check "the redaction mark stands where they were (fetch, check --json, store, audit)" \
	test -n "$(grep -lF '<redacted>' outs/*-fetch.err)" -a -n "$(grep -lF '<redacted>' outs/*-check-json.out)" \
	-a -n "$(grep -F '<redacted>' outs/store.dump)" -a -n "$(grep -lF '<redacted>' outs/*-audit-json.out)"
check "a presigned URL's signing parameters print as the mark (issue 28 item 17)" \
	test -n "$(grep -rhoF 'X-Amz-Signature=<redacted>&sig=<redacted>&Signature=<redacted>&X-Goog-Signature=<redacted>' outs/)" \
	-a -n "$(grep -rhoF 'X-Amz-Credential=<redacted>&X-Amz-Date=1' outs/)"
check "no sanitizer report" test -z "$(grep -lE 'Sanitizer|runtime error:' outs/*.err)"
