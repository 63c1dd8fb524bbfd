# A fleet of two hosts on one machine (tests/fleet.sh: systemd-nspawn
# containers, each its own systemd and sshd on a loopback port) with three
# endpoints of the real engine on synthetic payloads: e-a on host a, e-b1
# and e-b2 sharing card 0 on host b. fleet plan fits them, and refuses when
# host b cannot hold both; zealot fleet deploy brings all three up over ssh
# (`zealot deploy` on each host, with its gates and verification); fleet
# status lists them healthy; fleet history merges both hosts' eras. Then
# what must be refused or said: a hostile endpoint name, reason and remote
# directory reach the remote shell quoted (no marker file appears), a host
# key that does not match known_hosts, a remote zealot of another version,
# a host whose sshd hangs (status returns within its timeout), a host that
# loses its power in the middle of a deploy, and a stopped host
# (unreachable, the other healthy). When `zealot emit ansible` exists,
# Debian's ansible-playbook runs the emitted playbook against the same
# hosts.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../fleet.sh"
cd "$TMP" || exit 1
chmod 755 "$TMP"
ms() { echo $(($(date +%s%N) / 1000000)); }
[ -x "$FLEET_ZEALOT" ] || { echo "not ok - $FLEET_ZEALOT is not built (make zealot)"; exit 1; }

t0=$(ms)
if ! fleet_start a b; then
	echo "not ok - two hosts boot, each with its sshd (tests/fleet.sh)"
	exit 1
fi
echo "ok - two hosts boot, each with its own systemd and sshd, in $(($(ms) - t0)) ms"
CFG=$FLEET_SSH/config

must "$ZEALOT" synth qwen35 -o q.gguf || exit 1
endpoint() { # NAME HOST [KEY=VALUE...]: an endpoint file in fleet/
	local name=$1 host=$2 s
	shift 2
	{
		echo "HOST=$host"
		echo "RUNTIME=$SERVER"
		echo "MODEL_FILE=$TMP/q.gguf"
		echo "MODEL_BYTES=$(stat -c %s q.gguf)"
		echo "MODEL_SHA256=$(sha256sum q.gguf | cut -d' ' -f1)"
		echo "ALIAS=$name"
		echo "LISTEN_PORT=$(free_port)"
		echo "CTX_SIZE=4096"
		echo "PARALLEL=2"
		echo "DEVICE=cpu"
		echo "ADDRESSABLE_MIB=16384"
		for s in "$@"; do echo "$s"; done
	} >"fleet/$name.env"
}
port_of() { sed -n 's/^LISTEN_PORT=//p' "fleet/$1.env"; }
health() { curl -s -o /dev/null -w '%{http_code}' -m 5 "http://127.0.0.1:$(port_of "$1")/health"; }
mkdir fleet
endpoint e-a a
endpoint e-b1 b GPU=0
endpoint e-b2 b GPU=0
F=(--ssh-config "$CFG")

# 0. fleet plan: the fleet fits; with b's memory cut so that each endpoint
# alone fits and the two together do not, it refuses naming host b and both
# (the cards are the cpu profile here: host b's memory is what they share).
run "$ZEALOT" fleet plan fleet
check "fleet plan: the fleet as deployed below fits (exit 0)" rc_is 0
mkdir tight
cp fleet/*.env tight/
sed -i 's/^ADDRESSABLE_MIB=.*/ADDRESSABLE_MIB=1060/' tight/e-b1.env tight/e-b2.env
run "$ZEALOT" fleet plan tight
check "fleet plan: b cannot hold both (each alone fits): exit 1, naming host b and both endpoints" \
	test "$rc" -eq 1 -a -n "$(grep -E '^zealot: fleet plan: host b, .*e-b1 .*e-b2 ' "$TMP/err")" \
	-a "$(grep -cE '^e-b[12] +b .* fits$' "$TMP/out")" = 2

# 1. fleet deploy brings all three up; the reason and the remote directory
# are hostile text, which reach each host's shell as one word each.
reason="first fleet era: 'quoted' \"twice\" \$(touch pwned-reason) \`touch pwned-tick\`; touch pwned-semi"
t=$(ms)
rdir="/var/lib/zealot/fleet \$(touch pwned-dir)'x'"
run "$ZEALOT" fleet deploy fleet --reason "$reason" --parallel 3 "${F[@]}" --remote-dir "$rdir" --json
deploy_ms=$(($(ms) - t))
cp "$TMP/out" deploy1.json
jq -r '.endpoints[]|"# deploy \(.endpoint) on \(.host): \(.outcome), era \(.era), \(.seconds) s \(.why // "")"' deploy1.json
echo "# fleet deploy of three endpoints on two hosts, three at once: $deploy_ms ms"
check "fleet deploy: exit 0, three deployed" test "$rc" -eq 0 -a "$(jq -r .deployed deploy1.json)" = 3
for e in e-a e-b1 e-b2; do
	check "fleet deploy: $e answers /health 200 on its port" test "$(health $e)" = 200
done
check "fleet deploy: each endpoint ran on its host (e-a's unit on a, e-b1's and e-b2's on b)" \
	test "$(fleet_exec a systemctl is-active e-a.service)" = active \
	-a "$(fleet_exec b systemctl is-active e-b1.service e-b2.service | sort -u)" = active \
	-a "$(fleet_exec a systemctl is-active e-b1.service)" != active
check "fleet deploy: GPU=0 reached each unit on b as CUDA_VISIBLE_DEVICES=0" \
	test "$(fleet_exec b systemctl show -p Environment --value e-b1.service | tr ' ' '\n' | grep -c '^CUDA_VISIBLE_DEVICES=0$')" = 1
check "hostile reason and remote dir: the file copied to the exact directory on each host" \
	test "$(fleet_exec b ls "$rdir")" = "$(printf 'e-b1.env\ne-b2.env')" -a "$(fleet_exec a ls "$rdir")" = e-a.env
check "hostile reason and remote dir: no marker file on any host or here" \
	test -z "$(ls pwned-* 2>/dev/null)" -a -z "$(fleet_exec a sh -c 'ls /root/pwned-* /pwned-* 2>/dev/null')" \
	-a -z "$(fleet_exec b sh -c 'ls /root/pwned-* /pwned-* 2>/dev/null')"

# 2. fleet status lists all three healthy.
t=$(ms)
run "$ZEALOT" fleet status fleet "${F[@]}" --json
status_ms=$(($(ms) - t))
cp "$TMP/out" status1.json
jq -r '.endpoints[]|"# status \(.endpoint) on \(.host): \(.state), unit \(.unit.active) pid \(.unit.main_pid), era \(.era.id), probes \(.probes.verdict), \(.audit.divergences) divergences, \(.seconds) s"' status1.json
echo "# fleet status of three endpoints on two hosts: $status_ms ms"
check "fleet status --json: exit 0, all three healthy" \
	test "$rc" -eq 0 -a "$(jq -r '[.endpoints[]|select(.state=="healthy")]|length' status1.json)" = 3
check "fleet status: each row has its host, a MainPID, its era, five probes passed, no divergence" \
	test "$(jq -r '[.endpoints[]|"\(.endpoint)@\(.host):\(.unit.main_pid>0):\(.era.id>0):\([.probes.probes[]|select(.status=="pass")]|length):\(.audit.divergences)"]|join(" ")' status1.json)" \
	= "e-a@a:true:true:5:0 e-b1@b:true:true:5:0 e-b2@b:true:true:5:0"
check "fleet status: the era is the one deploy made on that host" \
	test "$(jq -r '[.endpoints[]|.era.id]|join(" ")' status1.json)" = "$(jq -r '[.endpoints[]|.era]|join(" ")' deploy1.json)"
check "fleet status: the MainPID is the unit's on its host" \
	test "$(jq -r '.endpoints[]|select(.endpoint=="e-b2")|.unit.main_pid' status1.json)" = "$(fleet_exec b systemctl show -p MainPID --value e-b2.service)"
jq -r '.endpoints[]|"# status \(.endpoint) summary: \(.summary.alias.evidence); \(.summary.slots.evidence)"' status1.json
check "fleet status: the summary names each alias (models) and its slots (props)" \
	test "$(jq -r '[.endpoints[]|. as $r|($r.summary.alias.evidence|contains("serves '"'"'\($r.endpoint)'"'"'")) and ($r.summary.slots.evidence|startswith("2 slots of 2048 tokens"))]|all' status1.json)" = true
check "fleet status: no nvidia-smi here, said" \
	test "$(jq -r '[.endpoints[].memory.nvidia_smi]|unique|join(",")' status1.json)" = false
run "$ZEALOT" fleet status fleet "${F[@]}"
sed 's/^/#   /' "$TMP/out"
check "fleet status (text): a row per endpoint, healthy" test "$(grep -c ' healthy ' "$TMP/out")" = 3

# 3. fleet history merges both hosts' eras.
run "$ZEALOT" fleet history fleet "${F[@]}" --json
check "fleet history --json: three eras, one per endpoint, with its host" \
	test "$rc" -eq 0 -a "$(jq -r '[.eras[]|"\(.host)/\(.endpoint)"]|sort|join(" ")' "$TMP/out")" = "a/e-a b/e-b1 b/e-b2"
check "fleet history: the hostile reason recorded byte for byte on every host" \
	test "$(jq -r --arg r "$reason" '[.eras[]|.reason==$r]|all' "$TMP/out")" = true
check "fleet history: sorted by the time each era began" \
	test "$(jq -r '[.eras[].started]|. == sort' "$TMP/out")" = true

# 4. A hostile endpoint name reaches the host's shell as one word: fleet
# status runs systemctl, history, probe and audit there with it, and
# nothing in it runs; fleet deploy refuses it (no unit could have it)
# before touching the host.
mkdir hostile
bad="x'\$(touch pwned-name)'\`touch pwned-tick2\`;touch pwned-semi2"
cp fleet/e-a.env "hostile/$bad.env"
run "$ZEALOT" fleet status hostile "${F[@]}" --json
check "hostile name: status answers for it (exit 1, down: no such unit)" \
	test "$rc" -eq 1 -a "$(jq -r '.endpoints[0].state' "$TMP/out")" = down -a "$(jq -r '.endpoints[0].unit.load' "$TMP/out")" = not-found
run "$ZEALOT" fleet deploy hostile --reason "a hostile name" "${F[@]}"
check "hostile name: deploy refuses it before reaching the host, exit 1" \
	test "$rc" -eq 1 -a -n "$(grep -F "is not a unit name systemd takes" "$TMP/out")" \
	-a -z "$(fleet_exec a find /var/lib/zealot /etc/zealot -name "x'*")"
check "hostile name: no marker file on the host or here" \
	test -z "$(ls pwned-* 2>/dev/null)" -a -z "$(fleet_exec a sh -c 'ls /root/pwned-* /pwned-* 2>/dev/null')"

# 5. A host key that does not match known_hosts: host a's entries carry b's
# keys. Refused by ssh, named by zealot; b answers as before.
pa=${FLEET_PORT[a]} pb=${FLEET_PORT[b]}
cp "$FLEET_SSH/known_hosts" known_hosts.good
{
	grep -v "^\[127.0.0.1\]:$pa " known_hosts.good
	grep "^\[127.0.0.1\]:$pb " known_hosts.good | sed "s/^\[127.0.0.1\]:$pb /[127.0.0.1]:$pa /"
} >"$FLEET_SSH/known_hosts"
run "$ZEALOT" fleet status fleet "${F[@]}" --json
check "wrong host key: status exit 1, e-a's row names it, b's endpoints healthy" \
	test "$rc" -eq 1 -a "$(jq -r '.endpoints[]|select(.endpoint=="e-a")|.state' "$TMP/out")" = unreachable \
	-a "$(jq -r '[.endpoints[]|select(.host=="b")|.state]|unique|join(",")' "$TMP/out")" = healthy
echo "# wrong host key: $(jq -r '.endpoints[]|select(.endpoint=="e-a")|.why' "$TMP/out")"
check "wrong host key: 'host key for a does not match known_hosts'" \
	test -n "$(jq -r '.endpoints[]|select(.endpoint=="e-a")|.why' "$TMP/out" | grep -F 'host key for a does not match known_hosts')"
run "$ZEALOT" fleet deploy fleet --only e-a --reason "through a wrong host key" "${F[@]}"
check "wrong host key: deploy refuses (exit 3), naming the host key" \
	test "$rc" -eq 3 -a -n "$(grep -F 'host key for a does not match known_hosts' "$TMP/out")"
cp known_hosts.good "$FLEET_SSH/known_hosts"

# 6. Version skew: host b's zealot says another version. Refused before
# anything is copied or deployed, naming both.
rb=$(fleet_root b)
rm -f "$rb/usr/local/bin/zealot"
printf '#!/bin/sh\necho "zealot 9.9.9-skew"\n' >"$rb/usr/local/bin/zealot"
chmod 755 "$rb/usr/local/bin/zealot"
here=$("$ZEALOT" --version)
run "$ZEALOT" fleet deploy fleet --only e-b1,e-b2 --reason "across a version skew" "${F[@]}"
sed 's/^/#   /' "$TMP/out"
check "version skew: refused, exit 1, naming both versions" \
	test "$rc" -eq 1 -a -n "$(grep -F "b runs zealot 9.9.9-skew, this is $here" "$TMP/out")"
check "version skew: the first failure stops the rest (e-b2 skipped)" \
	test -n "$(grep -E '^  e-b2 .* skipped ' "$TMP/out")"
ln -sf "$FLEET_ZEALOT" "$rb/usr/local/bin/zealot"

# 6b. Ansible: the playbook `zealot emit ansible` writes for e-a and e-b1
# (one endpoint on each host, so the two hosts deploy at once), run by
# Debian's ansible-playbook against the same hosts through the test's ssh
# config (host keys checked).
if "$ZEALOT" emit ansible --help >/dev/null 2>&1 && command -v ansible-playbook >/dev/null; then
	mkdir ansible ansible-fleet
	cp fleet/e-a.env fleet/e-b1.env ansible-fleet/
	run "$ZEALOT" emit ansible ansible-fleet -o ansible --ssh-config "$CFG" --reason "from ansible"
	check "emit ansible: exit 0" rc_is 0
	t=$(ms)
	(
		cd ansible || exit 1
		export ANSIBLE_HOME=$TMP/ansible-home ANSIBLE_LOCAL_TEMP=$TMP/ansible-tmp ANSIBLE_NOCOLOR=1 \
			ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_RETRY_FILES_ENABLED=0 \
			ANSIBLE_PIPELINING=1
		ansible-playbook -i inventory.yml playbook.yml
	) >ansible.out 2>&1
	arc=$?
	ansible_ms=$(($(ms) - t))
	grep -E '^(PLAY RECAP|[ab] +:|fatal|ERROR)' ansible.out | sed 's/^/#   ansible: /'
	echo "# ansible-playbook redeployed e-a on a and e-b1 on b in $ansible_ms ms"
	check "ansible-playbook: exit 0, no host failed" test "$arc" -eq 0 -a -z "$(grep -E 'failed=[1-9]|unreachable=[1-9]' ansible.out)"
	run "$ZEALOT" fleet status fleet "${F[@]}" --json
	check "ansible-playbook: fleet status lists all three healthy" test "$rc" -eq 0 -a "$(jq -r .healthy "$TMP/out")" = 3
	check "ansible-playbook: e-a's and e-b1's current eras are ansible's, e-b2's the fleet deploy's" \
		test "$(jq -r '[.endpoints[]|"\(.endpoint):\(.era.reason|.[0:12])"]|join(" ")' "$TMP/out")" \
		= "e-a:from ansible e-b1:from ansible e-b2:first fleet "
else
	echo "ok - # SKIP zealot emit ansible or ansible-playbook is not there"
fi

# 7. A host that hangs: host a's sshd is stopped (SIGSTOP), so a connection
# is accepted and never answered. Status returns within its timeout.
sshd_a=$(fleet_exec a systemctl show -p MainPID --value ssh.service)
fleet_exec a kill -STOP "$sshd_a"
t=$(ms)
run "$ZEALOT" fleet status fleet "${F[@]}" --timeout 6 --json
hang_ms=$(($(ms) - t))
fleet_exec a kill -CONT "$sshd_a"
echo "# a hung host: fleet status returned in $hang_ms ms (--timeout 6): $(jq -r '.endpoints[]|select(.endpoint=="e-a")|.why' "$TMP/out")"
check "hung host: status returns within its timeout (6 s, $hang_ms ms), exit 1" \
	test "$rc" -eq 1 -a "$hang_ms" -lt 8000
check "hung host: e-a unreachable, b's two endpoints healthy" \
	test "$(jq -r '[.endpoints[]|"\(.endpoint):\(.state)"]|join(" ")' "$TMP/out")" = "e-a:unreachable e-b1:healthy e-b2:healthy"

# 8. A host stopped in the middle of a deploy: b loses its power (its PID 1
# killed, every process with it) while e-b1's deploy stands between restart
# and verify. b's zealot runs with ZEALOT_FAULT=deploy:after-restart:stop
# (a wrapper in b's /usr/local/bin), so the deploy stops itself there and
# says so in a file; the cut comes then, every time, whatever the speed of
# the machine. The stopped deploy dies with its host (SIGKILL reaches a
# stopped process). The fleet deploy here stops itself before its second
# endpoint (fleet:before-endpoint, pass 2) and goes on once b is wholly
# down: a host whose processes are still dying may accept a connection and
# reset it, and e-b2 must meet the host that is gone, not one going. Each
# endpoint says what happened to it.
rb=$(fleet_root b)
rm -f "$rb/usr/local/bin/zealot"
printf '#!/bin/sh\nZEALOT_FAULT=deploy:after-restart:stop ZEALOT_FAULT_LOG=%q exec %q "$@"\n' \
	"$TMP/b-fault.log" "$FLEET_ZEALOT" >"$rb/usr/local/bin/zealot"
chmod 755 "$rb/usr/local/bin/zealot"
ZEALOT_FAULT=fleet:before-endpoint:stop@2 ZEALOT_FAULT_LOG=$TMP/fleet-fault.log \
	"$ZEALOT" fleet deploy fleet --only e-b1,e-b2 --keep-going --reason "b goes down mid-way" "${F[@]}" \
	--remote-dir "$rdir" >middeploy.out 2>&1 &
bg=$!
stopped=$(fault_wait "$TMP/b-fault.log" deploy:after-restart "$bg")
ep_b1=$(fleet_exec b systemctl show -p ActiveState --value e-b1.service 2>/dev/null)
fleet_cut b
echo "# host b cut off while e-b1's deploy (pid $stopped on b) stood at deploy:after-restart"
held=$(fault_wait "$TMP/fleet-fault.log" fleet:before-endpoint "$bg")
# the point logs, then stops itself: continue it only once it stands
# stopped, or the SIGCONT could come first and leave it stopped for good
wait_for 30 eval 'grep -q "^State:[[:space:]]*T" "/proc/$bg/status" 2>/dev/null || ! kill -0 "$bg" 2>/dev/null'
kill -CONT "$bg" 2>/dev/null
wait "$bg"
mid_rc=$?
sed 's/^/#   /' middeploy.out | cut -c1-220
check "stopped mid-deploy: e-b1's deploy on b stood at deploy:after-restart (its engine restarted, $ep_b1) when b went down" \
	test -n "$stopped" -a "$ep_b1" = active
check "stopped mid-deploy: exit 3; e-b1's connection lost, e-b2 unreachable, each said" \
	test -n "$held" -a "$mid_rc" -eq 3 -a -n "$(grep -E '^  e-b1 .* lost .*connection to b lost before the command ended' middeploy.out)" \
	-a -n "$(grep -E '^  e-b2 .* unreachable .*b unreachable: .*Connection refused' middeploy.out)"

# 9. One host stopped: status still returns within its timeout, b's
# endpoints unreachable, a's healthy.
t=$(ms)
run "$ZEALOT" fleet status fleet "${F[@]}" --timeout 10 --json
down_ms=$(($(ms) - t))
echo "# host b stopped: fleet status returned in $down_ms ms (--timeout 10)"
check "host stopped: status returns within its timeout (10 s, $down_ms ms), exit 1" \
	test "$rc" -eq 1 -a "$down_ms" -lt 12000
check "host stopped: e-a healthy, e-b1 and e-b2 unreachable" \
	test "$(jq -r '[.endpoints[]|"\(.endpoint):\(.state)"]|join(" ")' "$TMP/out")" = "e-a:healthy e-b1:unreachable e-b2:unreachable"
check "host stopped: the row says why" \
	test -n "$(jq -r '.endpoints[]|select(.endpoint=="e-b1")|.why' "$TMP/out" | grep -F 'b unreachable:')"
run "$ZEALOT" fleet history fleet "${F[@]}"
check "host stopped: history says b cannot be read (exit 3) and shows a's eras" \
	test "$rc" -eq 3 -a -n "$(grep -E '^  b: b unreachable' "$TMP/out")" -a -n "$(grep -E ' a +e-a ' "$TMP/out")"
check "no sanitizer report from any fleet command" no_sanitizer
