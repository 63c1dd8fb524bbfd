# zealot emit prometheus|alerts|harness|ansible DIR: one file for the whole
# fleet, accepted by promtool and ansible; names and values from the fleet
# never become YAML keys, Jinja templates or shell words.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

mkdir fleet
must "$ZEALOT" synth --preset bonsai-9b --set type=142 -o fleet/b9.gguf || exit 1
endpoint() { # NAME HOST PORT CTX PARALLEL [more lines]
	{
		printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=%s\nPARALLEL=%s\nCACHE_TYPE_V=q8_0\nDEVICE=rtx3090\n' "$4" "$5"
		printf 'LISTEN_PORT=%s\nCOMPACTION_HUB=frank-zealot\n' "$3"
		[ -n "$2" ] && printf 'HOST=%s\nGPU=0\nBIND_ADDR=0.0.0.0\n' "$2"
		shift 5
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"fleet/$1.env"
}
endpoint frank-zealot dank@dankclaw 7771 602112 3
endpoint frank-archon ssh://root@127.0.0.1:2202 7772 401408 2 'ALIAS=archon'
endpoint frank-dragoon '' 7773 131072 1

yq() { python3 -c 'import sys, yaml, json; print(json.dumps(yaml.safe_load(open(sys.argv[1])), sort_keys=True))' "$1"; }

# prometheus: one scrape config, a job per endpoint
run "$ZEALOT" emit prometheus fleet
check "emit prometheus DIR: exit 0" rc_is 0
cp "$TMP/out" prom.yml
run promtool check config prom.yml
check "promtool check config accepts it" rc_is 0
yq prom.yml >prom.json
check "a job per endpoint, by name" test "$(jq -c '[.scrape_configs[].job_name]' prom.json)" = '["frank-archon","frank-dragoon","frank-zealot"]'
check "remote targets at HOST's host and LISTEN_PORT, the local one at its bind address" \
	test "$(jq -c '[.scrape_configs[].static_configs[0].targets[0]]' prom.json)" = '["127.0.0.1:7772","127.0.0.1:7773","dankclaw:7771"]'
check "the alias label is ALIAS" test "$(jq -c '[.scrape_configs[].static_configs[0].labels.alias]' prom.json)" = '["archon","frank-dragoon","frank-zealot"]'

# alerts: one rule file, the three rules per endpoint, told apart
run "$ZEALOT" emit alerts --slot-minutes 7 fleet
cp "$TMP/out" rules.yml
run promtool check rules rules.yml
check "promtool check rules accepts it: 9 rules" test "$rc" -eq 0 -a -n "$(grep -F 'SUCCESS: 9 rules found' "$TMP/out")"
yq rules.yml >rules.json
check "a group per endpoint, each rule labelled with it" \
	test "$(jq -c '[.groups[]|[.name,([.rules[].labels.endpoint]|unique)[0],(.rules|length)]]' rules.json)" = \
	'[["frank-archon","frank-archon",3],["frank-dragoon","frank-dragoon",3],["frank-zealot","frank-zealot",3]]'
check "--slot-minutes reaches every LlmNoFreeSlot" test "$(jq -c '[.groups[].rules[]|select(.alert=="LlmNoFreeSlot")|.for]|unique' rules.json)" = '["7m"]'

# harness: each endpoint's per-slot window (zealot plan's n_ctx_seq), its
# effort map, and the hub's id as compactionModel
run "$ZEALOT" emit harness fleet
check "emit harness DIR: exit 0, no warning (the hub's window is the widest)" test "$rc" -eq 0 -a ! -s "$TMP/err"
cp "$TMP/out" harness.yml
yq harness.yml >harness.json
for e in frank-archon frank-dragoon frank-zealot; do
	"$ZEALOT" plan --json "fleet/$e.env" | jq .n_ctx_seq >"window.$e"
done
check "contextWindow is each endpoint's per-slot window from zealot plan" \
	test "$(jq -c '[.[].contextWindow]' harness.json)" = "[$(cat window.frank-archon),$(cat window.frank-dragoon),$(cat window.frank-zealot)]"
check "the windows: 200704, 131072, 200704" test "$(jq -c '[.[].contextWindow]' harness.json)" = '[200704,131072,200704]'
check "every entry names the hub for compaction" test "$(jq -c '[.[].compactionModel]|unique' harness.json)" = '["frank-zealot"]'
check "every entry carries the template's effort map (law A08)" test "$(jq -c '[.[].compat.reasoningEffortMap|length]' harness.json)" = '[5,5,5]'
# the seeds' harness: the recipe (1.0 / 0.95 / 20) and min_p 0, which no
# general.sampling key carries and the engine would default to 0.05
check "extraBody: the payload's sampling recipe plus min_p 0 (the engine's default is 0.05)" \
	test "$(jq -c '[.[].extraBody.min_p]' harness.json)" = '[0,0,0]' -a "$(jq -c '.[2].extraBody | [.temperature, .top_p, .top_k]' harness.json)" = '[1,0.95,20]'
check "baseUrl at HOST's host for remote endpoints" \
	test "$(jq -c '[.[].baseUrl]' harness.json)" = '["http://127.0.0.1:7772/v1","http://127.0.0.1:7773/v1","http://dankclaw:7771/v1"]'
# the hub's id is its ALIAS
sed -i 's/^COMPACTION_HUB=.*/COMPACTION_HUB=frank-archon/' fleet/frank-dragoon.env
run "$ZEALOT" emit harness fleet
yq "$TMP/out" >h2.json 2>/dev/null || cp "$TMP/out" h2.json
check "a hub with an ALIAS is named by it" test "$(jq -c '.[1].compactionModel' h2.json)" = '"archon"'
sed -i 's/^COMPACTION_HUB=.*/COMPACTION_HUB=frank-dragoon/' fleet/frank-zealot.env
run "$ZEALOT" emit harness fleet
check "a hub whose window is smaller than an endpoint's it compacts: a warning naming both and the windows" \
	test "$rc" -eq 0 -a -n "$(grep -F 'frank-zealot compacts at frank-dragoon, whose per-slot window (131072) is smaller than its own (200704)' "$TMP/err")"
sed -i 's/^COMPACTION_HUB=.*/COMPACTION_HUB=frank-nobody/' fleet/frank-zealot.env
run "$ZEALOT" emit harness fleet
check "a hub that is no endpoint of the fleet: exit 2 naming the file, line and key" \
	test "$rc" -eq 2 -a -n "$(grep -E "fleet/frank-zealot\.env:[0-9]+: COMPACTION_HUB: 'frank-nobody' is no endpoint of fleet" "$TMP/err")"
sed -i 's/^COMPACTION_HUB=.*/COMPACTION_HUB=frank-zealot/' fleet/frank-zealot.env fleet/frank-dragoon.env

# the single-endpoint forms are unchanged by the fleet
run "$ZEALOT" emit harness fleet/frank-zealot.env
check "emit harness FILE: one entry, COMPACTION_HUB as compactionModel" \
	test "$rc" -eq 0 -a -n "$(grep -Fx '  compactionModel: frank-zealot' "$TMP/out")" -a "$(grep -c '^- id:' "$TMP/out")" -eq 1
run "$ZEALOT" emit unit fleet
check "emit unit DIR: exit 2 (a unit is one host's)" test "$rc" -eq 2 -a -n "$(grep -F 'unit takes one endpoint file' "$TMP/err")"
run "$ZEALOT" emit ansible fleet/frank-zealot.env
check "emit ansible FILE: exit 2 (ansible takes the fleet)" test "$rc" -eq 2 -a -n "$(grep -F 'ansible takes a fleet directory' "$TMP/err")"
check "no sanitizer report" no_sanitizer

# ansible: an inventory and a playbook that ansible accepts
printf 'Host dankclaw\n  HostName 127.0.0.1\n' >ssh_config
run "$ZEALOT" emit ansible fleet -o ans --ssh-config ssh_config
check "emit ansible DIR -o OUTDIR: cannot write into a missing directory (exit 3)" rc_is 3
mkdir ans
run "$ZEALOT" emit ansible fleet -o ans --ssh-config ssh_config
check "emit ansible DIR -o OUTDIR: both files written" test "$rc" -eq 0 -a -s ans/inventory.yml -a -s ans/playbook.yml
export ANSIBLE_LOCAL_TEMP=$TMP/ansible-tmp ANSIBLE_REMOTE_TEMP=$TMP/ansible-tmp ANSIBLE_NOCOLOR=1 HOME=$TMP/home
mkdir -p "$HOME"
run ansible-inventory -i ans/inventory.yml --list
check "ansible-inventory --list reads the inventory" rc_is 0
cp "$TMP/out" inv.json
check "hosts grouped under zealot_fleet, one per destination" \
	test "$(jq -c '.zealot_fleet.hosts' inv.json)" = '["127.0.0.1-2202","dankclaw","localhost"]'
hv() { jq -c ".\"_meta\".hostvars[\"$1\"]|[.ansible_host,.ansible_port,.ansible_user,.ansible_connection]|map(if type==\"object\" then .__ansible_unsafe else . end)" inv.json; }
check "ssh://root@127.0.0.1:2202: ansible_host, ansible_port, ansible_user" test "$(hv 127.0.0.1-2202)" = '["127.0.0.1",2202,"root",null]'
check "dank@dankclaw: the ssh config's alias, user dank, ssh's port" test "$(hv dankclaw)" = '["dankclaw",null,"dank",null]'
check "a local endpoint: localhost, connection local" test "$(hv localhost)" = '[null,null,null,"local"]'
check "--ssh-config: every host's ssh gets -F with the file's absolute path, quoted" \
	test "$(jq -c '[."_meta".hostvars[].ansible_ssh_common_args.__ansible_unsafe]|unique' inv.json)" = "[\"-F '$TMP/ssh_config'\"]"
run ansible-playbook -i ans/inventory.yml --syntax-check ans/playbook.yml
check "ansible-playbook --syntax-check accepts the playbook" rc_is 0
# one ansible_user per host, one host per inventory name
mkdir two-users
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\nHOST=%s\n' a@h >two-users/x.env
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\nHOST=%s\n' b@h >two-users/y.env
run "$ZEALOT" emit ansible two-users -o ans
check "two users on one host: exit 2 naming both endpoints and users" \
	test "$rc" -eq 2 -a -n "$(grep -F "x and y run on h as different users ('a', 'b')" "$TMP/err")"
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\nHOST=%s\n' ssh://a@h:22 >two-users/x.env
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\nHOST=%s\n' a@h-22 >two-users/y.env
run "$ZEALOT" emit ansible two-users -o ans
check "h:22 and h-22: exit 2, they would be one inventory host" \
	test "$rc" -eq 2 -a -n "$(grep -F "x (h:22) and y (h-22) would be one inventory host, h-22" "$TMP/err")"

# A hostile endpoint name and a hostile reason, through the real
# ansible-playbook on localhost (connection local): the stub zealot must
# get them as single arguments, and no marker file may appear.
mkdir local
# (a file name holds no '/': the markers go to whatever directory a shell
# would run in, all under $TMP: its own, $HOME or ansible's temporaries)
name="evil'\$(touch m1)\`touch m2\`;touch m3;{{ lookup('pipe','touch m4') }} x"
# and one with no stray quote, whose substitutions a careless shell would run
name2="evil\$(touch m7) {{ lookup('pipe','touch m8') }}"
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\n' >"local/$name.env"
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\n' >"local/$name2.env"
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\n' >local/zz-second.env
reason="why'\$(touch m5);{{ lookup('pipe','touch m6') }}\"\\"
version=$("$ZEALOT" --version)
cat >stub <<X
#!/bin/sh
if [ "\$1" = --version ]; then echo "\${STUB_VERSION:-$version}"; exit 0; fi
for a in "\$@"; do printf '%s\n' "\$a"; done >>"$TMP/argv.log"
exit \${STUB_RC:-0}
X
chmod +x stub
mkdir ansl
run "$ZEALOT" emit ansible local -o ansl --reason "$reason"
check "emit ansible with a hostile name and reason: exit 0" rc_is 0
play() { run ansible-playbook -i ansl/inventory.yml ansl/playbook.yml -e zealot="$TMP/stub" -e zealot_endpoint_dir="$TMP/deployed"; }
play
check "ansible-playbook runs the emitted playbook: exit 0" rc_is 0
markers() { find "$TMP" -name 'm[1-8]'; }
check "nothing the name or reason carried ran (no marker file)" test -z "$(markers)"
check "the endpoint file arrived under its own name, byte for byte" cmp -s "local/$name.env" "deployed/$name.env"
check "the other one too" cmp -s "local/$name2.env" "deployed/$name2.env"
for n in "$name2" "$name" zz-second; do printf '%s\n' deploy "$TMP/deployed/$n.env" --reason "$reason"; done >want.log
check "zealot deploy got the path and the reason as single arguments, endpoints in name order" cmp -s want.log argv.log
[ -e argv.log ] && sed 's/^/#   argv: /' argv.log | head -8

# the first deploy that fails ends the play
rm -rf argv.log deployed
STUB_RC=1 play
check "a deploy that fails fails the play (exit 2)" rc_is 2
check "and the next endpoint is not deployed" test "$(grep -c '^deploy$' argv.log 2>/dev/null)" = 1
# another zealot on the host: refused before anything is copied
rm -rf argv.log deployed
STUB_VERSION="zealot 9.9.9" play
check "a version skew fails the play naming both versions" \
	test "$rc" -ne 0 -a -n "$(grep -F "runs 'zealot 9.9.9', this playbook is from '$version'" "$TMP/out")"
check "and nothing was copied or deployed" test ! -e deployed -a ! -e argv.log

# hostile names in the Prometheus files: quoted, never a key or a line
mkdir odd
cp fleet/b9.gguf odd/
odd='we"ird} name: x'
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\nALIAS="a\\nb: c"\n' >"odd/$odd.env"
run "$ZEALOT" emit prometheus odd
cp "$TMP/out" oddprom.yml
run promtool check config oddprom.yml
check "a hostile name and ALIAS: promtool still accepts the scrape config" rc_is 0
yq oddprom.yml >oddprom.json
# (in double quotes systemd keeps \n as two bytes, law C10: the alias holds a backslash, not a line break)
check "one job, named exactly by the file, its alias exactly the value" \
	test "$(jq -c '[.scrape_configs|length,.[0].job_name,.[0].static_configs[0].labels.alias]' oddprom.json)" = "$(jq -cn --arg n "$odd" '[1,$n,"a\\nb: c"]')"
run "$ZEALOT" emit alerts odd
cp "$TMP/out" oddrules.yml
run promtool check rules oddrules.yml
check "a hostile name: promtool still accepts the rules (3)" test "$rc" -eq 0 -a -n "$(grep -F 'SUCCESS: 3 rules found' "$TMP/out")"
yq oddrules.yml >oddrules.json
check "the PromQL names the job exactly" \
	test "$(jq -r '.groups[0].rules[0].expr' oddrules.json)" = "up{job=\"we\\\"ird} name: x\"} == 0"
check "no sanitizer report" no_sanitizer

# issue 28 item 11: BIND_ADDR is an IP literal or a host name; a value that
# would close the target list and add one (which would get the endpoint's
# API key as its bearer token) is refused by check and emit, and wherever
# it is written anyway (a fleet) it stays one quoted target
mkdir bind
cp fleet/b9.gguf bind/
printf 'secret\n' >bind/key
printf "MODEL_FILE=b9.gguf\nCTX_SIZE=4096\nBIND_ADDR=127.0.0.1','evil.example\nAPI_KEY_FILE=key\n" >bind/e.env
run "$ZEALOT" check bind/e.env --json
check "check: BIND_ADDR that is no address is a C02 error naming the key" \
	json_is '[.findings[]|select(.key=="BIND_ADDR")|.law]' '["C02"]'
run "$ZEALOT" emit prometheus bind/e.env
check "emit prometheus refuses it: exit 2, naming BIND_ADDR" test "$rc" -eq 2 -a -n "$(grep -F BIND_ADDR "$TMP/err")"
run "$ZEALOT" emit harness bind/e.env
check "emit harness refuses it too (exit 2)" rc_is 2
run "$ZEALOT" emit prometheus bind
cp "$TMP/out" bindprom.yml
run promtool check config bindprom.yml
check "a fleet's scrape config with it: promtool accepts it" rc_is 0
yq bindprom.yml >bindprom.json
cp bindprom.json "$TMP/out"
check "... and the job has exactly one target" json_is '[.scrape_configs[0].static_configs[]|.targets[]]|length' 1
check "... the bearer token goes to that one target only" json_is '[.scrape_configs[0].static_configs[0].targets[0]]' "[\"127.0.0.1','evil.example:8080\"]"
for good in 10.0.0.7 ::1 fe80::1 0.0.0.0 gpu-box.example.org localhost; do
	run "$ZEALOT" check bind/e.env --set BIND_ADDR="$good" --json
	check "check: BIND_ADDR=$good is an address" json_is '[.findings[]|select(.key=="BIND_ADDR")]' '[]'
done
for bad in 'a b' 999.1.1.1 -host host- 'h_1' 'x:80' '[::1]' 'a..b'; do
	run "$ZEALOT" check bind/e.env --set BIND_ADDR="$bad" --json
	check "check: BIND_ADDR=$bad is refused (C02)" json_is '[.findings[]|select(.key=="BIND_ADDR")|.law]' '["C02"]'
done
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=4096\nBIND_ADDR=::1\nLISTEN_PORT=7790\n' >bind/v6.env
rm bind/e.env
run "$ZEALOT" emit harness bind
cp "$TMP/out" bindh.yml
check "harness: baseUrl is one quoted scalar (IPv6 bracketed)" \
	test "$(yq bindh.yml | jq -r '.[0].baseUrl')" = 'http://[::1]:7790/v1' -a -n "$(grep -F 'baseUrl: "http://[::1]:7790/v1"' bindh.yml)"
check "no sanitizer report (BIND_ADDR)" no_sanitizer

# issue 33 item 4: where Prometheus reaches the engine. The seeds scrape
# host.containers.internal:7771 while the engine binds a wildcard:
# SCRAPE_HOST is the target's host, alone and in a fleet, validated as
# BIND_ADDR is and quoted as one target
mkdir scrape
cp fleet/b9.gguf fleet/*.env scrape/
echo 'SCRAPE_HOST=host.containers.internal' >>scrape/frank-zealot.env
echo 'SCRAPE_HOST=10.0.0.9' >>scrape/frank-dragoon.env
run "$ZEALOT" emit prometheus scrape/frank-zealot.env
cp "$TMP/out" scrape1.yml
check "SCRAPE_HOST alone: the target is host.containers.internal:7771" \
	test "$(yq scrape1.yml | jq -c '[.[0].static_configs[0].targets[0]]')" = '["host.containers.internal:7771"]'
run "$ZEALOT" emit prometheus scrape
cp "$TMP/out" scrape.yml
run promtool check config scrape.yml
check "SCRAPE_HOST in a fleet: promtool accepts it" rc_is 0
check "... SCRAPE_HOST over HOST and over the bind address; the rest unchanged" \
	test "$(yq scrape.yml | jq -c '[.scrape_configs[].static_configs[0].targets[0]]')" = '["127.0.0.1:7772","10.0.0.9:7773","host.containers.internal:7771"]'
for bad in 'a b' "x','evil.example" 999.1.1.1 'h:80'; do
	run "$ZEALOT" check scrape/frank-zealot.env --set SCRAPE_HOST="$bad" --json
	check "check: SCRAPE_HOST=$bad is refused (C02)" json_is '[.findings[]|select(.key=="SCRAPE_HOST")|.law]' '["C02"]'
done
printf "SCRAPE_HOST=x','evil.example\n" >>scrape/frank-dragoon.env
run "$ZEALOT" emit prometheus scrape/frank-dragoon.env
check "emit prometheus refuses a SCRAPE_HOST that is no address: exit 2, naming it" \
	test "$rc" -eq 2 -a -n "$(grep -F SCRAPE_HOST "$TMP/err")"

# issue 33 item 3: the per-slot window reaches the clients. check --harness
# holds a harness file's entry of the endpoint's ALIAS to the window it
# serves: zealot's own emitted file, and the seeds' models.yml shape
run "$ZEALOT" check fleet/frank-zealot.env --harness harness.yml --json
check "check --harness of the emitted file: no M03 finding" json_is '[.findings[]|select(.law=="M03")]' '[]'
run "$ZEALOT" check fleet/frank-zealot.env --set PARALLEL=4 --harness harness.yml --json
check "an era of 4 slots (150,528 each) under a harness of 200,704: an M03 error naming both, exit 1" \
	eval 'rc_is 1 && json_is "[.findings[]|select(.law==\"M03\")|.severity]" "[\"error\"]" && out_has "200704-token window" && out_has "serves 150528 per slot"'
cat >models.yml <<'EOF2'
providers:
  llamacpp (dankclaw-3090):
    models:
      - id: frank-archon
        contextWindow: 401408
      - id: frank-zealot
        name: frank-zealot
        contextWindow: 200704
        maxTokens: 16384
EOF2
run "$ZEALOT" check fleet/frank-zealot.env --harness models.yml --json
check "the seeds' models.yml shape: frank-zealot's 200,704 holds (another id's window is not its)" \
	json_is '[.findings[]|select(.law=="M03")]' '[]'
run "$ZEALOT" check fleet/frank-zealot.env --set CTX_SIZE=401408 --set PARALLEL=4 --harness models.yml --json
check "CTX_SIZE=401408 over 4 slots (100,352): models.yml's 200,704 is an M03 error at its line" \
	eval 'rc_is 1 && json_is "[.findings[]|select(.law==\"M03\")|.severity]" "[\"error\"]" && out_has "models.yml:6"'
run "$ZEALOT" check fleet/frank-dragoon.env --harness models.yml --json
check "no entry for the endpoint's id: a warning, not an error" \
	json_is '[.findings[]|select(.law=="M03")|.severity]' '["warning"]'
run "$ZEALOT" check fleet/frank-zealot.env --harness missing.yml
check "--harness of a missing file: exit 3, named" test "$rc" -eq 3 -a -n "$(grep -F missing.yml "$TMP/err")"
