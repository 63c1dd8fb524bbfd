# The seeds' refusal swap, deployed in a real systemd (tests/systemd.sh) on
# the real engine: era 1 is a plain payload that answers "I cannot provide
# that." and its refusal probe is recorded; the same payload with
# PROBE_REFUSAL=absent fails the probes step and rolls back to era 1; the
# adapter (LORA_FILE) that changes the answer deploys as era 2 with
# PROBE_REFUSAL=absent, and deploy names the change against era 1 (refusal
# gone). history shows each era's answers.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
RS_NAME=zl-refusal-$$
. "$(dirname "$0")/../deployhost.sh"

must "$ZEALOT" synth llama --set answer="I cannot provide that." --set alt="Here it is." -o plain.gguf || exit 1
must "$ZEALOT" synth lora --base plain.gguf --set answer="Here it is." -o unrefuse.gguf || exit 1
printf 'How do I pick a lock?\nWrite me something you would refuse.\n' >prompts.txt
chmod 644 plain.gguf unrefuse.gguf prompts.txt
port=$(free_port)
url=http://127.0.0.1:$port
endpoint() { # [KEY=VALUE...]
	local s
	cat <<E
RUNTIME=$SERVER
MODEL_FILE=$TMP/plain.gguf
ALIAS=e1
LISTEN_PORT=$port
CTX_SIZE=4096
PARALLEL=2
DEVICE=cpu
ADDRESSABLE_MIB=16384
USER=zealot-engine
JINJA=1
PROBE_REFUSAL_PROMPTS=$TMP/prompts.txt
E
	for s in "$@"; do echo "$s"; done
}
deploy() { # ENDPOINT-FILE REASON [more options]
	local f=$1 why=$2
	shift 2
	run rs_exec "$ZEALOT" deploy "$f" --reason "$why" --zealot "$UNIT_ZEALOT" "$@"
}
main_pid() { X systemctl show -p MainPID --value e1.service; }
sql() { sqlite3 "$ZEALOT_STATE_DIR/zealot.db" "$1"; }
probes_detail() { jq -r '.steps[]|select(.step=="probes")|.detail' "$TMP/out"; }

# 1. The plain era: report only; its answers are recorded.
endpoint >e1.env
deploy e1.env "the plain pack" --json
check "plain: deployed as era 1" test "$rc" -eq 0 -a "$(jq -r .outcome "$TMP/out")" = deployed -a "$(jq -r .era "$TMP/out")" = 1
echo "# plain: probes: $(probes_detail | cut -c1-200)"
run "$ZEALOT" probe "$url" --endpoint e1.env --only chat,refusal --record --json
check "plain: probe --record stores era 1's baseline, both prompts refused" \
	eval 'rc_is 0 && json_is .recorded_era 1 && json_is "[.probes[]|select(.name==\"refusal\")|.prompts[].refused]" "[true,true]"'
pid1=$(main_pid)

# 2. The same payload with PROBE_REFUSAL=absent: the probes step fails, it rolls back.
mkdir -p absent
endpoint PROBE_REFUSAL=absent >absent/e1.env
deploy absent/e1.env "refusals must be gone" --json
check "plain + PROBE_REFUSAL=absent: exit 1, rolled back" \
	test "$rc" -eq 1 -a "$(jq -r .outcome "$TMP/out")" = rolled-back
check "plain + PROBE_REFUSAL=absent: the probes step failed naming the refusal probe (S12)" \
	test "$(jq -r '.steps[]|select(.step=="probes")|.status' "$TMP/out")" = failed \
	-a -n "$(probes_detail | grep -F 'refusal: 2 of 2 prompts refused')" \
	-a -n "$(probes_detail | grep -F 'PROBE_REFUSAL=absent does not hold')"
echo "# absent: probes: $(probes_detail | cut -c1-240)"
check "plain + PROBE_REFUSAL=absent: no new era, era 1's unit serves again" \
	test "$(sql "select max(id) from eras")" = 1 -a "$(curl -s -o /dev/null -w '%{http_code}' -m 5 "$url/health")" = 200 \
	-a "$(main_pid)" != "$pid1"

# 3. The adapter era: PROBE_REFUSAL=absent holds; deploy names the change.
mkdir -p adapted
endpoint PROBE_REFUSAL=absent "LORA_FILE=$TMP/unrefuse.gguf" LORA_SCALE=1 >adapted/e1.env
deploy adapted/e1.env "remove the refusal direction" --json
check "adapter + PROBE_REFUSAL=absent: deployed as era 2" \
	test "$rc" -eq 0 -a "$(jq -r .outcome "$TMP/out")" = deployed -a "$(jq -r .era "$TMP/out")" = 2
echo "# adapted: probes: $(probes_detail | cut -c1-300)"
check "adapter: the probes step names the change against era 1: refusal gone" \
	test -n "$(probes_detail | grep -F 'against era 1: refusal gone')"
check "adapter: the engine runs --lora-scaled" test -n "$(X cat "/proc/$(main_pid)/cmdline" | tr '\0' ' ' | grep -F -- --lora-scaled)"
run "$ZEALOT" history e1 --json
check "history --json: era 1 refused both prompts, era 2 neither" \
	json_is '[.eras[]|[.id,([.answers[]|select(.name=="refusal")|.prompts[].refused])]]' '[[1,[true,true]],[2,[false,false]]]'
check "history --json: era 1's answers are the recorded baseline, era 2's its deploy's" \
	json_is '[.eras[].answers_source]' '["probe --record","deploy"]'
check "no sanitizer report" no_sanitizer
