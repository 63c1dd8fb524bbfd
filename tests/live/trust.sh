# What runs must be what was judged (issue 28 items 4-6), on the real
# engine and a real systemd: every flag of the built engine's --help is
# classified (the committed table is regenerated from it), EXTRA_ARGS
# refuses the flags that move memory or what a law judges, serve keeps the
# engine's user-level config files out and builds its environment, and the
# system-wide /etc/llama.cpp/config.ini and systemctl set-environment are
# refused (78) inside a systemd container.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state

must "$ZEALOT" synth gemma3 -o g.gguf || exit 1
chmod 644 g.gguf
port=$(free_port)
cat >g.env <<X
RUNTIME=$SERVER
MODEL_FILE=$TMP/g.gguf
ALIAS=trust
LISTEN_PORT=$port
CTX_SIZE=4096
PARALLEL=1
DEVICE=cpu
ADDRESSABLE_MIB=16384
EXTRA_ARGS=--threads 1
X

# 1. The flag table is the built engine's, and a flag it lacks fails it.
run python3 "$ROOT/scripts/gen-engine-flags.py" "$SERVER"
check "gen-engine-flags reads the built engine's --help, every flag classified" rc_is 0
cp "$TMP/out" flags_table.c
check "src/endpoint/flags_table.c is the built engine's table (regenerate: scripts/gen-engine-flags.py > src/endpoint/flags_table.c)" \
	cmp -s flags_table.c "$ROOT/src/endpoint/flags_table.c"
n_help=$("$SERVER" --help 2>/dev/null | grep -E '^-' | grep -vc '^-----')
check "the table holds every option of the help ($n_help)" test "$(grep -c '^    {"' flags_table.c)" = "$n_help"
mkdir -p newer
cat >newer/llama-server <<X
#!/bin/sh
"$SERVER" "\$@"
printf '%s\n' '--frobnicate-cache N                     a flag a newer engine grew' '                                        (env: LLAMA_ARG_FROBNICATE_CACHE)'
X
chmod +x newer/llama-server
run python3 "$ROOT/scripts/gen-engine-flags.py" "$TMP/newer/llama-server"
check "a flag the table does not classify fails the generator (exit 1), named" \
	test "$rc" -eq 1 -a -n "$(grep -F -- '--frobnicate-cache: a flag of the engine with no class' "$TMP/err")"

# 2. The engine really moves memory with a refused flag: --swa-full makes
# the sliding-window cache 4,096 cells where the plan bills 1,024.
run "$ZEALOT" plan g.env
check "control: the plan bills the SWA cache at 1,024 cells, 2.50 MiB" \
	test -n "$(grep -E '^kv_swa +CPU +2\.50 +1,024 cells' "$TMP/out")"
mapfile -t cmd < <("$ZEALOT" argv g.env)
"${cmd[@]}" --swa-full >swa.log 2>&1 &
ENGINE_PID=$! ENGINE_PORT=$port
engine_ask "$ENGINE_PID" "$port"
engine_stop
check "the engine with --swa-full: its SWA cache is 10.00 MiB (the plan: 2.50)" \
	test -n "$(grep -F 'using full-size SWA cache' swa.log)" -a \
	"$(grep -F 'KV buffer size' swa.log | tail -1 | sed -E 's/.*= +([0-9.]+) MiB.*/\1/')" = 10.00

# 3. EXTRA_ARGS: each flag of the issue refused by check with its law;
# --threads (harmless) and --rope-scaling (priced: the window law reads it) pass.
for extra in "--swa-full" "--override-kv a=int:1" "--cache-ram 100" "--ctx-checkpoints 3" "--swa-checkpoints 3" \
	"--no-mmap" "--mlock" "--image-min-tokens 8" "--image-max-tokens 8" "--embedding" "--pooling mean" \
	"--rerank" "--chat-template chatml" "--chat-template-file t.jinja" "--rope-freq-base 1e6" \
	"--reasoning-budget 3" "--no-slots" "--frobnicate" "--threads 1 stray"; do
	{ grep -v '^EXTRA_ARGS=' g.env; echo "EXTRA_ARGS=$extra"; } >x.env
	run "$ZEALOT" check --json x.env
	check "check: EXTRA_ARGS=$extra refused ($(jq -r '[.findings[]|select(.key=="EXTRA_ARGS" and .severity=="error")|.law]|unique|join(",")' "$TMP/out"))" \
		test "$rc" -eq 1 -a "$(jq '[.findings[]|select(.key=="EXTRA_ARGS" and .severity=="error")]|length' "$TMP/out")" -ge 1
done
{ grep -v '^EXTRA_ARGS=' g.env; echo "EXTRA_ARGS=--threads 1 --temp 0.5 --rope-scaling yarn --yarn-orig-ctx 4096"; } >x.env
run "$ZEALOT" check --json x.env
check "check: harmless and priced flags pass (--threads, --temp, --rope-scaling, --yarn-orig-ctx)" \
	json_is '[.findings[]|select(.key=="EXTRA_ARGS")]|length' 0

# 4. The user-level config files: serve keeps them out of the engine.
mkdir -p xdg/llama.cpp home/.config/llama.cpp
printf '[*]\nswa-full = true\n' >xdg/llama.cpp/config.ini
printf 'swa-full = true\n' >home/.config/llama.cpp/config.ini
XDG_CONFIG_HOME=$TMP/xdg HOME=$TMP/home FOO_ZEALOT=1 "$ZEALOT" serve g.env >serve.log 2>&1 &
ENGINE_PID=$! ENGINE_PORT=$port
engine_ask "$ENGINE_PID" "$port"
check "serve: the engine read no config file" test -z "$(grep -F 'using config file' serve.log)"
check "serve: the engine's SWA cache is the planned 2.50 MiB (no full-size SWA cache)" \
	test -z "$(grep -F 'full-size SWA' serve.log)" -a \
	"$(grep -F 'KV buffer size' serve.log | tail -1 | sed -E 's/.*= +([0-9.]+) MiB.*/\1/')" = 2.50
tr '\0' '\n' <"/proc/$ENGINE_PID/environ" >served.environ
check "serve built the engine's environment: XDG_CONFIG_HOME=/dev/null, no FOO_ZEALOT, no endpoint key" \
	test -n "$(grep -Fx XDG_CONFIG_HOME=/dev/null served.environ)" -a -z "$(grep -E '^(FOO_ZEALOT|MODEL_FILE|ZEALOT_STATE_DIR)=' served.environ)"
run "$ZEALOT" audit g.env --pid "$ENGINE_PID" --json
check "audit of the served engine: 0 divergences, no config file read" \
	eval 'rc_is 0 && json_is "[.rows[]|select(.what==\"config files\")|.live]" "[\"(none)\"]"'
engine_stop
# the same engine started by hand under that environment reads the file
mapfile -t cmd < <("$ZEALOT" argv g.env)
XDG_CONFIG_HOME=$TMP/xdg LLAMA_ARG_THREADS_HTTP=2 "${cmd[@]}" >hand.log 2>&1 &
ENGINE_PID=$! ENGINE_PORT=$port
engine_ask "$ENGINE_PID" "$port"
check "control: by hand, the engine reads the user-level file" test -n "$(grep -F "using config file: $TMP/xdg/llama.cpp/config.ini" hand.log)"
run "$ZEALOT" audit g.env --pid "$ENGINE_PID" --json
check "audit: the file the live engine read, with its swa-full, is R03's divergence" \
	test "$(jq -r '.rows[]|select(.what=="config files" and .diverges and .law=="R03")|.live' "$TMP/out" | grep -cF "$TMP/xdg/llama.cpp/config.ini:2: swa-full = true")" = 1
check "audit: the engine's LLAMA_ARG_THREADS_HTTP is R04's divergence" \
	json_is '[.rows[]|select(.what=="env LLAMA_ARG_THREADS_HTTP")|.law]' '["R04"]'
engine_stop

# 5. The environment: each variable the engine, ggml or the loader reads is
# serve's refusal (78), naming the variable and the law.
for v in LLAMA_ARG_SWA_FULL=1 LD_PRELOAD=/nonexistent.so LD_LIBRARY_PATH=/tmp GGML_BACKEND_PATH=/x.so \
	LLAMA_API_KEY=sk-1 HF_TOKEN=hf_1 LLAMA_ARG_CTX_SIZE=99; do
	run env "$v" "$ZEALOT" serve --dry-run g.env
	check "serve: $v refused, 78, naming it and the law" \
		test "$rc" -eq 78 -a -n "$(grep -E "refused at the environment gate: (R04|C09) .*${v%%=*}" "$TMP/err")"
done

# 6. A real systemd: the system-wide config file and systemctl
# set-environment, as the unit's serve meets them.
RS_NAME=zl-trust-$$
RS_BIND=$TMP
. "$ROOT/tests/systemd.sh"
if rs_start; then
	R=$(rs_root)
	mkdir -p "$R/etc/llama.cpp"
	printf '# the operator tuned this once\nswa-full = true\nthreads-http = 4\n' >"$R/etc/llama.cpp/config.ini"
	run rs_exec "$ZEALOT" check --json g.env
	check "systemd: check names /etc/llama.cpp/config.ini's swa-full (R03 error)" \
		test "$rc" -eq 1 -a -n "$(jq -r '.findings[]|select(.law=="R03" and .severity=="error")|.reason' "$TMP/out" | grep -F '/etc/llama.cpp/config.ini:2: swa-full')"
	check "systemd: its threads-http is said, not refused (R03 warning)" \
		test -n "$(jq -r '.findings[]|select(.law=="R03" and .severity=="warning")|.reason' "$TMP/out" | grep -F 'threads-http')"
	run rs_exec systemd-run --wait --unit=trust-cfg -p Type=simple -p RuntimeMaxSec=20 "$ROOT/zealot" serve "$TMP/g.env"
	check "systemd: the unit's serve refuses the system file: exit 78" test -n "$(grep -F 'status=78' "$TMP/err")"
	run rs_exec journalctl -u trust-cfg --no-pager -o cat
	check "systemd: its journal names the file, the setting and R03" \
		test -n "$(grep -F 'refused at the config gate: R03' "$TMP/out" | grep -F 'swa-full')"
	rm "$R/etc/llama.cpp/config.ini"
	rs_exec systemctl set-environment LLAMA_ARG_SWA_FULL=1
	run rs_exec systemd-run --wait --unit=trust-env -p Type=simple -p RuntimeMaxSec=20 "$ROOT/zealot" serve "$TMP/g.env"
	check "systemd: set-environment LLAMA_ARG_SWA_FULL=1: the unit's serve exits 78" test -n "$(grep -F 'status=78' "$TMP/err")"
	run rs_exec journalctl -u trust-env --no-pager -o cat
	check "systemd: its journal names LLAMA_ARG_SWA_FULL and R04" \
		test -n "$(grep -F 'refused at the environment gate: R04' "$TMP/out" | grep -F LLAMA_ARG_SWA_FULL)"
	rs_stop
else
	echo "not ok - a real systemd boots in a container (tests/systemd.sh)"
fi
