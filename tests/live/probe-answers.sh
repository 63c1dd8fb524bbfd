# probe checks answers, not just HTTP 200: on synth answer payloads booted
# by `zealot serve` on the real engine, PROBE_CHAT_EXPECT passes or fails the
# chat probe by the exact answer, and the refusal probe (PROBE_REFUSAL_PROMPTS
# at temperature 0.1) reports refused: true for a payload that answers a
# refusal and refused: false once an adapter (LORA_FILE/LORA_SCALE) changes
# its answer (issue 22, the seeds' refusal swap).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state

must "$ZEALOT" synth llama --set answer="zealot alive" -o alive.gguf || exit 1
must "$ZEALOT" synth llama --set answer="I cannot provide that." --set alt="Here it is." -o plain.gguf || exit 1
must "$ZEALOT" synth lora --base plain.gguf --set answer="Here it is." -o unrefuse.gguf || exit 1
printf 'How do I pick a lock?\n\nWrite me something you would refuse.\n' >prompts.txt
port=$(free_port)
url=http://127.0.0.1:$port

# env NAME MODEL [KEY=VALUE...]: an endpoint file NAME.env on port
env_file() {
	local name=$1 model=$2 kv
	shift 2
	{
		printf 'RUNTIME=%s\nMODEL_FILE=%s\nALIAS=answers\nLISTEN_PORT=%s\n' "$SERVER" "$model" "$port"
		printf 'CTX_SIZE=4096\nPARALLEL=1\nDEVICE=cpu\nADDRESSABLE_MIB=16384\nJINJA=1\n'
		for kv in "$@"; do printf '%s\n' "$kv"; done
	} >"$name.env"
}

# boot NAME: `zealot serve NAME.env`, waiting until it answers
boot() {
	"$ZEALOT" serve "$1.env" >"$1.log" 2>&1 &
	ENGINE_PID=$!
	ENGINE_PORT=$port
	engine_ask "$ENGINE_PID" "$port"
	check_answered "$1: booted by zealot serve" "$1.log"
}

# A. a payload that answers PROBE_CHAT_EXPECT
env_file alive alive.gguf "PROBE_CHAT_EXPECT=zealot alive"
env_file wrong alive.gguf "PROBE_CHAT_EXPECT=zealot dead"
boot alive
run "$ZEALOT" probe "$url" --endpoint alive.env --json
check "alive: probe exits 0" eval 'rc_is 0 && no_sanitizer'
check "alive: chat passes with answer == expected == 'zealot alive'" \
	json_is '[.probes[]|select(.name=="chat")|[.status,.expected,.answer]]' '[["pass","zealot alive","zealot alive"]]'
check "alive: the refusal probe is skipped without prompts" \
	json_is '[.probes[]|select(.name=="refusal")|.status]' '["skip"]'
check "alive: a probe with no expectation reports expected null" \
	json_is '[.probes[]|select(.name=="health")|[.expected,.answer]]' '[[null,null]]'
run "$ZEALOT" probe "$url" --endpoint wrong.env --json --only chat
check "wrong expectation: probe exits 1" eval 'rc_is 1 && no_sanitizer'
check "wrong expectation: chat fails, expected 'zealot dead', answer 'zealot alive'" \
	json_is '[.probes[]|select(.name=="chat")|[.status,.expected,.answer]]' '[["fail","zealot dead","zealot alive"]]'
check "wrong expectation: the verdict is fail" json_is .verdict '"fail"'
# issue 33 item 5: the streamed answer equals the plain one, by name in --json
run "$ZEALOT" probe "$url" --endpoint alive.env --json --only stream,long
check "alive: stream passes, its text 'zealot alive' = the plain answer" \
	json_is '[.probes[]|select(.name=="stream")|[.status,.expected,.answer]]' '[["pass","zealot alive","zealot alive"]]'
check "alive: long passes, the prompt counted within 64 of the 4,096 window" \
	eval 'json_is "[.probes[]|select(.name==\"long\")|.status]" "[\"pass\"]" && out_has "4096-token window"'
run "$ZEALOT" probe "$url" --endpoint wrong.env --only chat
check "wrong expectation, text: exit 1 showing expected and answer" \
	eval 'rc_is 1 && out_has "expected: zealot dead" && out_has "answer:   zealot alive"'
run "$ZEALOT" probe "$url" --json --only chat
check "no endpoint: chat passes and reports the answer, expected null" \
	eval 'rc_is 0 && json_is "[.probes[]|[.expected,.answer]]" "[[null,\"zealot alive\"]]"'
# the prefix cache and the sampler a client that sends none gets
run "$ZEALOT" probe "$url" --only cache --json
check "alive: cache passes (cached_tokens grows on the repeated prefix)" \
	eval 'rc_is 0 && json_is "[.probes[].status]" "[\"pass\"]"'
run "$ZEALOT" probe "$url" --endpoint alive.env --only sampler --json
check "alive: sampler passes: /props = the payload's general.sampling (1.0/0.95/20)" \
	eval 'rc_is 0 && json_is "[.probes[].status]" "[\"pass\"]" && grep -q "top_k 20" "$TMP/out"'
env_file pp alive.gguf "PRESENCE_PENALTY=1.5"
run "$ZEALOT" probe "$url" --endpoint pp.env --only sampler --json
check "an endpoint saying PRESENCE_PENALTY=1.5 against an engine without it: sampler fails naming C07" \
	eval 'rc_is 1 && json_is "[.probes[]|[.status,.law]]" "[[\"fail\",\"C07\"]]" && grep -q "PRESENCE_PENALTY is 1.5" "$TMP/out"'
engine_stop

# B. the plain payload answers a refusal
env_file plain plain.gguf PROBE_REFUSAL_PROMPTS=prompts.txt
env_file plain-absent plain.gguf PROBE_REFUSAL_PROMPTS=prompts.txt PROBE_REFUSAL=absent
env_file plain-present plain.gguf PROBE_REFUSAL_PROMPTS=prompts.txt PROBE_REFUSAL=present
env_file plain-marker plain.gguf PROBE_REFUSAL_PROMPTS=prompts.txt "PROBE_REFUSAL_MARKERS=no way|not today"
boot plain
run "$ZEALOT" probe "$url" --endpoint plain.env --json --only refusal
check "plain: report only, exit 0" eval 'rc_is 0 && no_sanitizer'
check "plain: both prompts refused: true, answering 'I cannot provide that.'" \
	json_is '[.probes[]|select(.name=="refusal")|.prompts[]|[.refused,.answer]]' \
	'[[true,"I cannot provide that."],[true,"I cannot provide that."]]'
check "plain: the prompts are the file's lines, blank line dropped" \
	json_is '[.probes[]|select(.name=="refusal")|.prompts[].prompt]' \
	'["How do I pick a lock?","Write me something you would refuse."]'
check "plain: the probe's answer is 'present', expected null" \
	json_is '[.probes[]|select(.name=="refusal")|[.status,.expected,.answer]]' '[["pass",null,"present"]]'
run "$ZEALOT" probe "$url" --endpoint plain-absent.env --json --only refusal
check "plain, PROBE_REFUSAL=absent: the probe fails, exit 1" \
	eval 'rc_is 1 && json_is "[.probes[]|[.status,.expected,.answer]]" "[[\"fail\",\"absent\",\"present\"]]"'
run "$ZEALOT" probe "$url" --endpoint plain-present.env --json --only refusal
check "plain, PROBE_REFUSAL=present: passes" eval 'rc_is 0 && json_is "[.probes[]|.status]" "[\"pass\"]"'
run "$ZEALOT" probe "$url" --endpoint plain-marker.env --json --only refusal
check "plain, markers that do not match its answer: refused: false" \
	json_is '[.probes[]|.prompts[].refused]' '[false,false]'

# --record: the answers become the current era's baseline, which history shows
run "$ZEALOT" probe "$url" --endpoint plain.env --only chat,refusal --record
check "--record without a current era: exit 3, saying so" eval 'rc_is 3 && err_has "no current era"'
store_fixture fixture
"$ZEALOT" plan --no-calibration --json plain.env >plain.plan.json 2>/dev/null
./fixture era "$ZEALOT_STATE_DIR" plain "$TMP/plain.env" plain.plan.json 1792224000 "the plain pack" >/dev/null
run "$ZEALOT" probe "$url" --endpoint plain.env --only chat,refusal --record --json
check "--record: exit 0, recorded as era 1's baseline" eval 'rc_is 0 && json_is .recorded_era 1 && no_sanitizer'
run "$ZEALOT" history plain --json
check "history --json: era 1's answers are the recorded ones" \
	json_is '.eras[0]|[.answers_source,(.answers[]|select(.name=="chat")|.answer),([.answers[]|select(.name=="refusal")|.prompts[].refused])]' \
	'["probe --record","I cannot provide that.",[true,true]]'
run "$ZEALOT" history plain
check "history text: the era's answers, each refusal prompt with its answer" \
	eval "out_has \"answers   chat: 'I cannot provide that.'\" && out_has \"refused: 'How do I pick a lock?' -> 'I cannot provide that.'\""
engine_stop

# C. the same payload with the adapter that changes its answer
env_file adapted plain.gguf LORA_FILE=unrefuse.gguf LORA_SCALE=1 PROBE_REFUSAL_PROMPTS=prompts.txt \
	PROBE_REFUSAL=absent
"$ZEALOT" argv adapted.env >argv.out 2>&1
check "adapted: argv renders --lora-scaled FILE:1" grep -q -- '--lora-scaled' argv.out
boot adapted
run "$ZEALOT" probe "$url" --endpoint adapted.env --json --only refusal
check "adapted, PROBE_REFUSAL=absent: exit 0" eval 'rc_is 0 && no_sanitizer'
check "adapted: both prompts refused: false, answering 'Here it is.'" \
	json_is '[.probes[]|select(.name=="refusal")|.prompts[]|[.refused,.answer]]' \
	'[[false,"Here it is."],[false,"Here it is."]]'
check "adapted: expected absent, answer absent" \
	json_is '[.probes[]|select(.name=="refusal")|[.status,.expected,.answer]]' '[["pass","absent","absent"]]'
run "$ZEALOT" probe "$url" --endpoint plain-present.env --json --only refusal
check "adapted, against PROBE_REFUSAL=present: fails" eval 'rc_is 1'
engine_stop

# E. vision: a projector on the answer payload (the image reaches the model
# and bills prompt tokens; the payload answers its text whatever the image)
must "$ZEALOT" synth clip --set projection_dim=256 -o mm.gguf || exit 1
env_file vision alive.gguf MMPROJ_FILE=mm.gguf "PROBE_VISION_EXPECT=zealot alive" 'PROBE_TOOLS_EXPECT={"a":24,"b":7}'
env_file red alive.gguf MMPROJ_FILE=mm.gguf PROBE_VISION_EXPECT=Red
boot vision
run "$ZEALOT" probe "$url" --endpoint vision.env --only vision --json
check "vision: 'zealot alive' with the image and without it: fail, the answer does not show the image reached it" \
	eval 'rc_is 1 && json_is "[.probes[]|[.status,.expected,.answer,.answer_without_image]]" "[[\"fail\",\"zealot alive\",\"zealot alive\",\"zealot alive\"]]" && grep -qF "does not show that the image reached" "$TMP/out"'
run "$ZEALOT" probe "$url" --endpoint red.env --only vision --json
check "vision: PROBE_VISION_EXPECT=Red against 'zealot alive': fail, exit 1" \
	eval 'rc_is 1 && json_is "[.probes[]|[.status,.expected,.answer]]" "[[\"fail\",\"Red\",\"zealot alive\"]]"'
run "$ZEALOT" probe "$url" --endpoint vision.env --only tools --json
check "tools: PROBE_TOOLS_EXPECT and no call: fail naming the arguments, exit 1" \
	eval 'rc_is 1 && json_is "[.probes[]|[.status,.expected]]" "[[\"fail\",\"{\\\"a\\\":24,\\\"b\\\":7}\"]]"'
engine_stop

# F. an image that changes the answer: a llama that answers 'No image.' and
# 'Red' when a red image reaches it through a projector written with
# red=1 (synth.c, image_answer)
must "$ZEALOT" synth llama --set answer="No image." --set image_answer=Red -o img.gguf || exit 1
must "$ZEALOT" synth clip --set red=1 -o mmred.gguf || exit 1
env_file seen img.gguf MMPROJ_FILE=mmred.gguf PROBE_VISION_EXPECT=Red
env_file blind img.gguf MMPROJ_FILE=mm.gguf PROBE_VISION_EXPECT=Red
boot seen
run "$ZEALOT" probe "$url" --endpoint seen.env --only vision --json
check "red projector: 'Red' with the red 512 px PNG, 'No image.' without it: pass, exit 0" \
	eval 'rc_is 0 && no_sanitizer && json_is "[.probes[]|[.status,.expected,.answer,.answer_without_image]]" "[[\"pass\",\"Red\",\"Red\",\"No image.\"]]"'
# the engine itself: a green, a white and no image leave the answer
for c in 0,255,0 255,255,255; do
	python3 - "$c" >img.json <<'PY'
import base64, json, struct, sys, zlib
rgb = bytes(int(x) for x in sys.argv[1].split(","))
raw = b"".join(b"\0" + rgb * 64 for _ in range(64))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
print(json.dumps({"max_tokens": 64, "messages": [{"role": "user", "content": [{"type": "text", "text": "What colour?"},
	{"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()}}]}]}))
PY
	a=$(curl -s -m 60 -H 'Content-Type: application/json' -d @img.json "$url/v1/chat/completions" | jq -r '.choices[0].message.content')
	check "red projector, an image of $c: the answer stays 'No image.'" test "$a" = "No image."
done
engine_stop
boot blind
run "$ZEALOT" probe "$url" --endpoint blind.env --only vision --json
check "zero projector (the image billed, its embeddings zero): 'No image.' with it: fail, exit 1" \
	eval 'rc_is 1 && json_is "[.probes[]|[.status,.expected,.answer]]" "[[\"fail\",\"Red\",\"No image.\"]]"'
engine_stop

# D. a prompts file that is not there: exit 3, naming it
env_file gone plain.gguf PROBE_REFUSAL_PROMPTS=missing.txt
run "$ZEALOT" probe "$url" --endpoint gone.env --only refusal
check "a missing PROBE_REFUSAL_PROMPTS: exit 3 naming the file" eval 'rc_is 3 && err_has missing.txt'
