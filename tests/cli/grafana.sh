# zealot emit grafana ENDPOINT|DIR: a dashboard JSON for Grafana's file
# provisioning, a row of panels per endpoint, every expression plain PromQL
# that promtool accepts (each one written into a rule file and checked).
# tests/live/prometheus.sh asks a real Prometheus every expression.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

mkdir fleet
must "$ZEALOT" synth --preset bonsai-9b -o fleet/b9.gguf || exit 1
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=602112\nPARALLEL=3\nDEVICE=rtx3090\nLISTEN_PORT=7771\n' >fleet/frank-zealot.env
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=131072\nPARALLEL=1\nDEVICE=rtx3090\nLISTEN_PORT=7773\nKV_UNIFIED=1\n' >fleet/frank-dragoon.env
# a name that is no plain word: quoted in PromQL, never a new label matcher
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=8192\nDEVICE=rtx3090\nLISTEN_PORT=7774\n' >'fleet/odd"name.env'

run "$ZEALOT" emit grafana fleet/frank-zealot.env
check "emit grafana ENDPOINT: exit 0" rc_is 0
cp "$TMP/out" one.json
check "it is JSON with a current schemaVersion (39) and a uid" json_is '[.schemaVersion >= 39, .uid]' '[true,"zealot-frank-zealot"]'
check "a datasource variable of type prometheus" json_is '[.templating.list[]|select(.type=="datasource")|.query]' '["prometheus"]'
check "one row, titled by the endpoint" json_is '[.panels[]|select(.type=="row")|.title]' '["frank-zealot"]'
titles=$(jq -c '[.panels[]|select(.type!="row")|.title]' one.json)
for t in "tokens/s: prefill and decode" "requests: processing and deferred" "slots busy" "KV cache use" \
	"draft acceptance" "memory per term: planned, ledger, settled"; do
	check "panel '$t'" grep -qF "\"$t\"" <<<"$titles"
done
check "panels select the engine by job (the scrape job's name)" \
	test "$(jq -r '[.panels[].targets[]?.expr|select(test("llamacpp:"))|test("job=\"frank-zealot\"")]|all' one.json)" = true
check "memory panel reads zealot_memory_mib by endpoint, per term and source" \
	grep -qF 'sum by (term, source) (zealot_memory_mib{endpoint=\"frank-zealot\"})' one.json
check "KV cache use is against the per-slot window (602112 / 3 = 200704, M03)" grep -qF 'n_tokens_max{job=\"frank-zealot\"} / 200704' one.json
check "the era is an annotation on zealot_era" json_is '[.annotations.list[]|select(.expr)|.expr]' '["changes(zealot_era{endpoint=\"frank-zealot\"}[5m]) > 0"]'
check "panel ids are unique" test "$(jq '[.panels[].id]|length == (unique|length)' one.json)" = true
check "no panel overlaps another (gridPos)" test "$(jq '[.panels[].gridPos|[.x,.y,.w,.h]] as $g | [range(0;$g|length) as $i | range($i+1;$g|length) as $j | ($g[$i]) as $a | ($g[$j]) as $b | select($a[0] < $b[0]+$b[2] and $b[0] < $a[0]+$a[2] and $a[1] < $b[1]+$b[3] and $b[1] < $a[1]+$a[3])]|length' one.json)" = 0

# every expression in a rule file: promtool parses each one
exprs() { jq -r '[.panels[].targets[]?.expr, (.annotations.list[]|.expr // empty)][]' "$1"; }
rules() {
	echo "groups:"
	echo "  - name: grafana"
	echo "    rules:"
	local i=0 e
	while IFS= read -r e; do
		i=$((i + 1))
		printf '      - record: grafana:expr_%d\n        expr: %s\n' "$i" "$(jq -Rn --arg e "$e" '$e')"
	done < <(exprs "$1")
}
rules one.json >one-rules.yml
n=$(exprs one.json | wc -l)
run promtool check rules one-rules.yml
check "promtool check rules accepts all $n expressions" test "$rc" -eq 0 -a -n "$(grep -F "SUCCESS: $n rules found" "$TMP/out")"
check "at least 12 expressions (every panel's targets and the annotation)" test "$n" -ge 12

# the check can fail: a broken expression is refused
sed 's/ > 0"/ >>> 0"/' one-rules.yml >bad-rules.yml
run promtool check rules bad-rules.yml
check "promtool refuses a broken expression (the check can fail)" test "$rc" -ne 0

run "$ZEALOT" emit grafana fleet
check "emit grafana DIR: exit 0" rc_is 0
cp "$TMP/out" fleet.json
check "a row per endpoint, sorted by name" json_is '[.panels[]|select(.type=="row")|.title]' '["frank-dragoon","frank-zealot","odd\"name"]'
check "an era annotation per endpoint" test "$(jq '[.annotations.list[]|select(.expr)]|length' fleet.json)" = 3
check "a unified cache's window is the whole pool" grep -qF 'n_tokens_max{job=\"frank-dragoon\"} / 131072' fleet.json
rules fleet.json >fleet-rules.yml
n=$(exprs fleet.json | wc -l)
run promtool check rules fleet-rules.yml
check "promtool accepts the fleet's $n expressions, the odd name escaped" test "$rc" -eq 0 -a -n "$(grep -F "SUCCESS: $n rules found" "$TMP/out")"
check "the odd name stays one label value" grep -qF 'job=\"odd\\\"name\"' fleet.json
check "the fleet's uid is a Grafana uid" test -n "$(jq -r '.uid|select(test("^[A-Za-z0-9_-]{1,40}$"))' fleet.json)"

run "$ZEALOT" emit grafana nowhere.env
check "a missing endpoint file: exit 3" rc_is 3

# issue 28 item 3: an endpoint file name that is not UTF-8 (byte 0xff) is
# no crash: the dashboard names the job as emit prometheus and alerts do
# (the byte as \xff), and check --json keeps the name
mkdir bad
bad=$(printf 'bad/n\377.env')
cp fleet/frank-zealot.env "$bad"
cp fleet/b9.gguf bad/
run "$ZEALOT" emit grafana "$bad"
check "emit grafana, a name that is not UTF-8: exit 0, no sanitizer report" test "$rc" -eq 0 -a -s "$TMP/out"
no_sanitizer || echo "not ok - emit grafana, a name that is not UTF-8: a sanitizer report"
check "... the row is titled n\\xff" json_is '[.panels[]|select(.type=="row")|.title]' '["n\\xff"]'
check "... every engine panel selects job=\"n\\\\xff\"" \
	test "$(jq -r '[.panels[].targets[]?.expr|select(test("llamacpp:"))|contains("job=\"n\\\\xff\"")]|all' "$TMP/out")" = true
run "$ZEALOT" emit prometheus "$bad"
check "emit prometheus names the same job" grep -qFx -- '- job_name: "n\\xff"' "$TMP/out"
printf 'scrape_configs:\n' >badprom.yml
sed 's/^/  /' "$TMP/out" >>badprom.yml
check "... a config promtool accepts" promtool check config --syntax-only badprom.yml
run "$ZEALOT" emit alerts "$bad"
cp "$TMP/out" badrules.yml
check "emit alerts: rules promtool accepts, on job=\"n\\\\xff\"" \
	test "$(promtool check rules badrules.yml >/dev/null 2>&1; echo $?)" = 0 -a -n "$(grep -F 'job=\"n\\\\xff\"' badrules.yml)"
run "$ZEALOT" check --json "$bad"
check "check --json keeps the name (made safe), no sanitizer report" \
	test "$(jq -r .endpoint "$TMP/out")" = 'bad/n\xff.env' -a -z "$(grep -E 'Sanitizer|runtime error' "$TMP/err")"
printf 'FROBNICATE=1\n' >"$bad"
run "$ZEALOT" check --json "$bad"
check "check --json, a file that does not parse: the name and the reason kept" \
	json_is '[.endpoint, (.findings[0].reason|startswith("bad/n\\xff.env:1: unknown key"))]' '["bad/n\\xff.env",true]'
