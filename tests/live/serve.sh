# zealot serve on the real engine: the gates pass, zealot execs the engine
# (the same PID becomes llama-server), and the engine serves the shape the
# endpoint names: slots, per-slot window, alias, /metrics.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state

must "$ZEALOT" synth qwen35 -o q.gguf || exit 1
port=$(free_port)
cat >live.env <<X
RUNTIME=$SERVER
MODEL_FILE=q.gguf
MODEL_BYTES=$(stat -c %s q.gguf)
MODEL_SHA256=$(sha256sum q.gguf | cut -d' ' -f1)
ALIAS=zealot-live
LISTEN_PORT=$port
CTX_SIZE=6144
PARALLEL=3
CACHE_TYPE_V=q8_0
PRESENCE_PENALTY=1.0
SPEC_TYPE=draft-mtp
SPEC_DRAFT_N_MAX=2
DEVICE=cpu
ADDRESSABLE_MIB=16384
X
"$ZEALOT" serve live.env >serve.log 2>&1 &
ENGINE_PID=$!
ENGINE_PORT=$port
ENGINE_LOG=$TMP/serve.log
up=0
! engine_up "$ENGINE_PID" "$port" || up=1
check "serve: the engine came up and /health answers 200" test "$up" = 1
[ "$up" = 1 ] || sed 's/^/#   /' serve.log | tail -20
engine_ask "$ENGINE_PID" "$port"
check_answered "serve" serve.log
check "serve: the gates passed before exec" grep -qF "gates passed" serve.log
check "serve: zealot exec'd: its PID is now llama-server" test "$(basename "$(readlink "/proc/$ENGINE_PID/exe")")" = llama-server
tr '\0' '\n' <"/proc/$ENGINE_PID/cmdline" >live.cmdline
"$ZEALOT" argv live.env >want.cmdline
check "serve: /proc/PID/cmdline is exactly zealot argv" cmp -s want.cmdline live.cmdline
curl -s -m 5 "http://127.0.0.1:$port/props" >props.json
check "serve: /props reports 3 slots" test "$(jq '.total_slots' props.json)" = 3
check "serve: /props per-slot n_ctx 2048 (6144 / 3)" test "$(jq '.default_generation_settings.n_ctx' props.json)" = 2048
check "serve: /v1/models serves the alias" test "$(curl -s -m 5 "http://127.0.0.1:$port/v1/models" | jq -r '.data[0].id')" = zealot-live
check "serve: /metrics answers 200 (METRICS default on, C04)" \
	test "$(curl -s -o /dev/null -w '%{http_code}' -m 5 "http://127.0.0.1:$port/metrics")" = 200
engine_stop
check "serve: the boot ledger matches the plan" "$ZEALOT" ledger serve.log --endpoint live.env
