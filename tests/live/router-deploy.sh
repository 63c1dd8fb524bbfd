# zealot deploy, rollback, history and diff of a router endpoint against a
# real systemd (tests/systemd.sh) and the real engine on three synthetic
# members: the deploy installs the members beside the router's file
# (/etc/zealot/NAME.models/HASH), loads each member once through the
# router's API and verifies its child (health, command line, boot ledger
# against its member's plan), then unloads it; a member change that no
# longer fits (M13) is refused and touches nothing; a member change that
# fits deploys, history and diff name it, a rollback puts the member file
# and the running router back, and audit holds each running child to its
# member's preset.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
RS_NAME=zl-rdeploy-$$
. "$(dirname "$0")/../deployhost.sh"

router_host_env rt.env || exit 1
deploy() { # REASON [more options]: zealot deploy rt.env inside the container
	local why=$1
	shift
	run rs_exec "$ZEALOT" deploy rt.env --reason "$why" --zealot "$UNIT_ZEALOT" "$@"
}
main_pid() { X systemctl show -p MainPID --value rt.service; }
health() { curl -s -o /dev/null -w '%{http_code}' -m 5 "$url/health"; }
resting() { [ "$(curl -s -m 5 "$url/models" | jq -c '[.data[].status.value] | unique')" = '["unloaded"]' ]; }
sql() { sqlite3 "$ZEALOT_STATE_DIR/zealot.db" "$1"; }
installed() { # MEMBER: the installed member file the running router reads
	local d
	d=$(sed -n 's/^MODELS=//p' "$R/etc/zealot/rt.env")
	cat "$R$d/$1.env"
}
step_of() { jq -r --arg s "$1" '[.steps[] | select(.step == $s) | .status] | join(",")' "$TMP/out"; }

# 1. A clean deploy: every child loaded once and verified, then unloaded.
deploy "three members" --json
sed 's/^/#   /' "$TMP/err" | head -40
check "deploy of a router: exit 0, deployed" test "$rc/$(jq -r .outcome "$TMP/out")" = 0/deployed
check "each of the three members' child verified (a child step each)" test "$(step_of child)" = ok,ok,ok
check "every child's boot ledger matches its member's plan" test "$(step_of ledger)" = ok
check "the child steps name each member, its pid, port and preset arguments" \
	test -n "$(jq -r '.steps[] | select(.step == "child") | .detail' "$TMP/out" | grep -E '^qwen: loaded .* pid [0-9]+ on port [0-9]+ answers /health, its command line holds its [0-9]+ preset')"
check "the router serves under systemd" test "$(health)" = 200
check "and is back at rest: no member loaded" resting
check "the installed file's MODELS names the installed members" \
	test -n "$(grep -E "^MODELS=/etc/zealot/rt.models/[0-9a-f]{16}$" "$R/etc/zealot/rt.env")"
check "the installed member file is its source with absolute paths" \
	test -n "$(installed qwen | grep -Fx "MODEL_FILE=$TMP/qwen.gguf")"
check "the era records the three members' texts" \
	test "$(sql "SELECT members_json FROM era_members WHERE era_id = 1" | jq -r '[.[].name] | join(",")')" = gemma,llama,qwen
pid1=$(main_pid)

# 2. A member change that no longer fits: refused at the fit gate (M13), nothing touched.
cp models/qwen.env qwen.env.good
sed -i 's/^CACHE_RAM=64/CACHE_RAM=20000/' models/qwen.env
deploy "qwen's prompt cache over the host"
check "a member that no longer fits: exit 1, refused" test "$rc" = 1 -a -n "$(grep -F 'refused' "$TMP/err")"
check "refused at gate:fit naming M13 and the member" \
	test -n "$(grep -E 'gate:fit, law M13' "$TMP/err")" -a -n "$(grep -F '+ qwen ' "$TMP/err")"
check "the refused deploy recorded no era" test "$(sql "SELECT count(*) FROM eras")" = 1
check "and left no staged members behind" test "$(ls "$R/etc/zealot/rt.models" | wc -l)" = 1
check "the router still serves, the same MainPID" test "$(health)/$(main_pid)" = "200/$pid1"
check "the installed qwen is still era 1's" test -n "$(installed qwen | grep -Fx CACHE_RAM=64)"

# 2b. A deploy whose children boot another shape than their plans: a RUNTIME
# wrapper (as tests/live/deploy.sh's) hands the engine a config file with
# mmap = false, which the router's children inherit, so their weights land
# in a CPU buffer the plans do not bill. Each child loads and its command
# line is its preset's; the journal's ledgers say otherwise: the previous
# era comes back by itself, its members included.
mkdir -p diverge/cfg/llama.cpp
cp -r "$(dirname "$SERVER")" diverge/bin
printf 'mmap = false\n' >diverge/cfg/llama.cpp/config.ini
printf '#!/bin/bash\nexport XDG_CONFIG_HOME=%s LD_LIBRARY_PATH=%s\nexec -a "$0" %s "$@"\n' "$TMP/diverge/cfg" \
	"$TMP/diverge/bin" "$TMP/diverge/bin/llama-server" >diverge/llama-server
chmod 755 diverge/llama-server && chmod -R a+rX diverge
cp qwen.env.good models/qwen.env
cp rt.env rt.env.good
sed -i "s|^RUNTIME=.*|RUNTIME=$TMP/diverge/llama-server|" rt.env
sed -i 's/^CTX_SIZE=4096/CTX_SIZE=2048/' models/llama.env
deploy "children the plans do not know" --json
check "children that diverge: exit 1, rolled back" test "$rc/$(jq -r .outcome "$TMP/out")" = 1/rolled-back
check "each child loaded and held its preset; the ledger said no (A01)" \
	test "$(step_of child)/$(jq -r '.steps[] | select(.step == "ledger") | .status + " " + .detail' "$TMP/out" | grep -c 'failed a child.s boot ledger differs')" = ok,ok,ok/1
check "the previous era is back: era 1's router file and llama member" \
	test "$(sql "SELECT env_sha256 FROM eras WHERE id = 1")" = "$(sha256sum "$R/etc/zealot/rt.env" | cut -d' ' -f1)" -a -n "$(installed llama | grep -Fx CTX_SIZE=4096)"
check "and serves, restarted and verified" test "$(health)" = 200 -a "$(step_of restore:cmdline)" = ok
check "no era was recorded, and its staged members are gone" \
	test "$(sql "SELECT count(*) FROM eras")/$(ls "$R/etc/zealot/rt.models" | wc -l)" = 1/1
cp rt.env.good rt.env
sed -i 's/^CTX_SIZE=2048/CTX_SIZE=4096/' models/llama.env

# 3. A member change that fits: deployed, and history and diff name it.
cp qwen.env.good models/qwen.env
sed -i 's/^CTX_SIZE=4096/CTX_SIZE=2048/' models/qwen.env
deploy "qwen at 2048" --json
check "a member change that fits: deployed as era 2" test "$rc/$(jq -r .outcome "$TMP/out")/$(jq -r .era "$TMP/out")" = 0/deployed/2
check "its child verified at the new shape" test "$(step_of child)/$(step_of ledger)" = ok,ok,ok/ok
check "the installed qwen says CTX_SIZE=2048" test -n "$(installed qwen | grep -Fx CTX_SIZE=2048)"
run "$ZEALOT" history rt
check "history lists each era's members, each with its shape and payload" \
	eval 'out_has "members   gemma, llama, qwen" && out_has "qwen: 2 x 1,024, f16 K + f16 V"'
check "history names the member change of era 2" out_has "qwen changed: CTX_SIZE 4096 -> 2048"
run "$ZEALOT" history rt --json
check "history --json: era 2's member change" \
	test "$(jq -c '.eras[1].members.changes' "$TMP/out")" = '[{"name":"qwen","change":"changed","keys":[{"key":"CTX_SIZE","from":"4096","to":"2048","from_set":true,"to_set":true}]}]'
run "$ZEALOT" diff rt 1 2
check "diff of the two eras names the member and its key" \
	eval 'out_has "members:" && out_has "  qwen changed" && out_has "CTX_SIZE         4096 -> 2048"'

# 4. Rollback to era 1: the member file and the running router come back.
run rs_exec "$ZEALOT" rollback rt 1 --zealot "$UNIT_ZEALOT" --json
sed 's/^/#   /' "$TMP/err" | head -20
check "rollback to era 1: exit 0, deployed as era 3" test "$rc/$(jq -r .outcome "$TMP/out")/$(jq -r .era "$TMP/out")" = 0/deployed/3
check "the rollback verified every child again" test "$(step_of child)/$(step_of ledger)" = ok,ok,ok/ok
check "the installed qwen is era 1's again (CTX_SIZE=4096)" test -n "$(installed qwen | grep -Fx CTX_SIZE=4096)"
check "the installed router file is era 1's" \
	test "$(sql "SELECT env_sha256 FROM eras WHERE id = 1")" = "$(sha256sum "$R/etc/zealot/rt.env" | cut -d' ' -f1)"
code=$(curl -s -m 180 -o ask.json -w '%{http_code}' -H 'Content-Type: application/json' \
	-d '{"model":"qwen","prompt":"The sky is","n_predict":4,"ignore_eos":true}' "$url/completion")
check "qwen answers through the rolled-back router" test "$code" = 200
check "its child runs era 1's context again" \
	test "$(curl -s -m 5 "$url/models" | jq -r '.data[] | select(.id == "qwen") | .status.args | index("--ctx-size") as $i | .[$i + 1]')" = 4096
run X "$ZEALOT" audit /etc/zealot/rt.env --unit rt.service --json
check "audit of the router under its unit: exit 0, no divergence" test "$rc/$(jq .divergences "$TMP/out")" = 0/0
check "audit: the router's own command line, flag by flag" \
	test "$(jq -r '.rows[] | select(.what == "--models-preset") | .live' "$TMP/out")" = /var/lib/zealot/rt.models.ini
check "audit: a row per member; the loaded qwen's child holds its preset, the others rest" \
	test "$(jq -r '[.rows[] | select(.what | startswith("member ")) | "\(.what): \(.live | split(" ")[0:2] | join(" "))"] | join(", ")' "$TMP/out")" = "member gemma: not loaded, member llama: not loaded, member qwen: pid $(X pgrep -f -- '--alias qwen' | head -1)"
run "$ZEALOT" history rt
check "history: era 3 is the rollback, naming the member it changes back" \
	eval 'out_has "rollback to era 1" && out_has "qwen changed: CTX_SIZE 2048 -> 4096"'
run "$ZEALOT" diff rt.env
check "diff of the current era against the file on disk names the member the file changes" \
	eval 'rc_is 0 && out_has "  qwen changed" && out_has "CTX_SIZE         4096 -> 2048"'
X systemctl stop rt.service
