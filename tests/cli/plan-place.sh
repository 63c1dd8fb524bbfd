# zealot plan across devices (no engine): where layers, weights, caches and
# compute buffers go, every term per device in --json, the fit gate per
# device, argv's placement flags and check's placement laws. The live proof
# is tests/live/placement.sh (rpc-servers on loopback).
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
# every endpoint here pins CPU_FEATURES (avx2: no AMX buffer): the buffers the
# host's CPU features add (AMX on Intel Xeons, CPU_REPACK) would change the
# model's buffers by the host the test runs on

must "$ZEALOT" synth llama --set layers=8 -o l8.gguf || exit 1
must "$ZEALOT" synth qwen3moe --set layers=4 -o moe.gguf || exit 1

# The colleague's shape: two rpc-servers, -ngl 5 --tensor-split 1,2, 8 layers.
cat >two.env <<'X'
CPU_FEATURES=avx2
MODEL_FILE=l8.gguf
CTX_SIZE=8192
RPC=127.0.0.1:50061,127.0.0.1:50062
NGL=5
TENSOR_SPLIT=1,2
SLACK_MIB=0
X
run "$ZEALOT" plan --json two.env
check "two servers: fits (exit 0)" rc_is 0
check "two servers: offloaded 5 of 9" json_is '[.offloaded,.offloadable]' '[5,9]'
check "two servers: devices in the engine's order, then the host" \
	json_is '[.devices[].device]' '["RPC0[127.0.0.1:50061]","RPC0[127.0.0.1:50062]","host"]'
check "two servers: layers 2 + 2 and the output, 4 on the host" \
	json_is '[.devices[]|[.layers,.output_layer]]' '[[2,false],[2,true],[4,false]]'
check "two servers: model per buffer, named as the engine prints them" \
	json_is '[.model[].device]' '["CPU_Mapped","RPC0[127.0.0.1:50061]","RPC0[127.0.0.1:50062]"]'
check "two servers: KV per device (the engine's 16 + 8 + 8 MiB)" \
	json_is '[.kv.devices[]|[.device,.mib]]' '[["CPU",16],["RPC0[127.0.0.1:50061]",8],["RPC0[127.0.0.1:50062]",8]]'
check "two servers: a compute buffer per backend, the CPU last" \
	json_is '[.compute[].device]' '["RPC0[127.0.0.1:50061]","RPC0[127.0.0.1:50062]","CPU"]'
check "two servers: every term's entries say which device they bill" \
	json_is '[.kv.devices[].on]' '["host","RPC0[127.0.0.1:50061]","RPC0[127.0.0.1:50062]"]'
check "two servers: the output buffer is the host's" json_is '[.output[]|[.device,.on]]' '[["CPU","host"]]'
check "two servers: the totals add up per device" \
	test "$(jq '[.devices[].total_mib]|add|.*100|round' "$TMP/out")" = \
	"$(jq '([.model[].mib]+[.kv.devices[].mib]+[.compute[].mib]+[.output_mib])|add|.*100|round' "$TMP/out")"
check "two servers: no pipeline parallelism with layers on the CPU" json_is '.pipeline_parallel' 'false'
run "$ZEALOT" plan two.env
check "human table: a line per device" test "$(grep -c '^model ' "$TMP/out")" -eq 3
check "human table: offloaded 5/9 layers" out_has "offloaded 5/9 layers"

# Every layer on both: pipeline parallelism, which the engine turns off for
# overrides and for the CPU's KV.
run "$ZEALOT" plan --json two.env --set NGL=99
check "NGL 99 on two servers: pipeline parallelism" json_is '.pipeline_parallel' 'true'
run "$ZEALOT" plan --json two.env --set NGL=99 --set KV_OFFLOAD=0
check "KV_OFFLOAD=0: no pipeline, one KV buffer on the CPU" json_is '[.pipeline_parallel,[.kv.devices[].device]]' '[false,["CPU"]]'
run "$ZEALOT" plan --json two.env --set NGL=0
check "NGL 0: nothing offloaded, no device buffer but the servers' empty ones" \
	json_is '[.offloaded,[.model[].device],[.compute[].device]]' '[0,["CPU_Mapped"],["CPU"]]'

# --n-cpu-moe: the first layers' experts on the CPU, the rest on the server.
cat >moe.env <<'X'
CPU_FEATURES=avx2
MODEL_FILE=moe.gguf
CTX_SIZE=4096
RPC=127.0.0.1:50061
SLACK_MIB=0
X
run "$ZEALOT" plan --json moe.env
all=$(jq '[.model[]|select(.device|test("RPC"))|.mib]|add' "$TMP/out")
run "$ZEALOT" plan --json moe.env --set N_CPU_MOE=2
some=$(jq '[.model[]|select(.device|test("RPC"))|.mib]|add' "$TMP/out")
check "N_CPU_MOE=2: two layers' experts (3 MiB each) leave the server" \
	awk -v a="$all" -v s="$some" 'BEGIN { exit !(a - s > 5.99 && a - s < 6.01) }'
check "N_CPU_MOE=2: the CPU computes with them" json_is '[.compute[]|select(.device=="CPU")|.mib > 1]' '[true]'
run "$ZEALOT" plan --json moe.env --set 'OVERRIDE_TENSOR=blk\.[01]\.ffn_(up|down|gate)_exps=CPU'
check "the same by OVERRIDE_TENSOR" test "$(jq '[.model[]|select(.device|test("RPC"))|.mib]|add' "$TMP/out")" = "$some"

# The fit gate holds each device to its own memory.
run "$ZEALOT" plan --json two.env --set DEVICES=rpc:20,rpc:100000 --set SLACK_MIB=8
check "a server with 20 MiB: refused (exit 1)" rc_is 1
check "refused: the small server does not fit, the other does" json_is '[.devices[]|.fits]' '[false,true,true]'
run "$ZEALOT" check two.env --set DEVICES=rpc:20,rpc:100000 --set SLACK_MIB=8
check "check: M09 names the device short of memory" out_has "RPC0[127.0.0.1:50061]"

# A card: the CPU's compute buffer is the card's pinned host buffer.
must "$ZEALOT" synth --preset bonsai-9b --set type=142 -o b9.gguf || exit 1
cat >b9.env <<'X'
CPU_FEATURES=avx2
MODEL_FILE=b9.gguf
CTX_SIZE=602112
PARALLEL=3
CACHE_TYPE_K=f16
CACHE_TYPE_V=q8_0
BATCH_SIZE=6144
UBATCH_SIZE=1024
SPEC_TYPE=draft-mtp
SPEC_DRAFT_N_MAX=2
DEVICE=rtx3090
CUDA_FA_QUANTS=f16-q8_0;f16-f16
X
run "$ZEALOT" plan --json b9.env
check "9B on rtx3090: CUDA_Host compute 424.88 MiB, the seeds' measured figure" \
	json_is '[.compute[]|select(.device=="CUDA_Host")|.mib]' '[424.88]'
check "9B on rtx3090: draft CUDA0 480.97 + CUDA_Host 424.86, both measured" \
	json_is '[.draft_compute[]|.mib]' '[480.97,424.86]'
check "9B on rtx3090: the output in CUDA_Host, the host holds it" json_is '[.output[]|[.device,.on]]' '[["CUDA_Host","host"]]'
must "$ZEALOT" synth --preset bonsai-27b --set type=142 -o b27.gguf || exit 1
printf 'MODEL_FILE=b27.gguf\nCTX_SIZE=401408\nPARALLEL=2\nCACHE_TYPE_K=q8_0\nCACHE_TYPE_V=q8_0\nBATCH_SIZE=4096\nUBATCH_SIZE=2048\nDEVICE=rtx3090\nCUDA_FA_SCRATCH=0\n' >b27.env
run "$ZEALOT" plan --json b27.env
c=$(jq '.compute[]|select(.device=="CUDA0")|.mib' "$TMP/out")
check "27B 2 x 200,704 ubatch 2048: CUDA0 compute within 1 % of the measured 1,272 ($c)" \
	awk -v c="$c" 'BEGIN { e = (c - 1272) / 1272; exit !(e < 0.01 && e > -0.01) }'
run "$ZEALOT" plan --json b27.env --set DEVICE=cpu --set DEVICES=rtx3090,rtx3090 --set TENSOR_SPLIT=1,1
check "two 3090s: CUDA0 and CUDA1, each with its own overhead" \
	json_is '[.devices[0:2][]|.device],[.overhead[]|.mib]' '["CUDA0","CUDA1"]
[387,387]'
check "two 3090s: 1,1 splits the 65 layers at 0.5: 33, then 31 and the output" \
	json_is '[.devices[0:2][]|[.layers,.output_layer]]' '[[33,false],[31,true]]'
check "two 3090s: every card lends the CPU list no extra buffer: no CPU_REPACK" \
	json_is '[.model[].device]' '["CPU_Mapped","CUDA0","CUDA1"]'

# argv renders the placement keys, --rpc before -ot, -ot before --n-cpu-moe.
printf 'MODEL_FILE=moe.gguf\nCTX_SIZE=4096\nRPC=127.0.0.1:7\nOVERRIDE_TENSOR=attn=RPC0[127.0.0.1:7]\nN_CPU_MOE=1\nKV_OFFLOAD=0\nSPLIT_MODE=none\nTENSOR_SPLIT=1\n' >a.env
run "$ZEALOT" argv a.env
check "argv: --rpc, --split-mode, --tensor-split, --override-tensor, --n-cpu-moe, --no-kv-offload in order" \
	test "$(grep -nE '^--(rpc|split-mode|tensor-split|override-tensor|n-cpu-moe|no-kv-offload)$' "$TMP/out" | cut -d: -f2 | tr '\n' ' ')" = \
	"--rpc --split-mode --tensor-split --override-tensor --n-cpu-moe --no-kv-offload "
run "$ZEALOT" argv two.env
check "argv: layer split and KV offload are the engine's defaults: not rendered" \
	test -z "$(grep -E '^--(split-mode|no-kv-offload|n-cpu-moe)$' "$TMP/out")"

# check: values the engine would refuse, or zealot cannot mirror.
bad() { # NAME KEY=VALUE NEEDLE
	run "$ZEALOT" check two.env --set "$2"
	check "check refuses $1 (C02)" test "$rc" -eq 1 -a -n "$(unwrapped | grep -F C02 | grep -F -- "$3")"
}
bad "a server that is not HOST:PORT" 'RPC=localhost' 'HOST:PORT'
bad "a server listed twice" 'RPC=a:1,a:1' 'twice'
bad "more shares than devices" 'TENSOR_SPLIT=1,1,1' 'TENSOR_SPLIT'
bad "row split with an RPC server" 'SPLIT_MODE=row' 'split buffers'
bad "a buffer no device has" 'OVERRIDE_TENSOR=attn=CUDA0' 'CUDA0'
bad "an ECMAScript-only pattern" 'OVERRIDE_TENSOR=blk\.\d+=CPU' 'ECMAScript'
bad "a broken pattern" 'OVERRIDE_TENSOR=blk.(=CPU' 'not a valid pattern'
bad "DEVICES out of the engine's order" 'DEVICES=rtx3090,rpc,rpc' 'first'
run "$ZEALOT" check two.env --set N_CPU_MOE=2
check "check warns: N_CPU_MOE on a dense payload" test -n "$(grep -F 'warning C02' "$TMP/out" | grep -F 'no experts')"
run "$ZEALOT" plan two.env --set 'OVERRIDE_TENSOR=\w=CPU'
check "plan refuses what check refuses (exit 2, naming the key)" test "$rc" -eq 2 -a -n "$(grep -F OVERRIDE_TENSOR "$TMP/err")"
check "no sanitizer report in any run" no_sanitizer
