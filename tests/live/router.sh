# The engine's router mode, booted for real on the CPU by `zealot serve` of
# a router endpoint: three members of different families (llama, gemma3
# with a sliding window, qwen35 hybrid), MODELS_MAX=2. Each child the
# router spawns answers through the router, its boot ledger (split out of
# the router's log by its [PORT] prefix) equals its member's plan, the
# preset the engine read holds every argument zealot pinned, and a memory
# under the two largest members refuses the router.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1

router_members "EXTRA_ARGS=--threads 1" || exit 1
port=$(free_port)
cat >router.env <<X
RUNTIME=$SERVER
MODELS=models
MODELS_MAX=2
LISTEN_PORT=$port
ADDRESSABLE_MIB=16384
X
url=http://127.0.0.1:$port

run "$ZEALOT" serve --dry-run router.env
check "serve --dry-run of the router: gates pass (exit 0)" rc_is 0
check "serve writes the preset beside the file" test -s router.models.ini

"$ZEALOT" serve router.env >router.log 2>&1 &
pid=$!
engine_up "$pid" "$port"
check "the router answers /health" test "$ASK_HEALTH" = 200
run curl -s -m 10 "$url/models"
check "/models lists the three members by name" json_is '[.data[].id] | sort' '["gemma","llama","qwen"]'
check "the engine read every pinned argument (fit off, the context)" \
	json_is '[.data[] | .status.args | (index("--fit") as $i | .[$i+1]), (index("--ctx-size") as $i | .[$i+1])] | unique' '["4096","off"]'

# ask each member once through the router (it loads it on demand)
for m in llama gemma qwen; do
	code=$(curl -s -m 180 -o ask.json -w '%{http_code}' -H 'Content-Type: application/json' \
		-d "{\"model\":\"$m\",\"prompt\":\"The sky is\",\"n_predict\":4,\"ignore_eos\":true}" "$url/completion")
	check "$m answers through the router" test "$code" = 200 -a "$(jq '.tokens_predicted // 0' ask.json)" -gt 0
done
run curl -s -m 10 "$url/models"
check "MODELS_MAX=2: two members resident after three loads" json_is '[.data[] | select(.status.value == "loaded")] | length' '2'

# every child's ledger equals its member's plan
wait_for 30 grep -q "^\[ *[0-9]*\] .*compute buffer size" router.log
run "$ZEALOT" ledger --json --endpoint router.env router.log
check "ledger of the router: exit 0" rc_is 0
check "three boots, one per member, in load order" json_is '[.boots[].name]' '["llama","gemma","qwen"]'
check "every boot matches its member's plan" json_is '[.boots[].verdict] | unique' '["matches"]'
check "the window's and the hybrid's caches were compared" \
	json_is '[.boots[1].comparison[] | select(.term == "kv_swa")] + [.boots[2].comparison[] | select(.term == "recurrent")] | length > 1' 'true'
# the check can fail: a member whose file changed no longer matches its boot
sed -i 's/CTX_SIZE=4096/CTX_SIZE=8192/' models/gemma.env
run "$ZEALOT" ledger --endpoint router.env router.log
check "a changed member: the ledger differs (exit 1)" rc_is 1
check "and names the member" out_has "gemma                port"
sed -i 's/CTX_SIZE=8192/CTX_SIZE=4096/' models/gemma.env

# probe: /models, then each member by its name through the router
run "$ZEALOT" probe "$url" --endpoint router.env --json --timeout 120
check "probe of the router: exit 0" rc_is 0
check "the router lists every member" json_is '.models | sort' '["gemma","llama","qwen"]'
check "every member passes its probes" json_is '[.members[] | [.name, .verdict]]' '[["gemma","pass"],["llama","pass"],["qwen","pass"]]'
check "each member's props, slots and overlong probes ran against its own child" \
	json_is '[.members[] | .probes[] | select(.name == "props" or .name == "overlong") | .status] | unique' '["pass"]'
sed -i 's/PARALLEL=2/PARALLEL=3/' models/llama.env
run "$ZEALOT" probe "$url" --endpoint router.env --json --only props,slots
check "a member whose slots differ: probe fails (exit 1)" rc_is 1
check "and it is that member" json_is '[.members[] | select(.verdict == "fail") | .name]' '["llama"]'
sed -i 's/PARALLEL=3/PARALLEL=2/' models/llama.env
stop_pid "$pid"

# llama-swap's cmd for a member, its ${PORT} given: zealot serve boots that
# member alone, gated, under its own name
run "$ZEALOT" emit llama-swap router.env
check "emit llama-swap: exit 0" rc_is 0
p2=$(free_port)
swapcmd=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["models"]["qwen"]["cmd"])' "$TMP/out")
eval "${swapcmd//\$\{PORT\}/$p2}" >swap.log 2>&1 &
spid=$!
engine_ask "$spid" "$p2"
check "llama-swap's cmd for qwen serves it on the port given" test "$ASK_HTTP" = 200
run curl -s -m 10 "http://127.0.0.1:$p2/v1/models"
check "under its member name" json_is '[.data[].id]' '["qwen"]'
stop_pid "$spid"

# a memory under the two largest members refuses the router; safe 1
run "$ZEALOT" plan --json router.env
a=$(jq '[.members[].total_mib] | sort | reverse | (.[0] + 64 + 1024 + .[1] / 2) | floor' "$TMP/out")
run "$ZEALOT" plan --json router.env --set ADDRESSABLE_MIB="$a"
check "under the two largest: refused, safe_models_max 1" json_is '[.verdict,.safe_models_max]' '["refused",1]'
sed -i "s/ADDRESSABLE_MIB=16384/ADDRESSABLE_MIB=$a/" router.env
run "$ZEALOT" serve --dry-run router.env
check "serve refuses it (78) at the fit gate, law M13" test "$rc" = 78 -a -n "$(grep -F 'fit gate: M13' "$TMP/err")"
