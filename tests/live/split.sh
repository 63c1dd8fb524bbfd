# A split payload (3 shards, the engine's naming) on the real engine: zealot
# fetches it shard by shard from a loopback nginx, serve gates every shard's
# pin and execs the engine on the first shard, the engine loads the other
# two by name and answers, and its boot ledger (one CPU_Mapped line per
# shard) matches the plan. A foreign shard is what the engine itself fails
# on, and serve refuses it first (C03).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$ROOT/tests/nginx.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state
trap 'engine_stop; nginx_stop; rm -rf "$TMP"' EXIT

mkdir -p www other
must "$ZEALOT" synth qwen35 --set split=3 -o www/sp.gguf || exit 1
must "$ZEALOT" synth qwen35 --set split=3 --set layers=10 -o other/sp.gguf || exit 1
nginx_start "$TMP/www" || { echo "not ok - nginx starts"; exit 0; }
port=$(free_port)
cat >live.env <<X
RUNTIME=$SERVER
MODEL_FILE=sp-00001-of-00003.gguf
MODEL_URL=http://127.0.0.1:$NGINX_PORT/sp-00001-of-00003.gguf
LISTEN_PORT=$port
CTX_SIZE=4096
PRESENCE_PENALTY=1.0
DEVICE=cpu
ADDRESSABLE_MIB=16384
X
run "$ZEALOT" fetch --pin live.env
check "split: fetch brings 3 shards and pins them" test "$rc" -eq 0 -a "$(grep -c '^MODEL_SHA256=.*,.*,' live.env)" = 1

"$ZEALOT" serve live.env >serve.log 2>&1 &
ENGINE_PID=$!
ENGINE_PORT=$port
ENGINE_LOG=$TMP/serve.log
up=0
! engine_up "$ENGINE_PID" "$port" || up=1
check "split: serve's gates pass and the engine answers /health" test "$up" = 1
[ "$up" = 1 ] || sed 's/^/#   /' serve.log | tail -20
check "split: every shard's SHA-256 verified at the pins gate" test "$(grep -c 'MODEL_FILE shard [123] of 3 SHA-256 verified' serve.log)" = 3
check "split: the engine was given the first shard" grep -qE -- '-m [^ ]*sp-00001-of-00003.gguf|sp-00001-of-00003.gguf' <(tr '\0' ' ' <"/proc/$ENGINE_PID/cmdline")
check "split: the engine loaded the other two by name" log_has "additional 2 GGUFs metadata loaded"
engine_post /v1/chat/completions '{"messages":[{"role":"user","content":"hi"}],"max_tokens":4}'
check "split: chat answers 200" test "$http" = 200
engine_stop
check "split: one CPU_Mapped line per shard in the boot ledger" test "$(grep -c 'CPU_Mapped model buffer size' serve.log)" = 3
run "$ZEALOT" ledger serve.log --endpoint live.env
check "split: the boot ledger matches the plan (every exact term)" rc_is 0
[ "$rc" = 0 ] || sed 's/^/#   /' "$TMP/out" | grep -i differs

# a foreign shard: the engine fails on it, serve refuses it before (C03)
cp other/sp-00002-of-00003.gguf sp-00002-of-00003.gguf
foreign_boot() {
	timeout 120 "$SERVER" -m sp-00001-of-00003.gguf -c 4096 --port "$(free_port)" >foreign.log 2>&1
	frc=$?
}
foreign_boot
check "foreign shard: the engine itself refuses to load (exit $frc)" \
	log_holds foreign.log 'failed to load|error loading model|corrupted model|invalid split' frc foreign_boot
grep -v -e '^MODEL_SHA256=' -e '^MODEL_BYTES=' live.env >nopin.env
run "$ZEALOT" serve nopin.env
check "foreign shard: serve refuses with 78 before the engine runs (C03)" test "$rc" -eq 78 -a -n "$(grep -F C03 "$TMP/err")"
run "$ZEALOT" serve live.env
check "foreign shard with pins: serve refuses (78)" rc_is 78
