# A router endpoint (MODELS, MODELS_MAX): its members priced as the
# children the engine's router starts, the worst co-resident set held to
# every device (law M13), the keys each side may set (law C12), the preset
# and the router's own argv.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

router_members || exit 1
cat >router.env <<'X'
MODELS=models
MODELS_MAX=2
LISTEN_PORT=18080
ADDRESSABLE_MIB=20000
CPU_FEATURES=avx2
X

run "$ZEALOT" plan --json router.env
check "router: fits (exit 0)" rc_is 0
check "router: three members, by name" json_is '[.members[].name]' '["gemma","llama","qwen"]'
check "router: models_max 2, safe 3, verdict fits" json_is '[.models_max,.safe_models_max,.verdict]' '[2,3,"fits"]'
check "router: each member's plan is its own plan JSON" json_is '[.members[].plan.kv.cells, .members[0].plan.kv_swa.cells]' '[2048,2048,2048,1024]'
check "router: the cache ceiling each child holds (--cache-ram 64)" json_is '[.members[].cache_ram_mib]' '[64,64,64]'
check "router: checkpoints only for the window and the hybrid" \
	json_is '[.members[]|.checkpoints_mib > 0]' '[true,false,true]'
cp "$TMP/out" set.json
# a member's plan is the plan of its file with the router's keys laid over it
run "$ZEALOT" plan --json models/gemma.env --set ADDRESSABLE_MIB=20000 --set CPU_FEATURES=avx2 --set ALIAS=gemma
check "gemma's plan inside the router equals its own file's" \
	test -n "$(jq -c '.kv // empty' "$TMP/out")" -a \
	"$(jq -c '[.kv, .kv_swa, .recurrent, .model, .compute, .output, .total_mib]' "$TMP/out")" = \
	"$(jq -c '.members[0].plan | [.kv, .kv_swa, .recurrent, .model, .compute, .output, .total_mib]' set.json)"
g=$(jq '.members[0].total_mib' set.json)
own=$(jq '.total_mib' "$TMP/out")
check "gemma's member total = its plan + cache 64 + checkpoints" \
	awk -v g="$g" -v o="$own" -v c="$(jq '.members[0].checkpoints_mib' set.json)" 'BEGIN { exit !(g - (o + 64 + c) < 0.02 && g - (o + 64 + c) > -0.02) }'
# the worst set of 2 on the host is the two largest plus the router
w=$(jq '[.members[].total_mib] | sort | reverse | .[0] + .[1] + 64' set.json)
check "the worst set of 2 on the host: the two largest + the router" \
	awk -v w="$w" -v x="$(jq '.devices[0].worst_mib' set.json)" 'BEGIN { exit !(w > 0 && x > 0 && w - x < 0.05 && x - w < 0.05) }'
check "the worst set names the two largest" test "$(jq -c '.devices[0].worst_set' set.json)" = '["gemma","qwen"]'

# an ADDRESSABLE_MIB under the two largest (each alone fits): refused, safe 1
a=$(jq '[.members[].total_mib] | sort | reverse | (.[0] + 64 + 1024 + .[1] / 2) | floor' set.json)
run "$ZEALOT" plan router.env --set ADDRESSABLE_MIB="$a"
check "under the two largest: refused (exit 1)" rc_is 1
check "names law M13 and the members" out_has "M13: MODELS_MAX=2: on host the worst co-resident set gemma"
check "safe MODELS_MAX 1" out_has "safe MODELS_MAX: 1"
check "gemma and qwen never resident together" out_has "  gemma + qwen"
run "$ZEALOT" plan --json router.env --set ADDRESSABLE_MIB="$a"
check "--json: refused, safe_models_max 1" json_is '[.verdict,.safe_models_max]' '["refused",1]'
run "$ZEALOT" check --json router.env --set ADDRESSABLE_MIB="$a"
check "check: the set's M13, exit 1" json_is '[.findings[].law, .verdict]' '["M13","refused"]'
run "$ZEALOT" plan --json router.env --set ADDRESSABLE_MIB="$a" --set MODELS_MAX=1
check "MODELS_MAX=1 at that memory fits" json_is '[.verdict,.safe_models_max]' '["fits",1]'

# unset CACHE_RAM: the engine's --cache-ram default bills 8,192 MiB per child
sed -i '/^CACHE_RAM/d' models/llama.env
run "$ZEALOT" plan --json router.env
check "no --cache-ram: the engine's 8,192 MiB per child" json_is '.members[1].cache_ram_mib' '8192'
printf 'CACHE_RAM=64\n' >>models/llama.env

# law C12: each side sets its own keys
printf 'LISTEN_PORT=9000\n' >>models/qwen.env
run "$ZEALOT" plan router.env
check "a member that sets a port: refused (exit 1)" rc_is 1
check "names C12, the member file and the key" out_has "C12: $TMP/models/qwen.env: a member sets LISTEN_PORT"
run "$ZEALOT" check --json router.env
check "check ROUTER.env: refused (exit 1)" rc_is 1
check "check: the set's C12 finding" json_is '[.findings[].law]' '["C12"]'
check "check: every member judged, by name" json_is '[.members[].name]' '["gemma","llama","qwen"]'
run "$ZEALOT" check router.env
check "check: each member's findings under its name" out_has "member qwen ($TMP/models/qwen.env)"
sed -i '/LISTEN_PORT/d' models/qwen.env
run "$ZEALOT" plan router.env --set CTX_SIZE=8192
check "a router that sets CTX_SIZE: refused" rc_is 1
check "names C12 and the router" out_has "the router sets CTX_SIZE, which is a member's"
mkdir empty
run "$ZEALOT" plan router.env --set MODELS=empty
check "an empty MODELS: usage error (exit 2)" rc_is 2
check "says it holds no member" err_has "holds no member endpoint file"
cp models/llama.env 'models/bad name.env'
run "$ZEALOT" plan router.env
check "a member name the preset cannot take: exit 2" rc_is 2
check "says which names a member may take" err_has "letters, digits"
rm 'models/bad name.env'

# the preset: a section per member, every argument pinned, nothing the router sets
run "$ZEALOT" emit preset router.env
check "emit preset: exit 0" rc_is 0
check "a section per member, by file" test "$(grep '^\[' "$TMP/out" | tr -d '\n')" = "[gemma][llama][qwen]"
check "fit = off in every section" test "$(grep -c '^fit = off$' "$TMP/out")" = 3
check "the context and slots pinned" test "$(grep -c '^ctx-size = 4096$' "$TMP/out")" = 3
check "the model by absolute path" out_has "model = $TMP/models/../gemma.gguf"
check "no port, host or alias in a section" test "$(grep -c ' = ' "$TMP/out")" -gt 30 -a "$(grep -cE '^(port|host|alias|log-verbosity) =' "$TMP/out")" = 0
check "a bare flag reads true (no-kv-unified)" out_has "no-kv-unified = true"

# the router's argv: no model, its preset, MODELS_MAX
run "$ZEALOT" argv --json router.env
check "router argv: the preset and --models-max 2, no --model" \
	json_is '[index("--models-preset") != null, .[index("--models-max")+1], index("--model")]' '[true,"2",null]'
check "router argv: the preset beside the file" json_is '.[index("--models-preset")+1]' "\"$TMP/router.models.ini\""

# emit llama-swap: a model per member, the maximal sets that fit as the matrix
a2=$(jq '[.members[].total_mib] | sort | reverse | (.[0] + 64 + 1024 + .[1] / 2) | floor' set.json)
sed -i "s/ADDRESSABLE_MIB=20000/ADDRESSABLE_MIB=$a2/" router.env
run "$ZEALOT" emit llama-swap router.env
check "emit llama-swap: exit 0" rc_is 0
cp "$TMP/out" swap.yaml
run python3 -c 'import json, sys, yaml; d = yaml.safe_load(open(sys.argv[1])); assert isinstance(d, dict); json.dump(d, sys.stdout)' swap.yaml
check "the file is YAML (a mapping)" rc_is 0
cp "$TMP/out" swap.json
check "a model per member, each cmd zealot serve of its file on \${PORT}" \
	json_is '[.models | to_entries[] | . as $e | [$e.key, ($e.value.cmd | test("serve .*/models/" + $e.key + "[.]env .*LISTEN_PORT=[$][{]PORT[}]$"))]]' \
	'[["gemma",true],["llama",true],["qwen",true]]'
check "the matrix's vars are 1-8 letters or digits, its costs whole and >= 1" \
	json_is '[(.routing.router.settings.matrix.vars | keys[] | test("^[a-zA-Z0-9]{1,8}$")), (.routing.router.settings.matrix.evict_costs[] | (. >= 1 and . == floor))] | unique' '[true]'
run "$ZEALOT" plan --json router.env
jq -c '[.maximal_sets[] | sort]' "$TMP/out" >plan-sets
run jq -c '.routing.router.settings.matrix as $m | [$m.sets[] | [splits(" & ") | $m.vars[.]] | sort]' swap.json
check "the matrix's sets are the plan's maximal sets" test -s plan-sets -a "$(cat "$TMP/out")" = "$(cat plan-sets)"
check "gemma and qwen (the two largest) share no set" json_is '[.[] | select(index("gemma") and index("qwen"))] | length' '0'
run "$ZEALOT" emit llama-swap models
check "emit llama-swap DIR (no router file): exit 0, one set of all three" out_has 'fit1: "m1 & m2 & m3"'
sed -i "s/ADDRESSABLE_MIB=$a2/ADDRESSABLE_MIB=100/" router.env
run "$ZEALOT" emit llama-swap router.env
check "a member that fits nowhere: emit refuses (exit 1)" rc_is 1
check "and says so" err_has "a member alone does not fit"

# fleet plan: a router in a fleet directory bills its worst set, priced as plan prices it
mkdir fl
cp -r models fl/
sed -i 's|\.\./|../../|' fl/models/*.env
printf 'MODELS=models\nMODELS_MAX=2\nLISTEN_PORT=18100\nADDRESSABLE_MIB=20000\nCPU_FEATURES=avx2\n' >fl/router.env
printf 'MODEL_FILE=../llama.gguf\nCTX_SIZE=4096\nLISTEN_PORT=18101\nADDRESSABLE_MIB=20000\nCPU_FEATURES=avx2\n' >fl/solo.env
run "$ZEALOT" plan --json fl/router.env
worst=$(jq '.devices[0].worst_mib' "$TMP/out")
run "$ZEALOT" fleet plan --json fl
check "fleet plan with a router: exit 0" rc_is 0
check "the router bills its worst set of 2 (plan's figure) on the host" \
	json_is "[.cards[0].endpoints[] | select(.name == \"router\") | .mib]" "[$worst]"
total=$(jq '.cards[0].total_mib' "$TMP/out")
solo=$(jq '.cards[0].endpoints[] | select(.name == "solo") | .mib' "$TMP/out")
check "the card's sum is the router's worst set + the other endpoint" \
	awk -v t="$total" -v w="$worst" -v s="$solo" 'BEGIN { d = t - w - s; exit !(w > 0 && s > 0 && d < 0.02 && d > -0.02) }'
sed -i "s/ADDRESSABLE_MIB=20000/ADDRESSABLE_MIB=$(awk -v w="$worst" 'BEGIN { printf "%d", w + 1024 + 1 }')/" fl/*.env
run "$ZEALOT" fleet plan fl
check "room for the router's worst set but not beside the other: refused (exit 1)" rc_is 1

# deploy of a router: the refusals that come before systemd is asked
# anything. The real systemd runs in tests/live/router-deploy.sh.
export ZEALOT_STATE_DIR=$TMP/state
run "$ZEALOT" deploy --help
check "deploy --help says what it does with a router" \
	eval 'out_has "A router endpoint (MODELS=DIR" && out_has "POST /models/load"'
mkdir -p dep/models
cp models/*.env dep/models/
sed -i 's|\.\./|../../|' dep/models/*.env
printf 'RUNTIME=/bin/true\nMODELS=models\nMODELS_MAX=2\nLISTEN_PORT=18090\nADDRESSABLE_MIB=20000\nCPU_FEATURES=avx2\n' >dep/rt.env
sed -i 's/^CACHE_RAM=64/CACHE_RAM=20000/' dep/models/qwen.env
run "$ZEALOT" deploy dep/rt.env --reason "over the host" --endpoint-dir "$TMP/etc" --unit-dir "$TMP/units"
check "deploy of a router whose worst set does not fit: refused (exit 1) at gate:fit, M13" \
	test "$rc" = 1 -a -n "$(grep -F 'refused at gate:fit, law M13' "$TMP/err")" -a -n "$(grep -F '+ qwen ' "$TMP/err")"
check "nothing installed, no members staged" test ! -e "$TMP/etc/rt.env" -a -z "$(ls -A "$TMP/etc/rt.models" 2>/dev/null)"
sed -i 's/^CACHE_RAM=20000/CACHE_RAM=64/' dep/models/qwen.env
printf 'MODEL_URL=https://user:hunter2@example.invalid/q.gguf\n' >>dep/models/qwen.env
run "$ZEALOT" deploy dep/rt.env --reason "a secret in a member" --endpoint-dir "$TMP/etc" --unit-dir "$TMP/units"
check "a member file holding a secret value: refused (exit 1), named, the secret not said" \
	test "$rc" = 1 -a -n "$(grep -F 'qwen.env holds a secret value' "$TMP/err")" -a -z "$(grep -F hunter2 "$TMP/err")"
run "$ZEALOT" history rt --json
check "both refusals recorded as attempts, no era" \
	test "$(jq -c '[.attempts[].outcome], (.eras | length)' "$TMP/out" | tr '\n' ' ')" = '["refused","refused"] 0 '

# serve of a router builds the engine's environment as for one endpoint
# (judge/trust.h): the router's children inherit it
sed -i '/^MODEL_URL=/d' dep/models/qwen.env
run "$ZEALOT" serve --dry-run dep/rt.env
check "serve --dry-run of the router: gates pass (control)" rc_is 0
for v in LLAMA_ARG_MODELS_MAX=9 LLAMA_ARG_CTX_SIZE=99 LD_PRELOAD=/nonexistent.so; do
	run env "$v" "$ZEALOT" serve --dry-run dep/rt.env
	check "serve of a router: $v refused, 78, naming it" \
		test "$rc" -eq 78 -a -n "$(grep -E "refused at the environment gate: (R04|C09) .*${v%%=*}" "$TMP/err")"
done
