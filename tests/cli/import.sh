# zealot import (issue 34 item 5): the endpoint file for a llama-server
# command line run today, from argv, a systemd unit or a llama-swap model.
# The round trip: `zealot argv` of the imported file holds every flag and
# value of the command line (compared as (long spelling, value) pairs),
# plus only flags zealot always spells out.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

# a word's long spelling (the flags these cases use)
long() {
	case $1 in
	-m) echo --model ;; -c) echo --ctx-size ;; -np) echo --parallel ;; -fa) echo --flash-attn ;;
	-ngl | --gpu-layers) echo --n-gpu-layers ;; -ctk) echo --cache-type-k ;; -ctv) echo --cache-type-v ;;
	-t) echo --threads ;; -b) echo --batch-size ;; -ub) echo --ubatch-size ;; -a) echo --alias ;;
	-nkvo) echo --no-kv-offload ;; -kvu) echo --kv-unified ;; -nr) echo --no-repack ;; -lv) echo --log-verbosity ;;
	*) echo "$1" ;;
	esac
}
# the (flag, value) pairs of a command line, one "flag value" a line, sorted
pairs() {
	shift # the runtime
	while [ $# -gt 0 ]; do
		f=${1%%=*}
		case $1 in
		--jinja | --no-jinja | -nkvo | --no-kv-offload | -kvu | --kv-unified | --no-kv-unified | -nr | --no-repack | \
			--metrics | --embeddings)
			echo "$(long "$f")" ;;
		*=*) echo "$(long "$f") ${1#*=}" ;;
		*) echo "$(long "$f") $2"; shift ;;
		esac
		shift
	done | sort
}
# the flags zealot's argv spells out whatever the command line says
spelt='--alias|--host|--port|--ctx-size|--parallel|--fit|--kv-unified|--no-kv-unified|--cache-type-k|--cache-type-v|--flash-attn|--batch-size|--ubatch-size|--n-gpu-layers|--jinja|--metrics|--log-verbosity|--reasoning|--reasoning-format'

roundtrip() {
	local name=$1
	shift
	run "$ZEALOT" import -o "$name.env" -- "$@"
	check "$name: imported (exit 0)" rc_is 0
	pairs "$@" >"$name.in"
	"$ZEALOT" argv "$name.env" >"$name.argv" 2>"$name.err"
	# shellcheck disable=SC2046
	pairs $(cat "$name.argv") >"$name.out"
	check "$name: argv gives the runtime back" test "$(head -1 "$name.argv")" = "$1"
	check "$name: argv holds every (flag, value) of the command line" \
		test -z "$(comm -23 "$name.in" "$name.out")"
	check "$name: and adds only flags zealot always spells out" \
		test -z "$(comm -13 "$name.in" "$name.out" | awk '{ print $1 }' | grep -vxE -- "$spelt")"
}

M=$TMP/m.gguf
roundtrip one "$TMP/bin/llama-server" -m "$M" -c 8192 -np 2 -ngl 99 -fa on --cache-type-k q8_0 --port 8081 \
	--host 0.0.0.0 --jinja --threads 8
roundtrip two /opt/llama/llama-server --model="$M" --ctx-size=32768 --parallel 4 --n-gpu-layers 0 --flash-attn off \
	-ctk f16 -ctv q8_0 --no-jinja -t 4 --temp 0.7 -nkvo -b 1024 -ub 256 --alias qwen
roundtrip three /opt/llama/llama-server -m "$M" -c 4096 -kvu --no-repack --metrics -lv 4 --lora-scaled "$TMP/a.gguf:0.5" \
	--reasoning-format none --top-k 40 --fit off --gpu-layers 12
check "three: LORA_FILE and LORA_SCALE from --lora-scaled" \
	test -n "$(grep -x "LORA_FILE=$TMP/a.gguf" three.env)" -a -n "$(grep -x LORA_SCALE=0.5 three.env)"

# keys by name, EXTRA_ARGS as written, relative paths made absolute
run "$ZEALOT" import -- llama-server -m rel/m.gguf -c 8192 -ngl 99 --threads 8 --temp 0.7
check "-m relative: MODEL_FILE absolute against the current directory" out_has "MODEL_FILE=$TMP/rel/m.gguf"
check "-ngl: NGL=99" out_has "NGL=99"
check "harmless flags: EXTRA_ARGS as written" out_has "EXTRA_ARGS=--threads 8 --temp 0.7"
check "a bare llama-server: RUNTIME left to its default" test -z "$(grep '^RUNTIME=' "$TMP/out")"

# refused, each flag with its law (exit 1)
run "$ZEALOT" import -- llama-server -m "$M" -c 8192 --mlock -n 128 -hf org/repo --api-key sk-SECRET --no-such-flag 3
check "refused flags: exit 1" rc_is 1
check "--mlock refused with M12" err_has "zealot: import: --mlock: "
check "... its law" test -n "$(grep -F -- '--mlock' "$TMP/err" | grep -F '(law M12)')"
check "-n refused with A03" test -n "$(grep -F -- 'import: -n:' "$TMP/err" | grep -F '(law A03)')"
check "-hf: MODEL_FILE renders only --model" test -n "$(grep -F -- 'import: -hf: owned by MODEL_FILE, which renders it only as --model' "$TMP/err")"
check "--api-key: only API_KEY_FILE; the key itself never printed" \
	test -n "$(grep -F -- 'import: --api-key: owned by API_KEY_FILE' "$TMP/err")" -a -z "$(grep -F SECRET "$TMP/err" "$TMP/out")"
check "a flag of no engine: C11" test -n "$(grep -F -- 'import: --no-such-flag:' "$TMP/err" | grep -F '(law C11)')"
check "nothing on stdout" test ! -s "$TMP/out"
run "$ZEALOT" import -- llama-server -m "$M" -np 2
check "no -c: refused, the pool must be explicit (S01)" test "$rc" -eq 1 -a -n "$(grep -F -- 'import: -c: no -c/--ctx-size' "$TMP/err" | grep -F 'S01')"
run "$ZEALOT" import -- llama-server -m "$M" -c 8192 --fit on
check "--fit on: refused (S01)" test "$rc" -eq 1 -a -n "$(grep -F -- '--fit' "$TMP/err" | grep -F '(law S01)')"
run "$ZEALOT" import -- llama-server -m "$M" -c 8192 -c 4096
check "-c twice: refused, naming the first" test "$rc" -eq 1 -a -n "$(grep -F 'sets CTX_SIZE again (-c set it)' "$TMP/err")"
run "$ZEALOT" import -- llama-server -m "$M" -c 8192 --threads-http '4 4'
check "a value with a blank: EXTRA_ARGS cannot carry it" test "$rc" -eq 1 -a -n "$(grep -F 'EXTRA_ARGS splits on blanks' "$TMP/err")"
run "$ZEALOT" import -- llama-server -m "$M" -c 99999999999
check "-c past int32: refused with the key's range" test "$rc" -eq 1 -a -n "$(grep -F 'CTX_SIZE=99999999999 is out of range' "$TMP/err")"

# usage errors (exit 2)
run "$ZEALOT" import -- llama-server -m "$M" -c 8192 -fa --port 9
check "-fa with no value (the pinned engine's takes one): exit 2" test "$rc" -eq 2 -a -n "$(grep -F -- '-fa takes a value' "$TMP/err")"
run "$ZEALOT" import -- llama-server -m "$M" stray -c 8192
check "a stray word: exit 2" test "$rc" -eq 2 -a -n "$(grep -F "unexpected argument 'stray': neither a flag" "$TMP/err")"
run "$ZEALOT" import
check "no command: exit 2" rc_is 2
run "$ZEALOT" import --llama-swap x.yaml
check "--llama-swap without --model: exit 2" rc_is 2
run "$ZEALOT" import -o one.env -- llama-server -m "$M" -c 8192
check "-o onto a file: exit 2, --force replaces it" test "$rc" -eq 2 -a -n "$(grep -F "exists: --force" "$TMP/err")"
run "$ZEALOT" import --force -o one.env -- llama-server -m "$M" -c 512
check "--force: replaced" test "$rc" -eq 0 -a -n "$(grep -x CTX_SIZE=512 one.env)"

# a systemd unit
cat >u.service <<X
[Unit]
Description=llama
[Service]
WorkingDirectory=/srv/models
ExecStart=-/opt/llama/llama-server -m qwen.gguf \\
    -c 16384 --parallel 2 \\
    --host "0.0.0.0" --port 8090 --temp 0.7 --alias "100%%"
Restart=always
X
run "$ZEALOT" import --unit u.service -o u.env
check "--unit: imported (exit 0)" rc_is 0
run "$ZEALOT" argv u.env
check "--unit: continuation lines joined, '-' dropped, the runtime" test "$(head -1 "$TMP/out")" = /opt/llama/llama-server
check "--unit: paths against WorkingDirectory=" out_has /srv/models/qwen.gguf
check "--unit: quotes and %% read as systemd reads them" test -n "$(grep -x 0.0.0.0 "$TMP/out")" -a -n "$(grep -x '100%' "$TMP/out")"
check "--unit: --port and the harmless flags" test -n "$(grep -x 8090 "$TMP/out")" -a -n "$(grep -x 0.7 "$TMP/out")"
printf '[Service]\nExecStart=/usr/bin/llama-server -m %%h/m.gguf -c 8192\n' >h.service
run "$ZEALOT" import --unit h.service
check "--unit: a specifier is refused (exit 2)" test "$rc" -eq 2 -a -n "$(grep -F 'specifier %h' "$TMP/err")"
printf '[Service]\nExecStart=/usr/bin/llama-server -m $MODEL -c 8192\n' >v.service
run "$ZEALOT" import --unit v.service
check "--unit: an environment variable is refused (exit 2)" test "$rc" -eq 2 -a -n "$(grep -F 'environment variable' "$TMP/err")"
printf '[Service]\nExecStart=/bin/a\nExecStart=/bin/b\n' >two.service
run "$ZEALOT" import --unit two.service
check "--unit: two ExecStart= lines: exit 2" test "$rc" -eq 2 -a -n "$(grep -F '2 ExecStart=' "$TMP/err")"

# a llama-swap config
cat >swap.yaml <<X
macros:
  "models": "/srv/models"
  ctx: 8192
models:
  "qwen-9b":
    # the main one
    cmd: |
      /opt/llama/llama-server --port \${PORT}
      -m \${models}/qwen.gguf
      -c \${ctx} -np 2 \\
      --jinja -fa on
    ttl: 300
  small: 
    cmd: llama-server --port \${PORT} -m /srv/small.gguf -c 2048 --temp 0.5
  weird:
    cmd: {a: b}
X
run "$ZEALOT" import --llama-swap swap.yaml --model qwen-9b -o swap.env
check "--llama-swap: imported (exit 0)" rc_is 0
check "--llama-swap: macros expanded" test -n "$(grep -x MODEL_FILE=/srv/models/qwen.gguf swap.env)" -a -n "$(grep -x CTX_SIZE=8192 swap.env)"
check "--llama-swap: --port \${PORT} left to llama-swap" test -z "$(grep LISTEN_PORT= swap.env)" -a -n "$(grep -F 'left to llama-swap' swap.env)"
check "--llama-swap: the block's flags" test -n "$(grep -x JINJA=1 swap.env)" -a -n "$(grep -x FLASH_ATTN=on swap.env)" -a -n "$(grep -x PARALLEL=2 swap.env)"
run "$ZEALOT" import --llama-swap swap.yaml --model small
check "--llama-swap: cmd on one line" test "$rc" -eq 0 -a -n "$(grep -x 'EXTRA_ARGS=--temp 0.5' "$TMP/out")"
run "$ZEALOT" import --llama-swap swap.yaml --model weird
check "--llama-swap: a shape the reader does not take: exit 2 with its line" test "$rc" -eq 2 -a -n "$(grep -F 'line 16: cmd:' "$TMP/err")"
run "$ZEALOT" import --llama-swap swap.yaml --model nope
check "--llama-swap: no such model: exit 3" test "$rc" -eq 3 -a -n "$(grep -F "no model 'nope'" "$TMP/err")"
check "no sanitizer report" no_sanitizer
