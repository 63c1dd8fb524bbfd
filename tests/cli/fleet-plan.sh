# zealot fleet plan: a directory of endpoint files grouped by host and card;
# a shared card must hold the sum of its endpoints plus the slack band once,
# and a refusal names the host, the card, the endpoints and the MiB.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

mkdir fleet
must "$ZEALOT" synth --preset bonsai-9b --set type=142 -o fleet/b9.gguf || exit 1
must "$ZEALOT" synth llama -o fleet/l.gguf || exit 1

# The seeds' fleet in miniature: frank-zealot alone on the first host's
# 3090; frank-archon and frank-dragoon sharing card 0 of the second.
port=7770
endpoint() { # NAME HOST GPU CTX PARALLEL
	port=$((port + 1))
	cat >"fleet/$1.env" <<X
LISTEN_PORT=$port
MODEL_FILE=b9.gguf
CTX_SIZE=$4
PARALLEL=$5
CACHE_TYPE_K=f16
CACHE_TYPE_V=q8_0
DEVICE=rtx3090
HOST=$2
GPU=$3
COMPACTION_HUB=frank-zealot
X
}
endpoint frank-zealot ssh://root@127.0.0.1:2201 0 602112 3
endpoint frank-archon frank@127.0.0.1 0 401408 2
endpoint frank-dragoon frank@127.0.0.1 0 401408 2

# each alone fits, by zealot plan itself
for e in frank-zealot frank-archon frank-dragoon; do
	run "$ZEALOT" plan --json "fleet/$e.env"
	check "$e alone: zealot plan says it fits" test "$rc" -eq 0 -a "$(jq -r .verdict "$TMP/out")" = fits
	jq .total_mib "$TMP/out" >"alone.$e"
	jq .host_mib "$TMP/out" >"host.$e"
done
sum=$(echo "$(cat alone.frank-archon) + $(cat alone.frank-dragoon)" | bc)

run "$ZEALOT" fleet plan fleet
check "two on one card that cannot hold both: exit 1" rc_is 1
# MiB with two decimals: a sum of exact bytes may differ from the sum of
# the rounded figures by a cent per term
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 0.025 && d > -0.025) }'; }
commas() { python3 -c 'import sys; print(f"{float(sys.argv[1]):,.2f}")' "$1"; }
msg=$(grep -F 'fleet plan: host 127.0.0.1, card 0 (rtx3090): ' "$TMP/err")
check "the refusal names the host, the card, both endpoints with their plans' MiB" \
	test -n "$(echo "$msg" | grep -F "): frank-archon $(commas "$(cat alone.frank-archon)") + frank-dragoon $(commas "$(cat alone.frank-dragoon)") = ")"
said=$(echo "$msg" | sed -nE 's/.* = ([0-9.,]+) MiB, plus the 1,024\.00 MiB slack band, is more than the 24,123\.00 MiB addressable \(law M09\)$/\1/p' | tr -d ,)
check "the refusal says the sum ($said), the slack band and the addressable figure" near "${said:-0}" "$sum"
check "only the shared card is refused" test "$(grep -c 'fleet plan: host' "$TMP/err")" -eq 1
check "the table: 3 endpoints on 2 hosts" out_has "3 endpoints on 2 hosts"
check "the table: the shared card REFUSED" grep -qE '^127\.0\.0\.1 +GPU0 +rtx3090 .*REFUSED \(law M09\)' "$TMP/out"
check "the table: the first host's card fits" grep -qE '^127\.0\.0\.1:2201 +GPU0 +rtx3090 .* fits$' "$TMP/out"
check "no sanitizer report" no_sanitizer

run "$ZEALOT" fleet plan --json fleet
check "--json: exit 1, verdict refused" test "$rc" -eq 1 -a "$(jq -r .verdict "$TMP/out")" = refused
check "--json: endpoints sorted by name, with host, dest and gpu" \
	json_is '[.endpoints[]|[.name,.host,.dest,.gpu]]' \
	'[["frank-archon","127.0.0.1","frank@127.0.0.1",0],["frank-dragoon","127.0.0.1","frank@127.0.0.1",0],["frank-zealot","127.0.0.1:2201","ssh://root@127.0.0.1:2201",0]]'
check "--json: four groups, hosts in order, memory after the cards" \
	json_is '[.cards[]|[.host,.card,.shared,.fits]]' \
	'[["127.0.0.1",0,true,false],["127.0.0.1",null,true,true],["127.0.0.1:2201",0,false,true],["127.0.0.1:2201",null,false,true]]'
check "--json: each endpoint's figure is zealot plan's" \
	json_is '[.endpoints[]|.total_mib]' "[$(cat alone.frank-archon),$(cat alone.frank-dragoon),$(cat alone.frank-zealot)]"
check "--json: the shared card's total is the sum of the two plans" near "$(jq '.cards[0].total_mib' "$TMP/out")" "$sum"
check "--json: the host memory is the sum of the two host figures" \
	near "$(jq '.cards[1].total_mib' "$TMP/out")" "$(echo "$(cat host.frank-archon) + $(cat host.frank-dragoon)" | bc)"
check "--json: free = addressable - total on the refused card" \
	near "$(jq '.cards[0].free_mib' "$TMP/out")" "$(echo "24123 - $sum" | bc)"

# the slack band counts once: an addressable figure between sum + slack and
# sum + 2 x slack fits; one MiB under sum + slack is refused
ceil() { echo "$1" | awk '{ x = int($1); if (x < $1) x++; print x }'; }
fit=$(ceil "$(echo "$sum + 1024.02" | bc)")
for e in frank-archon frank-dragoon; do echo "ADDRESSABLE_MIB=$fit" >>"fleet/$e.env"; done
run "$ZEALOT" fleet plan --json fleet
check "sum + one slack band <= addressable ($fit MiB; two bands would not fit): exit 0" \
	test "$rc" -eq 0 -a "$(jq -r .verdict "$TMP/out")" = fits -a "$(echo "$sum + 2048 > $fit" | bc)" = 1
check "--json: the card's slack is 1024 once and its source ADDRESSABLE_MIB" \
	json_is '.cards[0]|[.slack_mib,.addressable_source,.addressable_mib]' "[1024,\"ADDRESSABLE_MIB\",$fit]"
under=$(($(ceil "$(echo "$sum + 1024" | bc)") - 1))
sed -i "s/^ADDRESSABLE_MIB=.*/ADDRESSABLE_MIB=$under/" fleet/frank-archon.env
run "$ZEALOT" fleet plan --json fleet
check "the smallest addressable among the sharers counts ($under MiB): exit 1" \
	test "$rc" -eq 1 -a "$(jq '.cards[0].addressable_mib' "$TMP/out")" = "$under"
sed -i '/^ADDRESSABLE_MIB=/d' fleet/frank-archon.env fleet/frank-dragoon.env

# the largest SLACK_MIB among the sharers is the band
echo "ADDRESSABLE_MIB=$fit" >>fleet/frank-archon.env
echo "SLACK_MIB=2048" >>fleet/frank-dragoon.env
run "$ZEALOT" fleet plan --json fleet
check "the largest SLACK_MIB (2048) is the band: refused where 1024 fit" \
	test "$rc" -eq 1 -a "$(jq '.cards[0].slack_mib' "$TMP/out")" = 2048
sed -i '/^ADDRESSABLE_MIB=/d; /^SLACK_MIB=/d' fleet/frank-archon.env fleet/frank-dragoon.env

# another card on the same host: nothing is shared
sed -i 's/^GPU=0/GPU=1/' fleet/frank-dragoon.env
run "$ZEALOT" fleet plan --json fleet
check "GPU=1 for one of them: two cards, exit 0" \
	test "$rc" -eq 0 -a "$(jq -c '[.cards[]|select(.host=="127.0.0.1")|.card]' "$TMP/out")" = '[0,1,null]'
run "$ZEALOT" fleet plan fleet
check "the human table names GPU1" grep -qE '^127\.0\.0\.1 +GPU1 +rtx3090' "$TMP/out"

# local CPU endpoints: host "localhost", held against the host's memory
mkdir cpu
for e in a b; do
	printf 'MODEL_FILE=l.gguf\nCTX_SIZE=4096\nDEVICE=cpu\nADDRESSABLE_MIB=%s\nLISTEN_PORT=%s\n' 100000 "$((port++))" >"cpu/$e.env"
done
cp fleet/l.gguf cpu/
run "$ZEALOT" fleet plan --json cpu
check "two local CPU endpoints: localhost memory, exit 0" \
	test "$rc" -eq 0 -a "$(jq -c '[.cards[]|[.host,.card,.addressable_source]]' "$TMP/out")" = '[["localhost",null,"ADDRESSABLE_MIB"]]'
"$ZEALOT" plan --json cpu/a.env >a.json
each=$(jq .total_mib a.json)
both=$(echo "2 * $each" | bc)
check "their memory is the sum of their plans ($both MiB)" near "$(jq '.cards[0].total_mib' "$TMP/out")" "$both"
# each fits alone (total + 1024 slack), both together do not
lim=$(ceil "$(echo "$each + 1024.02" | bc)")
sed -i "s/^ADDRESSABLE_MIB=.*/ADDRESSABLE_MIB=$lim/" cpu/a.env cpu/b.env
run "$ZEALOT" plan cpu/a.env
check "one alone in $lim MiB: fits" rc_is 0
run "$ZEALOT" fleet plan cpu
check "both in $lim MiB: exit 1 naming localhost's memory and both" \
	test "$rc" -eq 1 -a -n "$(grep -F "fleet plan: host localhost, memory: a " "$TMP/err" | grep -F " + b ")"
check "no sanitizer report" no_sanitizer

# two endpoints of one host on one port: only one can listen
sed -i "s/^ADDRESSABLE_MIB=.*/ADDRESSABLE_MIB=100000/; s/^LISTEN_PORT=.*/LISTEN_PORT=9000/" cpu/a.env cpu/b.env
run "$ZEALOT" fleet plan cpu
check "one port, one host: exit 1 naming the host, the port and both" \
	test "$rc" -eq 1 -a -n "$(grep -Fx 'zealot: fleet plan: host localhost, port 9000: a and b both listen there (BIND_ADDR 127.0.0.1 and 127.0.0.1)' "$TMP/err")"
run "$ZEALOT" fleet plan --json cpu
check "--json: the clash in port_clashes, verdict refused" \
	test "$(jq -c '[.verdict,.port_clashes]' "$TMP/out")" = '["refused",[{"host":"localhost","port":"9000","endpoints":["a","b"]}]]'
echo BIND_ADDR=127.0.0.2 >>cpu/b.env
run "$ZEALOT" fleet plan cpu
check "the same port on two loopback addresses: no clash, exit 0" rc_is 0
sed -i 's/^BIND_ADDR=.*/BIND_ADDR=0.0.0.0/' cpu/b.env
run "$ZEALOT" fleet plan cpu
check "a wildcard bind takes every address: a clash again" test "$rc" -eq 1 -a -n "$(grep -F 'port 9000: a and b' "$TMP/err")"

# refusals of the directory and its files
mkdir bad
cp fleet/frank-zealot.env bad/
printf 'HOST=-oProxyCommand=touch%%20pwned\n' >>bad/frank-zealot.env
sed -i '0,/^HOST=ssh/{/^HOST=ssh/d}' bad/frank-zealot.env
run "$ZEALOT" fleet plan bad
check "a hostile HOST: exit 2 naming the file, line and key" \
	test "$rc" -eq 2 -a -n "$(grep -E 'fleet plan: .*bad/frank-zealot\.env:[0-9]+: HOST: ' "$TMP/err")"
check "a hostile HOST: nothing ran" test ! -e pwned
mkdir empty
run "$ZEALOT" fleet plan empty
check "an empty directory: exit 2 saying so" test "$rc" -eq 2 -a -n "$(grep -F 'holds no endpoint file' "$TMP/err")"
run "$ZEALOT" fleet plan nowhere
check "a missing directory: exit 3 naming it" test "$rc" -eq 3 -a -n "$(grep -F "'nowhere'" "$TMP/err")"
mkdir nopayload
printf 'MODEL_FILE=missing.gguf\nCTX_SIZE=4096\n' >nopayload/x.env
run "$ZEALOT" fleet plan nopayload
check "an endpoint whose payload is missing: exit 3 naming the endpoint" \
	test "$rc" -eq 3 -a -n "$(grep -F 'fleet plan: x: ' "$TMP/err")"

# the group
run "$ZEALOT" fleet --help
check "fleet --help lists plan" test "$rc" -eq 0 -a -n "$(grep -E '^  plan +plan every endpoint' "$TMP/out")"
run "$ZEALOT" fleet --list
check "fleet --list: the subcommands, one a line" test "$rc" -eq 0 -a "$(head -1 "$TMP/out")" = plan
run "$ZEALOT" fleet plant
check "an unknown subcommand: exit 2 naming it" \
	test "$rc" -eq 2 -a -n "$(grep -F "fleet: 'plant' is not a fleet subcommand" "$TMP/err")"
run "$ZEALOT" fleet
check "no subcommand: exit 2 with the usage" test "$rc" -eq 2 -a -n "$(grep -F 'zealot: fleet: missing SUBCOMMAND' "$TMP/err")"
run "$ZEALOT" fleet plan --help
check "fleet plan --help documents --json" test "$rc" -eq 0 -a -n "$(grep -E '^usage: zealot fleet plan DIR' "$TMP/out")" -a -n "$(grep -E '^  --json' "$TMP/out")"
run "$ZEALOT" fleet plan
check "fleet plan with no DIR: exit 2" test "$rc" -eq 2 -a -n "$(grep -F 'zealot: fleet plan: missing' "$TMP/err")"
run "$ZEALOT" fleet plan fleet --jsn
check "fleet plan --jsn: exit 2, did you mean --json" err_has "(did you mean --json?)"
check "no sanitizer report" no_sanitizer

# the keys, judged and rendered one endpoint at a time
cp fleet/b9.gguf .
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\nDEVICE=rtx3090\nRUNTIME=/bin/true\nHOST=frank@-oProxyCommand\nCOMPACTION_HUB=a b\n' >keys.env
run "$ZEALOT" check --json keys.env
check "check: a HOST with a leading '-' is a C02 error on HOST" \
	test "$rc" -eq 1 -a "$(jq -c '[.findings[]|select(.law=="C02" and .severity=="error")|.key]|sort' "$TMP/out")" = '["COMPACTION_HUB","HOST"]'
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\nGPU=1\n' >cpu-gpu.env
run "$ZEALOT" check --json cpu-gpu.env
check "check: GPU on DEVICE=cpu is a C02 warning" \
	test "$(jq -c '[.findings[]|select(.key=="GPU")|[.law,.severity]]' "$TMP/out")" = '[["C02","warning"]]'
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\nDEVICE=rtx3090\nGPU=1\n' >gpu.env
run "$ZEALOT" emit unit gpu.env
check "emit unit: GPU=1 is the unit's CUDA_VISIBLE_DEVICES=1" test "$rc" -eq 0 -a "$(grep -c '^Environment=CUDA_VISIBLE_DEVICES=1$' "$TMP/out")" -eq 1
check "emit unit: EnvironmentFile= stays a line of its own beside it" grep -qFx "EnvironmentFile=-$TMP/gpu.env" "$TMP/out"
cp "$TMP/out" gpu.service
if command -v systemd-analyze >/dev/null; then
	run systemd-analyze verify gpu.service
	check "emit unit with GPU: systemd-analyze verify passes" test "$rc" -eq 0 -a ! -s "$TMP/err"
fi
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\n' >nogpu.env
run "$ZEALOT" emit unit nogpu.env
check "emit unit: without GPU the unit sets no CUDA_VISIBLE_DEVICES" test "$rc" -eq 0 -a -z "$(grep -F CUDA_VISIBLE_DEVICES "$TMP/out")"
check "no sanitizer report" no_sanitizer
