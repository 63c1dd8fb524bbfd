# zealot fetch against hostile servers: a fault-injecting proxy of our own
# (tests/faultproxy.py) in front of a real nginx. Resets, stalls, short
# bodies, ranges ignored, 416, an ETag that changes between attempts, an
# HTML page instead of a GGUF, a redirect to another host (which must not
# get the token), a disk that fills up.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/nginx.sh"
export ZEALOT_STATE_DIR=$TMP/state
proxy_pid=
trap 'nginx_stop; [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; rm -rf "$TMP"' EXIT
if ! command -v nginx >/dev/null; then
	echo "not ok - nginx is not installed (scripts/install-deps.sh)"
	exit 0
fi
www=$TMP/www
mkdir -p "$www"
must "$ZEALOT" synth qwen35 -o "$www/q.gguf" || exit 1
must "$ZEALOT" synth qwen35 --set vocab=30000 -o "$www/slowq.gguf" || exit 1
nginx_start "$www" || { echo "not ok - nginx starts"; exit 0; }
PP=$(free_port)
OP=$(free_port 127.0.0.2)
PLOG=$TMP/proxy.log
python3 "$ROOT/tests/faultproxy.py" "http://127.0.0.1:$NGINX_PORT" "$PP" 127.0.0.2 "$OP" "$PLOG" >"$TMP/proxy.out" 2>&1 &
proxy_pid=$!
wait_for 60 grep -q ready "$TMP/proxy.out"
P=http://127.0.0.1:$PP

# endpoint NAME URL [FILE]: a pinned endpoint fetching URL into $TMP/NAME/
endpoint() {
	local name=$1 url=$2 src=${3:-q.gguf}
	mkdir -p "$TMP/$name"
	cat >"$TMP/$name/e.env" <<EOF
MODEL_FILE=m.gguf
MODEL_URL=$url
MODEL_BYTES=$(stat -c %s "$www/$src")
MODEL_SHA256=$(sha256sum "$www/$src" | cut -d' ' -f1)
CTX_SIZE=4096
EOF
}
events() { jq -r "select(.event==\"$1\")|.why" "$TMP/out"; }
landed() { cmp -s "$TMP/$1/m.gguf" "$www/${2:-q.gguf}"; }
# (inside check: a `check ... && landed` ran cmp outside it, where it failed nothing)
ok_landed() { test "$rc" -eq 0 && landed "$@"; }

# --- a reset mid-body: retried, resumed from where it broke, verified
endpoint reset "$P/reset/q.gguf"
run "$ZEALOT" fetch --json "$TMP/reset/e.env"
check "reset mid-body: exit 0, the file verifies" ok_landed reset
check "reset mid-body: a retry event" test -n "$(events retry)"
check "reset mid-body: the retry asked for the rest (Range from the cut)" \
	test -n "$(jq -r 'select(.path=="/reset/q.gguf" and .range != null)|.range' "$PLOG" | grep -E '^bytes=[1-9][0-9]*-$')"
check "reset mid-body: the retry carried If-Range" \
	test -n "$(jq -r 'select(.path=="/reset/q.gguf" and .if_range != null)|.if_range' "$PLOG")"
# the cut is at no 4 KiB boundary: the resumed bytes up to the next one go
# through the page cache, the rest with O_DIRECT, into the same file
cut=$(jq -r 'select(.path=="/reset/q.gguf" and .range != null)|.range' "$PLOG" | head -1 | sed 's/^bytes=//; s/-$//')
check "reset mid-body: the retry resumed at no 4 KiB boundary (byte $cut)" test -n "$cut" -a $((cut % 4096)) -ne 0

# --- a short body (closed early): retried and resumed
endpoint short "$P/short/q.gguf"
run "$ZEALOT" fetch --json "$TMP/short/e.env"
check "short body: exit 0, the file verifies" ok_landed short
check "short body: a retry event" test -n "$(events retry)"

# --- a stall: the stall timeout ends it, the retry resumes
endpoint stall "$P/stall/q.gguf"
t0=$(date +%s)
run "$ZEALOT" fetch --json --stall-timeout 2 "$TMP/stall/e.env"
t1=$(date +%s)
check "stall: exit 0, the file verifies" ok_landed stall
check "stall: the stall timeout fired (a retry) within seconds" test -n "$(events retry)" -a $((t1 - t0)) -lt 20

# kill_at NAME CHUNK: run fetch on $TMP/NAME/e.env; it kills itself (SIGKILL,
# as kill -9) once its CHUNKth chunk of 4 MiB is on disk and in the state
# (fault point fetch:chunk): the same cut every run
kill_at() {
	local name=$1 chunk=$2
	ZEALOT_FAULT=fetch:chunk:kill@$chunk ZEALOT_FAULT_LOG=$TMP/$name/fault.log \
		"$ZEALOT" fetch --json "$TMP/$name/e.env" >"$TMP/$name/events" 2>&1
	check "$name: killed at fetch:chunk pass $chunk (status $?)" \
		test "$(cut -d' ' -f1-3 "$TMP/$name/fault.log" 2>/dev/null)" = "fetch:chunk kill $chunk"
}

# --- one writer per target. The first fetch is held mid-body by a stalled
# answer (a moment we can see: its lock names it and half the file is on
# disk); a second fetch of the same MODEL_FILE from another endpoint file
# must refuse, naming the first one's pid, and touch nothing.
cp "$www/q.gguf" "$www/lk.gguf"
endpoint lock "$P/stall/lk.gguf" lk.gguf
sed "s|^MODEL_URL=.*|MODEL_URL=$P/ok/lk.gguf|" "$TMP/lock/e.env" >"$TMP/lock/e2.env"
"$ZEALOT" fetch --json --stall-timeout 600 "$TMP/lock/e.env" >"$TMP/lock/events1" 2>"$TMP/lock/err1" &
pid1=$!
# held: the proxy sent its half and stalls. fetch writes in slots of up
# to 2 MiB (src/fetch/fetch_int.h SLOT) and reports a few times a second, so
# the .part stands still once the last three reports agree on bytes on
# disk within a slot of the half (the count is left in d)
held() { # EVENTS SIZE
	local last
	last=$(jq -r 'select(.event=="progress")|.done' "$1" 2>/dev/null | tail -3)
	d=$(echo "$last" | tail -1)
	[ "$(echo "$last" | grep -c .)" = 3 ] && [ "$(echo "$last" | sort -u | grep -c .)" = 1 ] &&
		[ "${d:-0}" -gt 0 ] && [ "$d" -gt $(($2 / 2 - 2097152)) ]
}
# (a write that landed while the server stalls counts as on disk at once:
# once it did so only when the next slot filled, which a stall never
# does, and this wait ran out its minute)
wait_for 60 held "$TMP/lock/events1" "$(stat -c %s "$www/lk.gguf")"
held_rc=$?
check "lock: the first fetch is held mid-body (bytes on disk, the rest stalled)" \
	test "$held_rc" -eq 0 -a "${d:-0}" -gt 0 -a "${d:-0}" -lt "$(stat -c %s "$www/lk.gguf")"
part_before=$(sha256sum <"$TMP/lock/m.gguf.part")
run "$ZEALOT" fetch "$TMP/lock/e2.env"
check "lock: a second fetch of the same file exits 3" rc_is 3
check "lock: it names the first one's pid" grep -qF "being fetched by pid $pid1" "$TMP/err"
check "lock: it touched neither the .part nor the target" \
	test "$(sha256sum <"$TMP/lock/m.gguf.part")" = "$part_before" -a ! -e "$TMP/lock/m.gguf"
run "$ZEALOT" fetch --json "$TMP/lock/e2.env"
check "lock: --json says so in the result's error" \
	test "$(jq -r 'select(.event=="result")|.status' "$TMP/out")" = failed -a \
	-n "$(jq -r 'select(.event=="result")|.error' "$TMP/out" | grep -F "pid $pid1")"
# the first fetch dies: the kernel drops its lock, and a rerun of its
# endpoint (the same URL) resumes its .part
kill -9 "$pid1"
wait "$pid1" 2>/dev/null
run "$ZEALOT" fetch --json "$TMP/lock/e.env"
check "lock: after the holder died, the next fetch exits 0 and the file verifies" \
	ok_landed lock lk.gguf
check "lock: it resumed the dead fetch's .part (no restart)" \
	test -n "$(jq -r 'select(.event=="start")|.why' "$TMP/out" | grep -F resumed)" -a -z "$(events restart)"
check "lock: no lock file is left" test ! -e "$TMP/lock/m.gguf.part.lock" -a ! -e "$TMP/lock/m.gguf.part.state"

# --- two fetches of one file at once, racing freely: whoever wins, the file
# verifies, and a loser either refused naming a pid or found the file done
for round in 1 2 3; do
	rm -rf "$TMP/race"
	endpoint race "$P/ok/slow/slowq.gguf" slowq.gguf
	cp "$TMP/race/e.env" "$TMP/race/e2.env"
	"$ZEALOT" fetch --json "$TMP/race/e.env" >"$TMP/race/o1" 2>"$TMP/race/r1" &
	a=$!
	"$ZEALOT" fetch --json "$TMP/race/e2.env" >"$TMP/race/o2" 2>"$TMP/race/r2" &
	b=$!
	wait "$a"
	ra=$?
	wait "$b"
	rb=$?
	ok=1
	for x in "$ra:$TMP/race/r1" "$rb:$TMP/race/r2"; do
		case ${x%%:*} in
		0) ;;
		3) grep -qE "being fetched by pid ($a|$b)" "${x#*:}" || ok=0 ;;
		*) ok=0 ;;
		esac
	done
	check "race $round: one won ($ra/$rb), each loser named the winner" \
		test "$ok" -eq 1 -a \( "$ra" -eq 0 -o "$rb" -eq 0 \)
	check "race $round: the file verifies" landed race slowq.gguf
done

# --- a server that ignores Range on the resume: the .part restarts cleanly
endpoint norange "$P/norange/slowq.gguf" slowq.gguf
kill_at norange 3
check "norange: a .part was left by the kill" test -s "$TMP/norange/m.gguf.part"
run "$ZEALOT" fetch --json "$TMP/norange/e.env"
check "200 instead of 206: exit 0, the file verifies" ok_landed norange slowq.gguf
check "200 instead of 206: restarted from byte 0, saying why" test -n "$(events restart | grep -F '200 to a range request')"

# --- 416 on the resume: restart from byte 0
endpoint r416 "$P/r416/slowq.gguf" slowq.gguf
kill_at r416 3
run "$ZEALOT" fetch --json "$TMP/r416/e.env"
check "416: exit 0, the file verifies" ok_landed r416 slowq.gguf
check "416: restarted, saying why" test -n "$(events restart | grep -F '416')"

# --- an ETag that changes between attempts (the server ignores If-Range)
endpoint etag "$P/etag/q.gguf"
run "$ZEALOT" fetch --json "$TMP/etag/e.env"
check "changed ETag: exit 0, the file verifies" ok_landed etag
check "changed ETag: the resumed 206 was refused, the file restarted" test -n "$(events restart | grep -F 'validator changed')"

# --- a real server whose file changed between attempts (nginx honours If-Range)
mkdir -p "$TMP/chg"
cp "$www/slowq.gguf" "$www/chg.gguf"
endpoint chg "http://127.0.0.1:$NGINX_PORT/chg.gguf" slowq.gguf
kill_at chg 3
must "$ZEALOT" synth qwen35 --set vocab=30000 --set name=other --force -o "$www/chg.gguf" || exit 1
touch -d '+1 minute' "$www/chg.gguf"
sed -i "s/^MODEL_SHA256=.*/MODEL_SHA256=$(sha256sum "$www/chg.gguf" | cut -d' ' -f1)/; s/^MODEL_BYTES=.*/MODEL_BYTES=$(stat -c %s "$www/chg.gguf")/" "$TMP/chg/e.env"
run "$ZEALOT" fetch --json "$TMP/chg/e.env"
check "changed upstream file (nginx): exit 0, the new file, never a splice" ok_landed chg chg.gguf
check "changed upstream file: restarted on the 200 to If-Range" test -n "$(events restart)"

# --- an HTML error page instead of a GGUF
endpoint html "$P/html/q.gguf"
run "$ZEALOT" fetch "$TMP/html/e.env"
check "HTML page: exit 3, says so" test "$rc" -eq 3 -a -n "$(grep -F 'HTML page' "$TMP/err")"
check "HTML page: nothing in place, no .part" test ! -e "$TMP/html/m.gguf" -a ! -e "$TMP/html/m.gguf.part"
run "$ZEALOT" inspect "$P/html/q.gguf"
check "HTML page: inspect URL exit 3" rc_is 3

# --- statuses
endpoint s401 "$P/status/401/q.gguf"
run "$ZEALOT" fetch "$TMP/s401/e.env"
check "401: exit 3, gated or needs a token" test "$rc" -eq 3 -a -n "$(grep -F 'gated or needs a token' "$TMP/err")"
endpoint s403 "$P/status/403/q.gguf"
run "$ZEALOT" fetch "$TMP/s403/e.env"
check "403: exit 3, gated or needs a token" test "$rc" -eq 3 -a -n "$(grep -F 'gated or needs a token' "$TMP/err")"
run "$ZEALOT" inspect "$P/status/404/q.gguf"
check "404 at inspect URL: exit 3, names the URL" test "$rc" -eq 3 -a -n "$(grep -F "$P/status/404/q.gguf" "$TMP/err")"

# --- a redirect to another host: followed, and the token stays home
echo "zealot-secret-token" >"$TMP/token"
endpoint redir "$P/redirect/q.gguf"
echo "TOKEN_FILE=$TMP/token" >>"$TMP/redir/e.env"
: >"$PLOG"
run "$ZEALOT" fetch --json "$TMP/redir/e.env"
check "redirect to another host: exit 0, the file verifies" ok_landed redir
check "redirect: the first host got the token" \
	test "$(jq -r "select(.listener==\"127.0.0.1:$PP\")|.authorization" "$PLOG" | head -1)" = "Bearer zealot-secret-token"
check "redirect: the other host (127.0.0.2) was asked" test -n "$(jq -r "select(.listener==\"127.0.0.2:$OP\")|.path" "$PLOG")"
check "redirect: the other host never got the token" \
	test "$(jq -r "select(.listener==\"127.0.0.2:$OP\")|.authorization" "$PLOG" | sort -u)" = null
check "redirect: the token is in no output" test -z "$(grep -F zealot-secret-token "$TMP/out" "$TMP/err")"
: >"$PLOG"
run env HF_TOKEN=zealot-secret-token "$ZEALOT" inspect --json "$P/redirect/q.gguf"
check "inspect URL through a redirect: exit 0" rc_is 0
check "inspect URL: the other host never got the token" \
	test "$(jq -r "select(.listener==\"127.0.0.2:$OP\")|.authorization" "$PLOG" | sort -u)" = null
check "inspect URL: the first host did" test -n "$(jq -r "select(.listener==\"127.0.0.1:$PP\")|.authorization" "$PLOG" | grep -F zealot-secret-token)"
# while a download runs: the token is in no process's argv (fetch execs
# nothing); fetch stops itself after its first chunk (fetch:chunk:stop) and
# is looked at there, then killed
endpoint argvtok "$P/ok/slowq.gguf" slowq.gguf
echo "TOKEN_FILE=$TMP/token" >>"$TMP/argvtok/e.env"
ZEALOT_FAULT=fetch:chunk:stop ZEALOT_FAULT_LOG=$TMP/argvtok/fault.log "$ZEALOT" fetch "$TMP/argvtok/e.env" >/dev/null 2>&1 &
fpid=$!
fault_wait "$TMP/argvtok/fault.log" fetch:chunk "$fpid" >/dev/null
cmdlines=$(for p in $fpid $(pgrep -P "$fpid"); do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done 2>/dev/null)
children=$(pgrep -P "$fpid" 2>/dev/null)
kill -9 "$fpid" 2>/dev/null
wait "$fpid" 2>/dev/null
check "mid-download: fetch runs no child and its argv has no token" \
	test -z "$children" -a -n "$cmdlines" -a -z "$(echo "$cmdlines" | grep -F zealot-secret-token)"

# --- a redirect loop is bounded
cat >"$TMP/loop.py" <<'EOF'
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        self.send_response(302); self.send_header("Location", self.path + "x"); self.send_header("Content-Length", "0"); self.end_headers()
HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
LP=$(free_port)
python3 "$TMP/loop.py" "$LP" &
loop_pid=$!
# until it listens (a wait on the port, not on the clock)
listens() { (echo >/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
wait_for 60 listens "$LP"
endpoint loop "http://127.0.0.1:$LP/q.gguf"
run "$ZEALOT" fetch "$TMP/loop/e.env"
check "a redirect loop: exit 3 after a bounded number of hops" test "$rc" -eq 3 -a -n "$(grep -F 'redirects' "$TMP/err")"
kill "$loop_pid" 2>/dev/null

# --- the publisher's checksum: X-Linked-Etag on a resolve's redirect, or a
# sha256 ETag, is checked against the bytes and written by --pin
qsha=$(sha256sum "$www/q.gguf" | cut -d' ' -f1)
lie=$(printf 'not the payload' | sha256sum | cut -d' ' -f1)
# unpinned: nothing but the server's word to check the bytes against
unpinned() { # NAME URL
	mkdir -p "$TMP/$1"
	printf 'MODEL_FILE=m.gguf\nMODEL_URL=%s\nCTX_SIZE=4096\n' "$2" >"$TMP/$1/e.env"
}
unpinned linked "$P/linked/q.gguf"
run "$ZEALOT" fetch --json --pin "$TMP/linked/e.env"
check "X-Linked-Etag that matches: exit 0, the file lands" ok_landed linked
check "X-Linked-Etag: the result names the publisher's sha256 and its header" \
	test "$(jq -r 'select(.event=="result")|"\(.publisher_sha256) \(.publisher_from)"' "$TMP/out")" = "$qsha X-Linked-Etag"
check "X-Linked-Etag: --pin writes it as MODEL_SHA256" grep -qx "MODEL_SHA256=$qsha" "$TMP/linked/e.env"
rm "$TMP/linked/m.gguf"
run "$ZEALOT" fetch "$TMP/linked/e.env"
check "X-Linked-Etag, text: the line says the server states it" \
	test "$rc" -eq 0 -a -n "$(grep -F "sha256 $qsha, as the server states it in X-Linked-Etag" "$TMP/out")"

unpinned linkedlie "$P/linkedlie/q.gguf"
run "$ZEALOT" fetch --pin "$TMP/linkedlie/e.env"
check "X-Linked-Etag that does not match: exit 1, nothing in place" test "$rc" -eq 1 -a ! -e "$TMP/linkedlie/m.gguf"
check "X-Linked-Etag mismatch: says so, names both hashes" \
	test -n "$(grep -F "server states (X-Linked-Etag $lie): it hashes to $qsha" "$TMP/err")"
check "X-Linked-Etag mismatch: kept aside as FILE.rejected, no .part left" \
	test -s "$TMP/linkedlie/m.gguf.rejected" -a ! -e "$TMP/linkedlie/m.gguf.part"
check "X-Linked-Etag mismatch: --pin writes no pin" test -z "$(grep -E '^MODEL_(SHA256|BYTES)=' "$TMP/linkedlie/e.env")"

# pinned, and the server states another hash: refused before the body
endpoint linkedpin "$P/linkedlie/q.gguf"
run "$ZEALOT" fetch --json "$TMP/linkedpin/e.env"
check "stated sha256 is not the pin: exit 1, refused before the body" \
	test "$rc" -eq 1 -a ! -e "$TMP/linkedpin/m.gguf" -a ! -e "$TMP/linkedpin/m.gguf.part" \
	-a "$(jq -r 'select(.event=="result")|.transferred' "$TMP/out")" -lt "$(stat -c %s "$www/q.gguf")"
check "stated sha256 is not the pin: the error names the header and the pin" \
	test -n "$(grep -F "states SHA-256 $lie (X-Linked-Etag), MODEL_SHA256 pins $qsha" "$TMP/out" "$TMP/err")"

unpinned etagsha "$P/etagsha/q.gguf"
run "$ZEALOT" fetch --json --pin "$TMP/etagsha/e.env"
check "a sha256 ETag that matches: exit 0, lands" ok_landed etagsha
check "a sha256 ETag that matches: the result names it, --pin writes it" \
	test "$(jq -r 'select(.event=="result")|.publisher_from' "$TMP/out")" = ETag -a \
	-n "$(grep -x "MODEL_SHA256=$qsha" "$TMP/etagsha/e.env")"
unpinned etaglie "$P/etaglie/q.gguf"
run "$ZEALOT" fetch "$TMP/etaglie/e.env"
check "a sha256 ETag that does not match: exit 1, nothing in place" \
	test "$rc" -eq 1 -a ! -e "$TMP/etaglie/m.gguf" -a -n "$(grep -F "(ETag $lie)" "$TMP/err")"
# nginx's own ETag (mtime-size) is no checksum: an unpinned fetch from it is not judged by it
unpinned plainetag "$P/ok/q.gguf"
run "$ZEALOT" fetch --json "$TMP/plainetag/e.env"
check "an ETag that is not a sha256: the file lands" ok_landed plainetag
check "an ETag that is not a sha256: no publisher's checksum" \
	test "$(jq -r 'select(.event=="result")|.publisher_sha256' "$TMP/out")" = null

# --- a full disk keeps the .part and says so (a small tmpfs, where mounting is allowed)
mkdir -p "$TMP/full"
if mount -t tmpfs -o size=4m,mode=0755 tmpfs "$TMP/full" 2>/dev/null; then
	cat >"$TMP/full/e.env" <<EOF
MODEL_FILE=m.gguf
MODEL_URL=$P/ok/q.gguf
CTX_SIZE=4096
EOF
	run "$ZEALOT" fetch "$TMP/full/e.env"
	check "ENOSPC: exit 3, the disk is full and the .part is kept" \
		test "$rc" -eq 3 -a -n "$(grep -F 'disk is full' "$TMP/err")" -a -s "$TMP/full/m.gguf.part"
	umount "$TMP/full"
	# the disk fills on the last write before the server stalls: a 16 MiB
	# file whose stalled answer stops at 8 MiB, a slot's end (2 MiB slots),
	# and room for 7 MiB. No byte comes after the failed write, so the
	# download's loop must end it; once only the next body callback did,
	# and the failure waited out --stall-timeout
	head -c 16777216 /dev/zero >"$www/pad.gguf"
	dd if="$www/q.gguf" of="$www/pad.gguf" conv=notrunc status=none
	mount -t tmpfs -o size=7m,mode=0755 tmpfs "$TMP/full"
	endpoint stallfull "$P/stall/pad.gguf" pad.gguf
	cp "$TMP/stallfull/e.env" "$TMP/full/e.env"
	t0=$(date +%s)
	run "$ZEALOT" fetch --stall-timeout 30 "$TMP/full/e.env"
	t1=$(date +%s)
	check "ENOSPC while the server stalls: exit 3, the disk is full" test "$rc" -eq 3 -a -n "$(grep -F 'disk is full' "$TMP/err")"
	check "ENOSPC while the server stalls: said at once, not after --stall-timeout 30 ($((t1 - t0)) s)" \
		test $((t1 - t0)) -lt 10
	umount "$TMP/full"
else
	echo "ok - ENOSPC # SKIP cannot mount a small tmpfs here"
fi
check "faults: no sanitizer report" no_sanitizer
