# A header read has a deadline (issue 28, item 14): a server that trickles
# a payload's header at 2 bytes a second never stalls (curl's stall timeout
# waits for no byte at all), and it once held inspect URL, check and plan
# forever. Each request of a header read must end within 10 s plus what
# it asks for at 128 KiB/s (the first asks 1 MiB: 18 s), the whole read
# within 120 s (src/payload/remote.h).
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

port=$(free_port)
# the trickle: any GET is a 206 of the range asked for, whose body comes 2
# bytes a second (a GGUF magic first), for as long as the client listens
python3 - "$port" >trickle.log 2>&1 <<'PY' &
import socket, sys, threading, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
print("listening", flush=True)
def serve(c):
    try:
        c.recv(65536)
        n = 1 << 20
        c.sendall(b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-%d/%d\r\nContent-Length: %d\r\n\r\n"
                  % (n - 1, 20 << 30, n))
        body = b"GGUF" + b"\0" * (n - 4)
        for i in range(0, n, 2):
            c.sendall(body[i:i + 2])
            time.sleep(1)
    except OSError:
        pass
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
server=$!
wait_for 10 grep -q listening trickle.log
url=http://127.0.0.1:$port/slow.gguf
printf 'MODEL_FILE=%s/absent.gguf\nMODEL_URL=%s\nDEVICE=cpu\nCTX_SIZE=4096\n' "$TMP" "$url" >e.env

# the three side by side, each with an outer bound the old code met
t0=$EPOCHREALTIME
timeout 100 "$ZEALOT" inspect "$url" >/dev/null 2>inspect.err &
p1=$!
timeout 100 "$ZEALOT" check e.env >check.out 2>check.err &
p2=$!
timeout 100 "$ZEALOT" plan e.env >/dev/null 2>plan.err &
p3=$!
wait $p1
r1=$?
wait $p2
r2=$?
wait $p3
r3=$?
secs=$(echo "$EPOCHREALTIME - $t0" | bc)
kill "$server" 2>/dev/null
echo "# the three ended after ${secs%.*} s"
check "inspect URL of a trickled header: exit 3 ($r1), not held" test "$r1" -eq 3
check "inspect: says the read is too slow, with the rule" grep -qF "the header read is too slow: " inspect.err
check "check on a trickled MODEL_URL: a C03 finding, exit 1 ($r2)" \
	test "$r2" -eq 1 -a -n "$(grep -E '^error +C03 ' check.out)"
check "plan on a trickled MODEL_URL: exit 3 ($r3), naming MODEL_URL" \
	test "$r3" -eq 3 -a -n "$(grep -F "MODEL_URL: $url: the header read is too slow" plan.err)"
check "all three ended within a minute (${secs%.*} s: the first request's 18 s)" test "${secs%.*}" -lt 60
check "no sanitizer report" test -z "$(cat inspect.err check.err plan.err | grep -E 'Sanitizer|runtime error')"
