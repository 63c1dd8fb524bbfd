# Monitoring that proves itself: a real Prometheus (Debian's) runs zealot's
# emitted scrape job and alert rules against the real engine, booted by
# `zealot serve` on loopback, and the node exporter's textfile collector
# serves `zealot ledger --prom`'s file. The target is up, the rules evaluate
# without error, every expression of `zealot emit grafana` answers, the
# ledger's figures come back out of Prometheus, `zealot probe --prometheus`
# passes. Then the seeds' failure: the engine without --metrics (501) fires
# the down alert and the scrape probe fails naming the 501.
#
# Only the scrape interval (15s -> 1s) and the down alert's `for:` (2m ->
# 1s) are shortened for the test; the rest is the emitted text, held equal.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state

PIDS=()
stop_all() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	PIDS=()
}
trap 'engine_stop; stop_all; rm -rf "$TMP"' EXIT

# poll SECONDS CMD...: run CMD every 0.2 s until it succeeds or SECONDS pass
poll() { wait_for "$@"; } # tests/lib.sh

must "$ZEALOT" synth qwen35 -o q.gguf || exit 1
port=$(free_port)
cat >live.env <<X
RUNTIME=$SERVER
MODEL_FILE=q.gguf
ALIAS=zealot-live
LISTEN_PORT=$port
CTX_SIZE=4096
PARALLEL=2
PRESENCE_PENALTY=1.0
DEVICE=cpu
ADDRESSABLE_MIB=16384
X
url=http://127.0.0.1:$port

serve() { # boot the endpoint as its unit would: zealot serve, the engine exec'd
	"$ZEALOT" serve live.env >"$1" 2>&1 &
	ENGINE_PID=$!
	ENGINE_PORT=$port
	engine_ask "$ENGINE_PID" "$port"
	check_answered "the engine booted by zealot serve ($2)" "$1"
}
serve serve.log "--metrics on"

# the node exporter's textfile collector: the ledger of this boot (the
# engine logs through a thread: its buffer lines are all in the file once a
# line after them is)
mkdir tf
wait_for 30 grep -qE 'model loaded|listening on' serve.log
run "$ZEALOT" ledger serve.log --endpoint live.env --prom tf/zealot.prom
check "ledger --prom of the live boot: every exact term matches (exit 0)" rc_is 0
nport=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$nport" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$TMP/tf" >node.log 2>&1 &
PIDS+=($!)
poll 30 curl -sf -o node.txt "http://127.0.0.1:$nport/metrics"
check "the node exporter serves zealot_memory_mib from the textfile" grep -q '^zealot_memory_mib{' node.txt
check "the textfile collector read it without error" grep -q '^node_textfile_scrape_error 0' node.txt

# the emitted scrape job and rules, the intervals shortened
"$ZEALOT" emit prometheus live.env >job.yml
"$ZEALOT" emit alerts live.env >alerts.emitted.yml
sed 's/^\(  scrape_interval:\) 15s$/\1 1s/' job.yml >job.test.yml
awk '/- alert: LlmEndpointDown/ {down=1} /- alert: / && !/LlmEndpointDown/ {down=0} down && /^        for: 2m$/ {sub(/2m/, "1s")} {print}' \
	alerts.emitted.yml >alerts.yml
check "the test's rules differ from the emitted ones only in the down alert's for:" \
	test "$(diff alerts.emitted.yml alerts.yml | grep -c '^[<>]')" = 2 -a -n "$(diff alerts.emitted.yml alerts.yml | grep -F '>         for: 1s')"
check "the test's job differs from the emitted one only in its scrape_interval" \
	test "$(diff job.yml job.test.yml | grep '^[<>]' | grep -vc 'scrape_interval')" = 0
check "the emitted target is the engine's loopback port" grep -qF "'127.0.0.1:$port'" job.yml
# issue 33 item 4: SCRAPE_HOST names the host Prometheus reaches the engine
# at (the seeds': host.containers.internal); here localhost, a second job
mkdir scr scr2 && ln q.gguf scr/ && ln q.gguf scr2/
sed '/^PROMETHEUS_URL=/d' live.env >scr/live-scrape.env
echo 'SCRAPE_HOST=localhost' >>scr/live-scrape.env
sed 's/^SCRAPE_HOST=.*/SCRAPE_HOST=127.0.0.2/' scr/live-scrape.env >scr2/live-scrape.env
"$ZEALOT" emit prometheus scr/live-scrape.env | sed 's/^\(  scrape_interval:\) 15s$/\1 1s/' >scrape-job.yml
check "SCRAPE_HOST=localhost: the emitted target is localhost:PORT" grep -qF "'localhost:$port'" scrape-job.yml
{
	printf 'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - %s/alerts.yml\nscrape_configs:\n' "$TMP"
	sed 's/^/  /' job.test.yml
	sed 's/^/  /' scrape-job.yml
	printf '  - job_name: node\n    scrape_interval: 1s\n    static_configs:\n      - targets: [%s]\n' "'127.0.0.1:$nport'"
} >prometheus.yml
run promtool check config prometheus.yml
check "promtool check config accepts the test's config" rc_is 0

pport=$(free_port)
prom=http://127.0.0.1:$pport
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >prometheus.log 2>&1 &
PIDS+=($!)
poll 60 curl -sf -o /dev/null "$prom/-/ready"
check "Prometheus is ready" curl -sf -o /dev/null "$prom/-/ready"

# q EXPR: an instant query; the answer in q.json
q() { curl -s -m 10 -o q.json --data-urlencode "query=$1" "$prom/api/v1/query"; }
value_is() { q "$1" && [ "$(jq -r '.data.result[0].value[1] // empty' q.json)" = "$2" ]; }
job=live
check "up{job=\"$job\"} is 1: the engine's /metrics is scraped" poll 60 value_is "up{job=\"$job\"}" 1
rules_ok() {
	curl -s -m 10 -o rules.json "$prom/api/v1/rules" &&
		[ "$(jq '[.data.groups[].rules[]] | length' rules.json)" -gt 0 ] &&
		[ "$(jq '[.data.groups[].rules[] | select(.health != "ok" or .lastEvaluation == "0001-01-01T00:00:00Z")] | length' rules.json)" = 0 ]
}
poll 30 rules_ok
check "every alert rule loaded and evaluates with health ok (no evaluation error)" rules_ok
check "the rules are the emitted three" test "$(jq -c '[.data.groups[].rules[].name]' rules.json)" = '["LlmEndpointDown","LlmMetricsOff","LlmNoFreeSlot"]'
alerts_firing() { curl -s -m 10 -o alerts.json "$prom/api/v1/alerts" && jq -e '[.data.alerts[] | select(.labels.alertname == "LlmEndpointDown" and .state == "firing")] | length > 0' alerts.json >/dev/null; }
check "LlmEndpointDown does not fire while the scrape is up" test "$(curl -s "$prom/api/v1/alerts" | jq '[.data.alerts[] | select(.labels.alertname == "LlmEndpointDown")] | length')" = 0

# the ledger comes back out of Prometheus, through the node exporter
poll 30 value_is 'up{job="node"}' 1
line=$(grep -F 'term="kv"' tf/zealot.prom | grep -F 'source="ledger"}' | head -1)
kv=${line##* }
sel=$(sed 's/^zealot_memory_mib//; s/ [^ ]*$//' <<<"$line")
has_data() { q "$1" && [ "$(jq -r .status q.json)" = success ] && [ "$(jq '.data.result | length' q.json)" != 0 ]; }
poll 30 has_data "zealot_memory_mib$sel"
check "zealot_memory_mib$sel read back from Prometheus: $kv" \
	awk -v a="$(q "zealot_memory_mib$sel" && jq -r '.data.result[0].value[1]' q.json)" -v b="$kv" 'BEGIN {exit !(a != "" && a + 0 == b + 0)}'
check "planned and ledger kv agree in Prometheus too" \
	test "$(q "zealot_memory_mib{endpoint=\"$job\",term=\"kv\",source=\"plan\"} - ignoring(source) zealot_memory_mib{endpoint=\"$job\",term=\"kv\",source=\"ledger\"}" && jq -r '[.data.result[].value[1]|tonumber]|map(fabs)|max' q.json)" = 0
check "zealot_probe_pass{probe=\"ledger\"} is 1 in Prometheus" value_is "zealot_probe_pass{endpoint=\"$job\",probe=\"ledger\"}" 1

# every expression of the dashboard answers from this Prometheus; a rate()
# needs two samples of its counters in the window, so each is asked until
# it has data or 30 s pass (the scrape interval is 1 s)
"$ZEALOT" emit grafana live.env >dash.json
n=0 bad=0 empty=0
while IFS= read -r e; do
	n=$((n + 1))
	grep -q zealot_era <<<"$e" || poll 30 has_data "$e"
	if ! q "$e" || [ "$(jq -r .status q.json)" != success ]; then
		bad=$((bad + 1))
		echo "#   failed: $e: $(jq -r '.error // "no answer"' q.json 2>/dev/null)"
	elif [ "$(jq '.data.result | length' q.json)" = 0 ] && ! grep -q zealot_era <<<"$e"; then
		empty=$((empty + 1))
		echo "#   no data: $e"
	fi
done < <(jq -r '[.panels[].targets[]?.expr, (.annotations.list[]|.expr // empty)][]' dash.json)
check "all $n dashboard expressions answer status success" test "$n" -ge 12 -a "$bad" = 0
check "every dashboard expression returns data (the era annotation aside: no era change in the window)" test "$empty" = 0

run "$ZEALOT" probe "$url" --endpoint live.env --prometheus "$prom" --only scrape --json
check "probe --prometheus: the scrape probe passes" test "$rc" -eq 0 -a "$(jq -r '.probes[]|select(.name=="scrape")|.status' "$TMP/out")" = pass
run "$ZEALOT" probe "$url" --endpoint scr/live-scrape.env --prometheus "$prom" --only scrape --json
check "SCRAPE_HOST: the scrape probe checks localhost:PORT, up, and passes" \
	eval 'rc_is 0 && json_is "[.probes[]|.status]" "[\"pass\"]" && out_has "http://localhost:$port/metrics"'
run "$ZEALOT" probe "$url" --endpoint scr2/live-scrape.env --prometheus "$prom" --only scrape --json
check "SCRAPE_HOST=127.0.0.2, not the target scraped: the scrape probe fails naming both" \
	eval 'rc_is 1 && out_has "at localhost:$port, not at 127.0.0.2:$port"'
# the list fleet status runs on each host: scrape only where the file names a Prometheus
fleet_only=health,models,props,slots,metrics,scrape
run "$ZEALOT" probe "$url" --endpoint live.env --only "$fleet_only" --json
check "fleet status's probe list without PROMETHEUS_URL: no scrape probe, exit 0" \
	test "$rc" -eq 0 -a "$(jq -c '[.probes[].name]|index("scrape")' "$TMP/out")" = null
echo "PROMETHEUS_URL=$prom" >>live.env
run "$ZEALOT" probe "$url" --endpoint live.env --only scrape --json
check "the endpoint's PROMETHEUS_URL key does the same" test "$rc" -eq 0 -a "$(jq -r '.probes[0].name' "$TMP/out")" = scrape
run "$ZEALOT" probe "$url" --endpoint live.env --only "$fleet_only" --json
check "fleet status's probe list with PROMETHEUS_URL: the scrape probe passes beside the contract probes" \
	test "$rc" -eq 0 -a "$(jq -c '[.probes[]|select(.status=="pass")|.name]|sort' "$TMP/out")" = '["health","metrics","models","props","scrape","slots"]'
run "$ZEALOT" probe "$url" --prometheus ftp://x --only scrape
check "--prometheus that is no http URL: exit 2" rc_is 2

# the seeds' failure: the engine without --metrics
engine_stop
echo "METRICS=0" >>live.env
serve serve-off.log "METRICS=0"
check "without --metrics /metrics answers 501 while /health says 200" \
	test "$(curl -s -o /dev/null -w '%{http_code}' "$url/metrics")" = 501 -a "$(curl -s -o /dev/null -w '%{http_code}' "$url/health")" = 200
last_error_501() { test -n "$(curl -s -m 10 "$prom/api/v1/targets" | jq -r ".data.activeTargets[]|select(.labels.job==\"$job\")|.lastError|select(test(\"501\"))")"; }
poll 60 last_error_501
check "the scrape's lastError names the 501" last_error_501
poll 60 alerts_firing
check "LlmEndpointDown fires (the seeds' never-scraped target is caught)" alerts_firing
check "up{job=\"$job\"} is 0" value_is "up{job=\"$job\"}" 0
run "$ZEALOT" probe "$url" --endpoint live.env --only scrape --json
check "probe --prometheus fails, naming the 501" \
	test "$rc" -eq 1 -a -n "$(jq -r '.probes[]|select(.name=="scrape" and .status=="fail")|.evidence|select(test("501"))' "$TMP/out")"
check "no sanitizer report" no_sanitizer
