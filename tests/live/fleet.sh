# A fleet of two hosts on one machine (tests/fleet.sh: systemd-nspawn
# containers, each its own systemd and sshd on a loopback port) with three
# endpoints of the real engine on synthetic payloads: e-a on host a, e-b1
# and e-b2 sharing card 0 on host b. zealot fleet deploy brings all three up
# over ssh (`zealot deploy` on each host, with its gates and verification);
# fleet status lists them healthy; fleet history merges both hosts' eras.
# Then what must be refused or said: a hostile endpoint name and reason
# reach the remote shell quoted (no marker file appears), a host key that
# does not match known_hosts, a remote zealot of another version, a host
# whose sshd hangs (status returns within its timeout), a host stopped in
# the middle of a deploy, and a stopped host (unreachable, the other
# healthy). When `zealot emit ansible` exists, Debian's ansible-playbook
# runs the emitted playbook against the same hosts.
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

"$ZEALOT" synth qwen35 -o q.gguf 2>/dev/null
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

# 1. fleet deploy brings all three up; the reason is hostile text, which
# reaches each host's zealot as one word.
reason="first fleet era: 'quoted' \"twice\" \$(touch pwned-reason) \`touch pwned-tick\`; touch pwned-semi"
t=$(ms)
run "$ZEALOT" fleet deploy fleet --reason "$reason" --parallel 3 "${F[@]}" --json
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
check "hostile reason: no marker file on any host or here" \
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
check "fleet status: each row has its host, MainPID, era 1, five probes passed, no divergence" \
	test "$(jq -r '[.endpoints[]|"\(.endpoint)@\(.host):\(.unit.main_pid>0):\(.era.id):\([.probes.probes[]|select(.status=="pass")]|length):\(.audit.divergences)"]|join(" ")' status1.json)" \
	= "e-a@a:true:1:5:0 e-b1@b:true:1:5:0 e-b2@b:true:1:5:0"
check "fleet status: the MainPID is the unit's on its host" \
	test "$(jq -r '.endpoints[]|select(.endpoint=="e-b2")|.unit.main_pid' status1.json)" = "$(fleet_exec b systemctl show -p MainPID --value e-b2.service)"
check "fleet status: no nvidia-smi here, said" \
	test "$(jq -r '[.endpoints[].memory.nvidia_smi]|unique|join(",")' status1.json)" = false
run "$ZEALOT" fleet status fleet "${F[@]}"
sed 's/^/#   /' "$TMP/out"
check "fleet status (text): a row per endpoint, healthy" test "$(grep -c ' healthy ' "$TMP/out")" = 3

# 3. fleet history merges both hosts' eras.
run "$ZEALOT" fleet history fleet "${F[@]}" --json
check "fleet history --json: three eras, one per endpoint, with its host" \
	test "$rc" -eq 0 -a "$(jq -r '[.eras[]|"\(.host)/\(.endpoint)/\(.id)"]|sort|join(" ")' "$TMP/out")" = "a/e-a/1 b/e-b1/1 b/e-b2/1"
check "fleet history: the hostile reason recorded byte for byte on every host" \
	test "$(jq -r --arg r "$reason" '[.eras[]|.reason==$r]|all' "$TMP/out")" = true
check "fleet history: sorted by the time each era began" \
	test "$(jq -r '[.eras[].started]|. == sort' "$TMP/out")" = true
