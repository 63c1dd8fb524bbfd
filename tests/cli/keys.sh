# The key table (endpoint/keys.h) as the commands see it: one parse and one
# range per numeric key, shared by plan and check (issue 18, reproduction
# 8: a pool that wraps at 2^32); the shape laws in plan's verdict (M03);
# and the gated flags (C09, reproduction 3): EXTRA_ARGS may not name a flag
# a key owns, an API key never reaches argv, and LLAMA_ARG_* lines are
# refused. The runtime is a stub that records its argv.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

cat >stub.sh <<'X'
#!/bin/sh
printf '%s\n' "$0" "$@" >"$(dirname "$0")/argv.out"
exit 0
X
chmod +x stub.sh
must "$ZEALOT" synth qwen35 -o q.gguf || exit 1
base() {
	cat <<X
RUNTIME=$TMP/stub.sh
MODEL_FILE=q.gguf
PRESENCE_PENALTY=1.0
DEVICE=cpu
ADDRESSABLE_MIB=16384
X
}

# --- reproduction 8: CTX_SIZE=99999999999 wraps to 1215752192 in 32 bits
{ base; echo CTX_SIZE=99999999999; } >wrap.env
want='CTX_SIZE=99999999999 is out of range 1..2147483647 (law S01)'
run "$ZEALOT" plan wrap.env
check "plan: a pool past the engine's int32 is refused (exit 2)" rc_is 2
check "plan: the refusal names the key, its range and the law" err_has "wrap.env:6: $want"
check "plan: no figure from a wrapped number (no n_ctx, no verdict)" \
	test -z "$(grep -E 'n_ctx|verdict|1215752192' "$TMP/out" "$TMP/err")"
run "$ZEALOT" check --json wrap.env
check "check: the same pool refused (exit 1)" rc_is 1
check "check: the same sentence, with the law S01 on CTX_SIZE" \
	json_is "[.findings[]|select(.law==\"S01\" and .key==\"CTX_SIZE\" and .reason==\"$want\")]|length" 1
run "$ZEALOT" plan --set CTX_SIZE=4294975488 wrap.env
check "plan --set: 2^32 + 8192 refused the same way, not priced as 8192" \
	test "$rc" -eq 2 -a -n "$(grep -F 'CTX_SIZE=4294975488 is out of range' "$TMP/err")"
# --- reproduction 8: PARALLEL=5 with a pool not divisible by 5
{ base; echo CTX_SIZE=8192; echo PARALLEL=5; } >five.env
run "$ZEALOT" plan five.env
check "plan: PARALLEL=5 over 8192 is refused (exit 1)" rc_is 1
check "plan: the verdict names M03" out_has "verdict: refused: CTX_SIZE 8192 is not divisible by PARALLEL 5"
check "plan: ... and the law id (the verdict wrapped at 100 columns)" test -n "$(unwrapped | grep -F 'verdict: refused' | grep -F '(law M03)')"
run "$ZEALOT" plan --json five.env
check "plan --json: verdict refused, law M03" json_is '[.verdict,.law]' '["refused","M03"]'
run "$ZEALOT" check --json five.env
check "check: M03 on the same shape" json_is '[.findings[]|select(.law=="M03")]|length' 1
run "$ZEALOT" solve --fix PARALLEL=4294967297 five.env
check "solve --fix: a slot count that wraps to 1 is refused" \
	test "$rc" -ne 0 -a -n "$(grep -F 'PARALLEL=4294967297 is out of range' "$TMP/err")"
run "$ZEALOT" solve --vary PARALLEL=1,300 five.env
check "solve --vary: 300 slots is past the engine's LLAMA_MAX_SEQ: a usage error naming the range" \
	test "$rc" -eq 2 -a -n "$(grep -F 'PARALLEL=300 is out of range 1..256 (law M03)' "$TMP/err")"
run "$ZEALOT" plan --set PARALLEL=4 five.env
check "plan: PARALLEL=4 over 8192 fits (exit 0)" test "$rc" -eq 0 -a -n "$(grep -F 'verdict: fits' "$TMP/out")"

# --- reproduction 3: EXTRA_ARGS overrides the gated flags
{ base; echo CTX_SIZE=8192; echo "EXTRA_ARGS=--model /tmp/other.gguf --api-key sk-SECRET"; } >extra.env
run "$ZEALOT" check --json extra.env
check "check: EXTRA_ARGS naming --model and --api-key refused (exit 1)" rc_is 1
check "check: --model refused with C09, naming MODEL_FILE" \
	json_is '[.findings[]|select(.law=="C09" and .key=="EXTRA_ARGS" and (.reason|contains("--model, a flag MODEL_FILE owns")))]|length' 1
check "check: --api-key refused with C09: a key travels only by file" \
	json_is '[.findings[]|select(.law=="C09" and (.reason|contains("--api-key: an API key travels only by file")))]|length' 1
rm -f argv.out
run "$ZEALOT" serve --dry-run extra.env
check "serve --dry-run: refused with 78" rc_is 78
check "serve --dry-run: at the laws gate, naming C09 and MODEL_FILE" err_has "C09 extra.env:7 EXTRA_ARGS: EXTRA_ARGS names --model, a flag MODEL_FILE owns"
check "serve --dry-run: the secret is printed nowhere as argv" test -z "$(grep -Fx -- 'sk-SECRET' "$TMP/out")"
run "$ZEALOT" serve extra.env
check "serve: refused with 78, the engine never ran" test "$rc" -eq 78 -a ! -e argv.out
run "$ZEALOT" argv extra.env
check "argv: renders no command line with a gated flag in it" test "$rc" -ne 0 -a -z "$(grep -F -- '--api-key' "$TMP/out")"

# every spelling the engine accepts: short, long, --flag_name, --flag=value
for extra in "-c 4096" "--ctx-size 4096" "--ctx_size 4096" "--ctx-size=4096" "-np 4" "-ctk q8_0" \
	"--host 0.0.0.0" "--port 9" "--mmproj x.gguf" "--lora-scaled a:1" "--spec-draft-n-max 9" \
	"--spec-ngram-mod-n-min 2" "--fit on" "-ngl 0" "--api-key-file /k"; do
	{ base; echo CTX_SIZE=8192; echo "EXTRA_ARGS=--temp 0.7 $extra"; } >g.env
	run "$ZEALOT" check --json g.env
	check "check: EXTRA_ARGS=$extra refused with C09" \
		json_is '[.findings[]|select(.law=="C09")]|length>=1' true
done
{ base; echo CTX_SIZE=8192; echo "EXTRA_ARGS=--temp 0.7 --rope-scaling yarn"; } >free.env
run "$ZEALOT" check --json free.env
check "check: flags no key owns stay free in EXTRA_ARGS (no C09)" json_is '[.findings[]|select(.law=="C09")]|length' 0

# LLAMA_ARG_* lines: systemd would put them in the engine's environment
{ base; echo CTX_SIZE=8192; echo LLAMA_ARG_CTX_SIZE=99999; } >env.env
run "$ZEALOT" check --json env.env
check "check: LLAMA_ARG_CTX_SIZE in the file refused with C09 naming CTX_SIZE" \
	json_is '[.findings[]|select(.law=="C09" and (.reason|contains("CTX_SIZE owns")))]|length' 1
{ base; echo CTX_SIZE=8192; echo LLAMA_API_KEY=sk-SECRET; } >env2.env
run "$ZEALOT" serve --dry-run env2.env
check "serve --dry-run: LLAMA_API_KEY in the file refused (78)" \
	test "$rc" -eq 78 -a -n "$(grep -F '(law C09)' "$TMP/err")"

# docs/keys.md is the table itself
run "$ZEALOT" check --keys --markdown
check "check --keys --markdown: docs/keys.md is the table (regenerate it when a row changes)" \
	cmp -s "$TMP/out" "$ROOT/docs/keys.md"
check "check --keys --markdown: a row per key" \
	test "$(grep -c '^| `' "$TMP/out")" -eq "$("$ZEALOT" check --keys | tail -n +3 | grep -c '^[A-Z]')"

# issue 33 item 6: every --set KEY= in every help text (doc/zealot-*.txt,
# what --help, the man pages and docs/cmd/ are made from) is a key of the
# table: an example never teaches a key zealot refuses (it showed DRAFT_MAX)
"$ZEALOT" check --keys | awk 'NR > 1 {print $1}' | sort -u >keys.txt
grep -ohE -- '--set [A-Z][A-Z0-9_]*=' "$ROOT"/doc/zealot-*.txt | sed 's/^--set //; s/=$//' | grep -vx KEY | sort -u >helpkeys.txt
check "the help texts set keys at all (control: $(wc -l <helpkeys.txt) keys)" test "$(wc -l <helpkeys.txt)" -ge 4
check "every --set KEY= in a help text is a key: $(comm -23 helpkeys.txt keys.txt | tr '\n' ' ')" \
	test -z "$(comm -23 helpkeys.txt keys.txt)"

# issue 34 item 3: llama.cpp's names find zealot's keys. An unknown key is
# matched against the flags' spellings and the LLAMA_ARG_* names before a
# misspelling (PORT was pointed to HOST, FA and NP to NGL).
for pair in N_GPU_LAYERS:NGL CTX:CTX_SIZE FA:FLASH_ATTN NP:PARALLEL PORT:LISTEN_PORT \
	GPU_LAYERS:NGL N_PARALLEL:PARALLEL CTX_SIZ:CTX_SIZE KV_CACHE_TYPE:CACHE_TYPE_K; do
	name=${pair%%:*} want=${pair#*:}
	{ base; echo CTX_SIZE=8192; echo "$name=1"; } >dym.env
	run "$ZEALOT" check --json dym.env
	check "check: unknown key $name: did you mean $want (C01)" \
		json_is "[.findings[]|select(.law==\"C01\" and (.reason|contains(\"unknown key '$name' (did you mean $want?\")))]|length" 1
done
{ base; echo CTX_SIZE=8192; echo "NP=2"; } >dym.env
run "$ZEALOT" check --json dym.env
check "check: the did-you-mean names the engine flag that matched (NP: -np)" \
	json_is '[.findings[]|select(.reason|contains("it owns the engine'"'"'s -np"))]|length' 1
{ base; echo CTX_SIZE=8192; echo "THREADS=8"; } >dym.env
run "$ZEALOT" check --json dym.env
check "check: THREADS is an engine flag no key owns: EXTRA_ARGS carries it" \
	json_is '[.findings[]|select(.law=="C01" and (.reason|contains("--threads is an engine flag no key owns: EXTRA_ARGS")))]|length' 1
{ base; echo CTX_SIZE=8192; echo "MLOCK=1"; } >dym.env
run "$ZEALOT" check --json dym.env
check "check: MLOCK is an engine flag zealot refuses, with its law" \
	json_is '[.findings[]|select(.law=="C01" and (.reason|contains("--mlock is an engine flag zealot refuses (law M12)")))]|length' 1
{ base; echo CTX_SIZE=8192; } >dym.env
run "$ZEALOT" plan --set PORT=9000 dym.env
check "plan --set PORT: did you mean LISTEN_PORT (exit 2)" \
	test "$rc" -eq 2 -a -n "$(grep -F "unknown key 'PORT' (did you mean LISTEN_PORT?" "$TMP/err")"

# check --keys names the flag each key renders (HOST is the ssh
# destination; the engine's --host is BIND_ADDR)
run "$ZEALOT" check --keys
for pair in BIND_ADDR:--host LISTEN_PORT:--port NGL:--n-gpu-layers CTX_SIZE:--ctx-size \
	FLASH_ATTN:--flash-attn PARALLEL:--parallel KV_OFFLOAD:--no-kv-offload HOST:-; do
	check "check --keys: ${pair%%:*} renders ${pair#*:}" \
		test -n "$(awk -v k="${pair%%:*}" -v f="${pair#*:}" '$1 == k && $2 == f' "$TMP/out")"
done
