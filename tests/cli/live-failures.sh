# probe, bench and audit against engines that misbehave: every failure is
# named, nothing hangs past its timeout, nothing crashes.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

for mode in garbage hang reset e500 json-junk; do
	port=$(free_port)
	python3 "$ROOT/tests/fakeengine.py" "$port" "$mode" 120 &
	fake=$!
	wait_for 60 eval '(echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null'
	start=$(date +%s)
	run "$ZEALOT" probe "http://127.0.0.1:$port" --timeout 2 --only health,props,models,metrics
	took=$(($(date +%s) - start))
	case $mode in
	e500 | json-junk) # an HTTP answer, a wrong one: a verdict, each probe named
		check "$mode: probe exits 1" rc_is 1
		check "$mode: the health probe fails by name" test -n "$(grep -E '^fail health' "$TMP/out")"
		check "$mode: the metrics probe fails by name" test -n "$(grep -E '^fail metrics' "$TMP/out")"
		;;
	*) # no HTTP answer at all: a dead server, exit 3 as bench, the transport error named
		check "$mode: probe exits 3, no verdict printed" test "$rc" -eq 3 -a ! -s "$TMP/out"
		check "$mode: the error names the URL and that nothing answered" \
			test -n "$(grep -F "zealot: probe: http://127.0.0.1:$port: no answer:" "$TMP/err")"
		;;
	esac
	check "$mode: bounded by the timeout (${took}s)" test "$took" -le 20
	check "$mode: no sanitizer report" no_sanitizer
	run "$ZEALOT" bench "http://127.0.0.1:$port" --timeout 2 --runs 1
	check "$mode: bench exits 3 with a message" test "$rc" -eq 3 -a -n "$(grep -F 'zealot: bench:' "$TMP/err")"
	kill "$fake" 2>/dev/null
	wait "$fake" 2>/dev/null
done

port=$(free_port)
run "$ZEALOT" probe "http://127.0.0.1:$port" --timeout 2 --only health
check "nobody listening: probe exits 3 naming the transport error" \
	test "$rc" -eq 3 -a -n "$(grep -F "connect to server" "$TMP/err")"
run "$ZEALOT" probe "ftp://127.0.0.1:$port"
check "not an http URL: exit 2" rc_is 2
run "$ZEALOT" probe "http://127.0.0.1:$port" --only nonsense
check "unknown probe name: exit 2" rc_is 2
# scrape is a probe name too (live/scrape.c's, asked of --prometheus): fleet
# status sends --only health,models,props,slots,metrics,scrape
run "$ZEALOT" probe "http://127.0.0.1:$port" --timeout 2 --only scrape --prometheus "http://127.0.0.1:$port"
check "--only scrape is a known probe: a Prometheus nobody listens for is exit 3 (dead), not usage" \
	test "$rc" -eq 3 -a -z "$(grep -F "unknown probe" "$TMP/err")" -a -n "$(grep -E '^fail scrape' "$TMP/out")"
run "$ZEALOT" probe --help
check "probe --help lists every probe" test -n "$(grep -F concurrency "$TMP/out")" -a -n "$(grep -F overlong "$TMP/out")"
run "$ZEALOT" bench --help
check "bench --help says warm-up is discarded" out_has "discarded"

# audit: no engine on the port is an error, not a pass
must "$ZEALOT" synth llama -o l.gguf || exit 1
printf 'MODEL_FILE=l.gguf\nCTX_SIZE=4096\nLISTEN_PORT=%s\n' "$port" >a.env
run "$ZEALOT" audit a.env
check "audit with nothing listening: exit 3 naming the port" test "$rc" -eq 3 -a -n "$(grep -F "port $port" "$TMP/err")"
run "$ZEALOT" audit a.env --pid 999999999
check "audit --pid out of range: exit 2" rc_is 2
run "$ZEALOT" audit --help
check "audit --help names A01 and A02" test -n "$(grep -F A01 "$TMP/out")" -a -n "$(grep -F A02 "$TMP/out")"

# issue 28 item 16: the live side's strings print as one safe line. A
# server whose every answer carries escape sequences (a title change, a
# screen clear, a colour, an 8-bit CSI, a line break, a bidi override) and
# a process whose argv does: nothing of it reaches the output raw
raw_escapes() { # FILE: whether it holds ESC, BEL, U+009B, U+202E or a line the sequence broke
	LC_ALL=C grep -q "$(printf '[\033\007]')" "$1" || grep -qF "$(printf '\302\233')" "$1" ||
		grep -qF "$(printf '\342\200\256')" "$1" || grep -q '^second line' "$1"
}
port=$(free_port)
python3 "$ROOT/tests/fakeengine.py" "$port" escapes 120 &
fake=$!
wait_for 60 eval '(echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null'
run "$ZEALOT" probe "http://127.0.0.1:$port" --timeout 5 --only health,models,chat
check "escapes: control: probe printed the server's answers" out_has 'PWNED'
check "escapes: probe prints no escape sequence, no broken line" eval '! raw_escapes "$TMP/out"'
check "escapes: ... the answer shows as text (\\x1b]0;PWNED\\x07, \\n, \\u202e)" \
	out_has '\x1b]0;PWNED\x07\x1b[2J\x1b[31mred\u009b1m\nsecond line\u202e'
run "$ZEALOT" probe "http://127.0.0.1:$port" --timeout 5 --only health,models,chat --json
check "escapes: probe --json carries the answer as JSON escapes" test "$rc" -le 1 -a -n "$(jq -r '.probes[0].evidence' "$TMP/out")"
check "escapes: probe --json prints no raw ESC, BEL or broken line" eval '! LC_ALL=C grep -q "$(printf "[\033\007]")" "$TMP/out" && ! grep -q "^second line" "$TMP/out"'
kill "$fake" 2>/dev/null
wait "$fake" 2>/dev/null
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
"$py" -c 'import time; time.sleep(120)' --alias "$(printf '\033]0;PWNED\007\033[2J\nsecond line\302\233\342\200\256')" --port 8080 &
evil=$!
wait_for 30 grep -qz PWNED "/proc/$evil/cmdline"
run "$ZEALOT" audit a.env --pid "$evil"
check "escapes: control: audit read the process's argv" out_has 'PWNED'
check "escapes: audit prints no escape sequence, no broken line" eval '! raw_escapes "$TMP/out"'
run "$ZEALOT" audit a.env --pid "$evil" --json
check "escapes: audit --json: valid JSON, the argv word in it" test -n "$(jq -r '.rows[].live' "$TMP/out" | grep -F PWNED)"
kill "$evil" 2>/dev/null
wait "$evil" 2>/dev/null
check "escapes: no sanitizer report" no_sanitizer

# issue 33 item 5: the stream probe on a loopback server that breaks a
# stream's promise: its events stop without data: [DONE], or the streamed
# text is not the plain answer's
for mode in stream-cut stream-differs; do
	port=$(free_port)
	python3 "$ROOT/tests/fakeengine.py" "$port" "$mode" 120 &
	fake=$!
	wait_for 60 eval '(echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null'
	run "$ZEALOT" probe "http://127.0.0.1:$port" --timeout 5 --only stream --json
	check "$mode: probe exits 1, stream fails" eval 'rc_is 1 && json_is "[.probes[]|.name,.status]" "[\"stream\",\"fail\"]"'
	case $mode in
	stream-cut) check "$mode: ... naming the missing data: [DONE]" \
		test -n "$(jq -r '.probes[0].evidence' "$TMP/out" | grep -F 'no data: [DONE]')" ;;
	*) check "$mode: ... naming where the texts part" \
		test -n "$(jq -r '.probes[0].evidence' "$TMP/out" | grep -F 'differs from the plain answer at byte 7')" ;;
	esac
	kill "$fake" 2>/dev/null
	wait "$fake" 2>/dev/null || true
done
