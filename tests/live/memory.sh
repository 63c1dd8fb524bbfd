# The settled memory against the plan (issue 33 item 2, laws M10 and M09):
# audit reads the real engine's resident memory (/proc/PID/status) and, on a
# card endpoint, the process's memory on GPU's card from nvidia-smi's
# compute apps (a fake nvidia-smi on PATH answers for the card; the engine
# itself is the real CPU one). Within the band: no finding. The card holding
# less than the plan by more than the band: M10, a spill. More: M09. An
# engine booted with a larger pool than the endpoint file: the host's M09.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state

"$ZEALOT" synth qwen35 -o q.gguf 2>/dev/null
port=$(free_port)
cat >live.env <<X
RUNTIME=$SERVER
MODEL_FILE=q.gguf
LISTEN_PORT=$port
CTX_SIZE=4096
PARALLEL=2
DEVICE=cpu
ADDRESSABLE_MIB=16384
EXTRA_ARGS=--threads 1
X

# start NAME SETS...: boot `zealot argv live.env --set SETS...` by hand
start() {
	local name=$1 sets=() s
	shift
	for s in "$@"; do sets+=(--set "$s"); done
	mapfile -t cmd < <("$ZEALOT" argv live.env "${sets[@]}")
	"${cmd[@]}" >"$name.log" 2>&1 &
	ENGINE_PID=$!
	ENGINE_PORT=$port
	engine_ask "$ENGINE_PID" "$port"
	check_answered "$name" "$name.log"
}

start engine
run "$ZEALOT" audit live.env --pid "$ENGINE_PID" --log engine.log --json
check "cpu: audit exits 0, no divergence" test "$rc" -eq 0 -a "$(jq .divergences "$TMP/out")" = 0
check "cpu: one memory row, the host" json_is '[.memory.rows[].what]' '["host"]'
check "cpu: the process's RSS is measured" test "$(jq '.memory.rss_mib > 0' "$TMP/out")" = true
plan_host=$("$ZEALOT" plan live.env --json | jq '.devices[-1].total_mib')
check "cpu: the row's plan is the plan's host total ($plan_host MiB)" \
	test "$(jq --argjson p "$plan_host" '(.memory.rows[0].plan_mib - $p)|fabs < 0.01' "$TMP/out")" = true
check "cpu: the boot ledger (--log) stands beside it, equal to the plan here" \
	test "$(jq '(.memory.rows[0].ledger_mib - .memory.rows[0].plan_mib)|fabs < 0.05' "$TMP/out")" = true
check "cpu: held within the band, no law" json_is '[.memory.rows[0].law, .memory.rows[0].band_mib]' '[null,256]'
echo "# cpu: plan $(jq .memory.rows[0].plan_mib "$TMP/out") MiB, RSS $(jq .memory.rss_mib "$TMP/out") MiB"
run "$ZEALOT" audit live.env --pid "$ENGINE_PID"
check "cpu: the table names the memory row" test -n "$(grep -E '^   memory host +[0-9.,]+ MiB \(plan\) +[0-9.,]+ MiB' "$TMP/out")"

# A card endpoint: the fake nvidia-smi lists the engine's PID with NVUSED MiB.
mkdir bin
cat >bin/nvidia-smi <<'X'
#!/bin/sh
printf '%s\n' "$*" >>"$NVLOG"
case "$*" in
*compute-apps*) printf '4242, 77\n%s, %s\n' "$NVPID" "$NVUSED" ;;
*) echo 20000 ;;
esac
X
chmod 755 bin/nvidia-smi
export NVLOG=$TMP/nv.log NVPID=$ENGINE_PID
card() { # NVUSED GPU: audit as a card endpoint
	: >nv.log
	NVUSED=$1 PATH=$TMP/bin:$PATH run "$ZEALOT" audit live.env --pid "$ENGINE_PID" --set DEVICE=rtx3090 \
		--set GPU="$2" --json
}
card 400 1
plan_card=$(jq '.memory.rows[0].plan_mib' "$TMP/out")
check "card: the card's row first, the plan's card total ($plan_card MiB)" \
	json_is '[.memory.rows[].what]' '["card 1","host"]'
check "card: nvidia-smi asked for the compute apps of GPU's card (-i 1)" \
	test -n "$(grep -F -- '--query-compute-apps=pid,used_memory' nv.log | grep -- '-i 1$')"
check "card: the engine's PID's figure, not the other process's" json_is .memory.card_used_mib 400
check "card: 400 MiB held against $plan_card planned: within the band, exit 0" \
	test "$rc" -eq 0 -a "$(jq -c '.memory.rows[0].law' "$TMP/out")" = null
card 100 0
check "card: 100 MiB held: M10, an error, exit 1" \
	test "$rc" -eq 1 -a "$(jq -c '[.memory.rows[0].law, .memory.rows[0].error]' "$TMP/out")" = '["M10",true]'
check "card: the row says how much is not on the card" \
	test -n "$(jq -r '.memory.rows[0].why' "$TMP/out" | grep -F 'MiB of the plan are not on the card')"
NVUSED=100 PATH=$TMP/bin:$PATH run "$ZEALOT" audit live.env --pid "$ENGINE_PID" --set DEVICE=rtx3090
check "card: the table names M10 and the spill" \
	test -n "$(grep -E '^!! memory card 0 .* M10$' "$TMP/out")" -a -n "$(grep -F 'M10 card 0: the process holds 100.00 MiB' "$TMP/out")"
card 2000 0
check "card: 2,000 MiB held: M09, a warning (the slack band eaten)" \
	json_is '[.memory.rows[0].law, .memory.rows[0].error]' '["M09",false]'
NVPID=1 card 100 0
check "card: the engine not listed: not measured, said, no finding" \
	test "$(jq -c '[.memory.card_used_mib, .memory.rows[0].law]' "$TMP/out")" = '[null,null]' -a \
	-n "$(jq -r .memory.card_note "$TMP/out" | grep -F 'not '"$ENGINE_PID")"
# No plan (the payload unreadable): the memory is not compared, said, and
# the rest of the audit stands
run "$ZEALOT" audit live.env --pid "$ENGINE_PID" --set MODEL_FILE=/nonexistent.gguf --json
check "no plan: audit still reports (the payload's C03 row), memory not compared, naming why" \
	test "$rc" -eq 1 -a "$(jq -r '.rows[]|select(.what=="payload")|.law' "$TMP/out")" = C03 -a \
	-n "$(jq -r '.memory.not_compared' "$TMP/out" | grep -F nonexistent)"
stop_pid "$ENGINE_PID"

# An engine that holds more than the endpoint file's plan (a pool 64 times
# larger, its KV cleared at boot): the host row's M09.
start bigger CTX_SIZE=262144
run "$ZEALOT" audit live.env --pid "$ENGINE_PID" --json
check "bigger pool: the host holds more than the plan by more than the band: M09" \
	json_is '[.memory.rows[0].what, .memory.rows[0].law]' '["host","M09"]'
echo "# bigger pool: plan $(jq .memory.rows[0].plan_mib "$TMP/out") MiB, RSS $(jq .memory.rss_mib "$TMP/out") MiB"
stop_pid "$ENGINE_PID"
check "no sanitizer report" no_sanitizer
