# zealot fleet status|deploy|history without a fleet: a fake `ssh` on PATH
# logs the argv it was given and runs the remote command with a local
# /bin/sh, the way the host's shell would, in a directory of its own; a fake
# remote zealot logs its argv. So: the ssh command line (-F, -p, -l from
# ssh://user@host:port, BatchMode, ConnectTimeout, `--` before the host,
# never StrictHostKeyChecking=no), every hostile value reaching the remote
# program as one word with nothing run, the copy byte for byte, the version
# skew, the per-call time limit killing ssh's process group, a host key
# mismatch and an unreachable host named, and a connection lost mid-command.
# The real fleet (containers, sshd, the engine) is tests/live/fleet.sh.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
ms() { echo $(($(date +%s%N) / 1000000)); }

mkdir bin remote
cat >bin/ssh <<'S'
#!/bin/sh
# fake ssh: log argv (one per line, then ---) in one write, so two at once
# never interleave, then act as FAKE_SSH says
block=$(for a; do printf '%s\n' "$a"; done; echo ---)
printf '%s\n' "$block" >>"$FAKE_LOG"
for a; do last=$a; done
case "${FAKE_SSH:-run}" in
refused)
	echo "ssh: connect to host 127.0.0.1 port 2222: Connection refused" >&2
	exit 255
	;;
hostkey)
	cat >&2 <<W
@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @
@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
Offending ED25519 key in /home/ops/.ssh/known_hosts:3
Host key verification failed.
W
	exit 255
	;;
hang)
	echo $$ >"$FAKE_PID"
	sleep 31.5
	;;
lost)
	echo @zealot-fleet-reached@
	echo "Connection to 127.0.0.1 closed by remote host." >&2
	exit 255
	;;
esac
cd "$FAKE_HOME" && exec /bin/sh -c "$last"
S
cat >bin/zealot-remote <<'Z'
#!/bin/sh
# the remote zealot: its version, or a deploy that logs its argv
if [ "$1" = --version ]; then
	if [ -n "$FAKE_VERSION" ]; then echo "$FAKE_VERSION"; else exec "$REAL_ZEALOT" --version; fi
	exit 0
fi
if [ "$1" = fetch ]; then
	for a; do printf '%s\n' "$a"; done >"$FAKE_HOME/fetch.argv"
	[ -z "$FAKE_FETCH_FAILS" ] || { echo "zealot: fetch: MODEL_SHA256 mismatch" >&2; exit 1; }
	exit 0
fi
if [ "$1" = deploy ]; then
	for a; do printf '%s\n' "$a"; done >"$FAKE_HOME/deploy.argv"
	echo '{"endpoint": "x", "outcome": "deployed", "era": 7, "steps": []}'
	exit 0
fi
exec "$REAL_ZEALOT" "$@"
Z
chmod 755 bin/ssh bin/zealot-remote
export PATH=$TMP/bin:$PATH FAKE_LOG=$TMP/ssh.log FAKE_HOME=$TMP/remote FAKE_PID=$TMP/ssh.pid REAL_ZEALOT=$ZEALOT
RZ=(--remote-zealot "$TMP/bin/zealot-remote")
printf 'Host h2\n  HostName 127.0.0.1\n' >ssh.cfg

must "$ZEALOT" synth qwen35 -o q.gguf || exit 1
mkdir fleet
endpoint() { # NAME HOST PORT
	cat <<E
HOST=$2
RUNTIME=/bin/true
MODEL_FILE=$TMP/q.gguf
DEVICE=cpu
ADDRESSABLE_MIB=16384
LISTEN_PORT=$3
E
}
endpoint e1 ssh://ops@h1:2222 18101 >fleet/e1.env
endpoint e2 h2 18102 >fleet/e2.env

for c in status deploy history; do
	run "$ZEALOT" fleet "$c" --help
	check "fleet $c --help: exit 0, --ssh-config and --json" \
		test "$rc" -eq 0 -a -n "$(grep -F -- '--ssh-config FILE' "$TMP/out")" -a -n "$(grep -F -- '--json' "$TMP/out")"
done
run "$ZEALOT" fleet deploy fleet
check "fleet deploy without --reason: usage, exit 2" test "$rc" -eq 2 -a -n "$(grep -F -- '--reason TEXT is required' "$TMP/err")"
run "$ZEALOT" fleet deploy fleet --reason x --only e1,nope
check "fleet deploy --only with an unknown name: exit 2, named" test "$rc" -eq 2 -a -n "$(grep -F "no endpoint 'nope'" "$TMP/err")"

# The ssh command line.
: >ssh.log
run "$ZEALOT" fleet status fleet --ssh-config ssh.cfg --timeout 5 "${RZ[@]}" --json
check "status through the fake ssh: exit 1 (nothing deployed), two rows, both reached" \
	test "$rc" -eq 1 -a "$(jq -r '[.endpoints[]|.reachable]|join(",")' "$TMP/out")" = true,true
check "status: the rows are down (no unit), each on its host" \
	test "$(jq -r '[.endpoints[]|"\(.endpoint)@\(.host):\(.state)"]|join(" ")' "$TMP/out")" = "e1@ssh://ops@h1:2222:down e2@h2:down"
first=$(awk '/^---$/ { if (b ~ /\nh1\n/) { printf "%s", b; exit } b = ""; next } { b = b $0 "\n" }' ssh.log)
check "ssh argv: -F FILE, -p and -l from ssh://ops@h1:2222, -T, BatchMode, ConnectTimeout, -- before the host" \
	test "$(echo "$first" | head -17 | tr '\n' ' ')" = "-F ssh.cfg -p 2222 -l ops -T -o BatchMode=yes -o ConnectTimeout=5 -o ServerAliveInterval=5 -o ServerAliveCountMax=3 -- h1 "
check "ssh argv: a host alias alone when HOST has no user or port" \
	test -n "$(grep -xF -- h2 ssh.log)" -a "$(grep -c -- '^-p$' ssh.log)" = 1
check "ssh argv: never StrictHostKeyChecking=no, never a password" \
	test -z "$(grep -i 'StrictHostKeyChecking\|password' ssh.log)"

# An endpoint without HOST is queried here, with this zealot, no ssh.
mkdir local
endpoint l1 x 18104 | sed '/^HOST=/d' >local/l1.env
: >ssh.log
run "$ZEALOT" fleet status local --json
check "local endpoint: a row for localhost, reached without ssh, this zealot's version" \
	test "$rc" -eq 1 -a "$(jq -r '.endpoints[0]|"\(.host):\(.reachable):\(.zealot_version)"' "$TMP/out")" = "localhost:true:$("$ZEALOT" --version)" \
	-a ! -s ssh.log

# Where nvidia-smi answers, the endpoint's card's memory (GPU=1 here).
mkdir gpu
endpoint g1 h2 18105 >gpu/g1.env
echo GPU=1 >>gpu/g1.env
printf '#!/bin/sh\nprintf "0, 20000, 24576\\n1, 1234, 24576\\n"\n' >bin/nvidia-smi
chmod 755 bin/nvidia-smi
run "$ZEALOT" fleet status gpu --ssh-config ssh.cfg "${RZ[@]}" --json
rm bin/nvidia-smi
check "nvidia-smi answers: the row holds card 1's used and total MiB" \
	test "$(jq -c '.endpoints[0].memory|[.nvidia_smi,.card,.used_mib,.total_mib]' "$TMP/out")" = '[true,1,1234,24576]'

# Hostile values: the reason, the remote directory and a name each reach
# the remote program as one word; nothing in them runs.
reason="it's \$(touch pwned-1) \`touch pwned-2\`; touch pwned-3 \"q\" \\ end"
rdir="$TMP/remote/dir \$(touch pwned-4)'x'"
run "$ZEALOT" fleet deploy fleet --only e2 --reason "$reason" --remote-dir "$rdir" --ssh-config ssh.cfg "${RZ[@]}" --json
check "deploy through the fake ssh: exit 0, deployed, era 7 from the remote JSON" \
	test "$rc" -eq 0 -a "$(jq -r '.endpoints[0]|"\(.outcome):\(.era)"' "$TMP/out")" = deployed:7
check "deploy: the endpoint file copied byte for byte to REMOTE-DIR/NAME.env, mode 0600" \
	cmp -s fleet/e2.env "$rdir/e2.env" && test "$(stat -c %a "$rdir/e2.env")" = 600
check "deploy: no temporary file left beside it" test "$(ls -A "$rdir")" = e2.env
check "deploy: the remote zealot got the reason and the path as one argument each" \
	test "$(sed -n 3p remote/deploy.argv)" = "$reason" -a "$(sed -n 6p remote/deploy.argv)" = "$rdir/e2.env"
check "deploy: the file went on stdin, not on a command line" test -z "$(grep -F 'ADDRESSABLE_MIB' ssh.log)"
check "hostile values: no marker file anywhere" test -z "$(find "$TMP" -name 'pwned-*')"
mkdir hostile
bad="x'\$(touch pwned-5)'\`touch pwned-6\`;touch pwned-7"
endpoint x h2 18103 >"hostile/$bad.env"
run "$ZEALOT" fleet status hostile --ssh-config ssh.cfg "${RZ[@]}" --json
check "hostile name: status runs its commands with it (down: no such unit), nothing else runs" \
	test "$rc" -eq 1 -a "$(jq -r '.endpoints[0].endpoint' "$TMP/out")" = "$bad" -a -z "$(find "$TMP" -name 'pwned-*')"
run "$ZEALOT" fleet deploy hostile --reason x --ssh-config ssh.cfg "${RZ[@]}"
check "hostile name: deploy refuses it (no unit could have it), exit 1" \
	test "$rc" -eq 1 -a -n "$(grep -F 'is not a unit name systemd takes' "$TMP/out")" -a -z "$(find "$TMP" -name 'pwned-*')"

# --fetch: zealot fetch on the host first, only for a file with a *_URL.
run "$ZEALOT" fleet deploy fleet --only e2 --fetch --reason x --remote-dir "$TMP/remote/d" --ssh-config ssh.cfg "${RZ[@]}"
check "--fetch without a *_URL: no fetch, deployed" test "$rc" -eq 0 -a ! -e remote/fetch.argv
echo "MODEL_URL=http://127.0.0.1:9/q.gguf" >>fleet/e2.env
run "$ZEALOT" fleet deploy fleet --only e2 --fetch --reason x --remote-dir "$TMP/remote/d" --ssh-config ssh.cfg "${RZ[@]}"
check "--fetch with MODEL_URL: zealot fetch REMOTE-DIR/NAME.env on the host, then deployed" \
	test "$rc" -eq 0 -a "$(tr '\n' ' ' <remote/fetch.argv)" = "fetch -- $TMP/remote/d/e2.env "
rm -f remote/deploy.argv
FAKE_FETCH_FAILS=1 run "$ZEALOT" fleet deploy fleet --only e2 --fetch --reason x --remote-dir "$TMP/remote/d" --ssh-config ssh.cfg "${RZ[@]}"
check "--fetch that fails: fetch-failed, exit 3, fetch's words, no deploy" \
	test "$rc" -eq 3 -a -n "$(grep -E '^  e2 .* fetch-failed .*MODEL_SHA256 mismatch' "$TMP/out")" -a ! -e remote/deploy.argv
sed -i '/^MODEL_URL=/d' fleet/e2.env

# A version skew refuses, naming both; the rest is skipped.
FAKE_VERSION="zealot 9.9.9" run "$ZEALOT" fleet deploy fleet --reason x --ssh-config ssh.cfg "${RZ[@]}"
check "version skew: exit 1, both versions named, e2 skipped" \
	test "$rc" -eq 1 -a -n "$(grep -F "version skew: ssh://ops@h1:2222 runs zealot 9.9.9, this is $("$ZEALOT" --version)" "$TMP/out")" \
	-a -n "$(grep -E '^  e2 .* skipped' "$TMP/out")"
FAKE_VERSION="zealot 9.9.9" run "$ZEALOT" fleet deploy fleet --reason x --keep-going --ssh-config ssh.cfg "${RZ[@]}" --json
check "version skew with --keep-going: both refused, none skipped" \
	test "$rc" -eq 1 -a "$(jq -r '[.endpoints[].outcome]|join(",")' "$TMP/out")" = version-skew,version-skew

# A host that never answers: the call's limit kills ssh and its children.
t=$(ms)
FAKE_SSH=hang run "$ZEALOT" fleet status fleet --timeout 1 --parallel 2 "${RZ[@]}" --json
took=$(($(ms) - t))
check "hung host: status returns within its timeout (1 s, both hosts at once: $took ms), exit 1" \
	test "$rc" -eq 1 -a "$took" -lt 5000
check "hung host: each row says it did not answer within 1.0 s" \
	test "$(jq -r '[.endpoints[]|.why|test("did not answer within 1.0 s")]|all' "$TMP/out")" = true
check "hung host: the fake ssh's sleep was killed with it (process group)" test -z "$(pgrep -f 'sleep 31.5')"

# Refused, a host key mismatch, a lost connection.
FAKE_SSH=refused run "$ZEALOT" fleet status fleet "${RZ[@]}" --json
check "unreachable: exit 1, each row unreachable with ssh's words" \
	test "$rc" -eq 1 -a "$(jq -r '.endpoints[1].why' "$TMP/out")" = "h2 unreachable: ssh: connect to host 127.0.0.1 port 2222: Connection refused"
FAKE_SSH=hostkey run "$ZEALOT" fleet deploy fleet --reason x "${RZ[@]}"
check "host key mismatch: deploy exit 3, 'host key for H does not match known_hosts' and the line" \
	test "$rc" -eq 3 -a -n "$(grep -F 'host key for ssh://ops@h1:2222 does not match known_hosts (Offending ED25519 key in /home/ops/.ssh/known_hosts:3)' "$TMP/out")"
FAKE_SSH=lost run "$ZEALOT" fleet history fleet "${RZ[@]}" --json
check "lost connection: history exit 3, each host 'connection to H lost'" \
	test "$rc" -eq 3 -a "$(jq -r '[.hosts[]|.why|test("connection to .* lost before the command ended")]|all' "$TMP/out")" = true
check "no sanitizer report" no_sanitizer
