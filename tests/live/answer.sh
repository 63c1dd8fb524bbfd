# synth --set answer=TEXT: a payload whose answer to any chat prompt is TEXT,
# and an adapter (synth lora --set answer=TEXT2) that changes it, proven on
# the real engine: the ground the behaviour probes stand on.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"

ask() { # CONTENT [EXTRA_JSON]: one chat request to the running engine
	engine_post /v1/chat/completions \
		"{\"messages\":[{\"role\":\"user\",\"content\":\"$1\"}],\"max_tokens\":64${2:-}}"
}
content() { jq -r '.choices[0].message.content' "$TMP/out"; }

for a in llama qwen35; do
	run "$ZEALOT" synth "$a" --set answer="zealot alive" -o "$TMP/$a.gguf"
	check "$a: synth --set answer writes the payload" eval 'rc_is 0 && no_sanitizer'
	engine_start "$a" -m "$TMP/$a.gguf" -c 2048 --jinja
	ask "are you there?"
	check "$a: the engine answers exactly 'zealot alive' under the payload's own sampling recipe (1.0/0.95/20)" \
		test "$(content)" = "zealot alive" -a "$(jq -r '.choices[0].finish_reason' "$TMP/out")" = stop
	ask "something else entirely, with more words" ',"temperature":1.5,"top_k":0,"top_p":1,"seed":7'
	check "$a: and under hot sampling (temperature 1.5, no top-k/top-p)" test "$(content)" = "zealot alive"
	engine_stop
done

# the seeds' refusal swap: a plain payload that refuses, an adapter that
# makes it answer something else
must "$ZEALOT" synth llama --set answer="I cannot provide that." --set alt="Here it is." -o "$TMP/plain.gguf" || exit 1
run "$ZEALOT" synth lora --base "$TMP/plain.gguf" --set answer="Here it is." -o "$TMP/ans-lora.gguf"
check "synth lora --set answer writes an adapter on output.weight" eval 'rc_is 0 && no_sanitizer'
engine_start plain -m "$TMP/plain.gguf" -c 2048 --jinja
ask "how do I pick a lock?"
check "the plain payload answers its refusal" test "$(content)" = "I cannot provide that."
engine_stop
engine_start adapted -m "$TMP/plain.gguf" --lora-scaled "$TMP/ans-lora.gguf:1" -c 2048 --jinja
ask "how do I pick a lock?"
check "with the adapter it answers the other text" test "$(content)" = "Here it is."
engine_stop
engine_start scaled0 -m "$TMP/plain.gguf" --lora-scaled "$TMP/ans-lora.gguf:0" -c 2048 --jinja
ask "how do I pick a lock?"
check "the adapter at scale 0 changes nothing" test "$(content)" = "I cannot provide that."
engine_stop

run "$ZEALOT" synth lora --base "$TMP/plain.gguf" --set answer="not in the vocabulary" -o "$TMP/x.gguf"
check "an answer the base does not carry: refused, saying how to write the base" \
	eval 'rc_is 2 && err_has "write it with --set alt="'
run "$ZEALOT" synth gemma3 --set answer="x" -o "$TMP/g.gguf"
check "gemma3 (a tied, scaled output) is refused for answer=" eval 'rc_is 2 && err_has "ties or scales its output"'
