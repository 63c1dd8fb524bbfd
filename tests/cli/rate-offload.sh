# The decode rate under partial offload (src/plan/rate.c): plan's --json
# splits it per device (bytes and ms per token, each at its bandwidth), only
# the experts used are read, N_CPU_MOE moves exactly the active experts'
# bytes to the host's bandwidth (HOST_BW_GBS), and rungs and solve compare
# "all on the card, 2 slots" with "experts of k blocks on the host, 3 slots".
# Expected figures are computed here from the synth geometry, not read back.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

# Qwen3-30B-A3B's geometry at q4_K (144 bytes per 256 weights), zero weights.
L=48 E=2048 X=128 U=8 F=768
"$ZEALOT" synth qwen3moe --set layers=$L --set embd=$E --set heads=32 --set kv_heads=4 --set head_dim=128 \
	--set rope_dims=128 --set experts=$X --set experts_used=$U --set ff_exp=$F --set vocab=151936 \
	--set ctx=40960 --set type=q4_K -o q30.gguf 2>/dev/null
must "$ZEALOT" synth llama --set layers=8 -o dense.gguf || exit 1
cat >q30.env <<'X'
MODEL_FILE=q30.gguf
CTX_SIZE=65536
PARALLEL=2
DEVICE=rtx3090
X
# one block's expert stacks (gate, up, down), and the part a token reads
stack=$((3 * E * F * X * 144 / 256))
active=$((stack * U / X))

run "$ZEALOT" plan --json q30.env
cp "$TMP/out" all.json
check "all on the card: fits" rc_is 0
check "all on the card: no sanitizer report" no_sanitizer
check "all on the card: the decode is read on CUDA0 alone, at 936 GB/s" \
	json_is '[.decode.devices[]|select(.bytes_per_token > 0)|[.device,.bandwidth_gbs]]' '[["CUDA0",936]]'
check "the expert share is experts_used / experts ($U/$X)" json_is '.decode.expert_share' "$(jq -n "$U/$X")"
check "the host bandwidth defaults to the cpu profile's 51 GB/s" json_is '.decode.host_bw_gbs' 51

run "$ZEALOT" plan --json q30.env --set N_CPU_MOE=12
cp "$TMP/out" moe12.json
host() { jq "[.decode.devices[]|select(.device == \"host\")|$2][0]" "$1"; }
check "N_CPU_MOE=12: the host reads the active experts of 12 blocks ($((12 * active)) B)" \
	test "$(host moe12.json .bytes_per_token)" = $((12 * active))
check "N_CPU_MOE=12: the card reads that much less" \
	test "$(jq '[.decode.devices[]|select(.device == "CUDA0")|.bytes_per_token][0]' all.json)" = \
	"$(($(jq '[.decode.devices[]|select(.device == "CUDA0")|.bytes_per_token][0]' moe12.json) + 12 * active))"
check "N_CPU_MOE=12: host ms = its bytes / 51 GB/s" \
	test "$(jq -n "($(host moe12.json .ms_per_token) - $((12 * active)) / 51e6) | fabs < 1e-3")" = true
check "the time per token is the sum of the devices' ms" \
	test "$(jq '((.decode.devices | map(.ms_per_token) | add) - .decode.ms_per_token) | fabs < 1e-3' moe12.json)" = true
check "the ceiling is 1000 / the summed ms" \
	test "$(jq '(.decode.ceiling_tps - 1000 / .decode.ms_per_token) | fabs < 0.05' moe12.json)" = true
run "$ZEALOT" plan --json q30.env --set N_CPU_MOE=12 --set HOST_BW_GBS=102
check "HOST_BW_GBS=102 halves the host's ms against 51" \
	test "$(jq -n "($(jq '[.decode.devices[]|select(.device == "host")|.ms_per_token][0]' "$TMP/out") * 2 - $(host moe12.json .ms_per_token)) | fabs < 2e-4")" = true
run "$ZEALOT" plan q30.env --set N_CPU_MOE=12
check "plan's text names each device's part of a token" out_has "host 243.00 MiB"
run "$ZEALOT" plan q30.env --set HOST_BW_GBS=0
check "HOST_BW_GBS=0 is refused, naming the key (exit 2)" \
	sh -c "[ $rc -eq 2 ] && grep -q HOST_BW_GBS '$TMP/err'"

# rungs: the quarters, and one conversation more with the fewest expert
# blocks on the host that make room for it.
run "$ZEALOT" rungs --json q30.env
cp "$TMP/out" rungs.json
check "rungs: exit 0" rc_is 0
check "rungs: N_CPU_MOE at a quarter, half, three quarters and all of the blocks" \
	json_is '[.rungs[]|select((.keys|keys) == ["N_CPU_MOE"])|.keys.N_CPU_MOE|tonumber]|sort' '[12,24,36,48]'
check "rungs: more experts on the host, slower decode (ratios fall with N)" \
	test "$(jq '[.rungs[]|select((.keys|keys) == ["N_CPU_MOE"])] | sort_by(.keys.N_CPU_MOE|tonumber) | [.[].cost.decode_ratio] | . as $r | [range(1; length) | $r[.] < $r[. - 1]] | all and ($r[0] < 1)' rungs.json)" = true
check "rungs: 3 slots at the same window with the card alone is refused" \
	test "$(jq -c '[.rungs[]|select(.line == "CTX_SIZE=98304 PARALLEL=3")|.verdict]' rungs.json)" = '["refused"]'
k=$(jq -r '[.rungs[]|select(.keys.PARALLEL == "3" and .keys.N_CPU_MOE)|.keys.N_CPU_MOE][0]' rungs.json)
check "rungs: 3 slots with the experts of $k blocks on the host fits" \
	test "$(jq -c "[.rungs[]|select(.line == \"CTX_SIZE=98304 PARALLEL=3 N_CPU_MOE=$k\")|.verdict]" rungs.json)" = '["fits"]'
run "$ZEALOT" plan --json q30.env --set CTX_SIZE=98304 --set PARALLEL=3 --set N_CPU_MOE="$k"
check "plan --set of that rung fits, with the rung's free MiB" \
	test "$(jq .free_mib "$TMP/out")" = "$(jq "[.rungs[]|select(.line == \"CTX_SIZE=98304 PARALLEL=3 N_CPU_MOE=$k\")|.free_mib][0]" rungs.json)"
ms3=$(jq .decode.ms_per_token "$TMP/out")
run "$ZEALOT" plan --json q30.env --set CTX_SIZE=98304 --set PARALLEL=3 --set N_CPU_MOE=$((k - 1))
check "one block fewer ($((k - 1))) leaves no room for the third slot" json_is .verdict '"refused"'
check "the rung's decode ratio is the endpoint's ms over plan's ms for it" \
	test "$(jq -n "($(jq .decode.ms_per_token all.json) / $ms3 - $(jq "[.rungs[]|select(.line == \"CTX_SIZE=98304 PARALLEL=3 N_CPU_MOE=$k\")|.cost.decode_ratio][0]" rungs.json)) | fabs < 1e-3")" = true
check "the rung's words name the host's part" \
	test "$(jq "[.rungs[]|select(.line == \"CTX_SIZE=98304 PARALLEL=3 N_CPU_MOE=$k\")|.cost.words|test(\"experts of the first $k blocks on the host\")][0]" rungs.json)" = true

# solve: the fastest decode with 3 slots at the endpoint's window or more
run "$ZEALOT" solve --json q30.env --maximize rate --slots 3 --vary CACHE_TYPE_K=f16 --vary CACHE_TYPE_V=f16 \
	--vary UBATCH_SIZE=512
cp "$TMP/out" solve.json
check "solve --maximize rate --slots 3: exit 0" rc_is 0
check "solve: N_CPU_MOE is an axis of the space (the endpoint's, none and the quarters)" \
	json_is '.space.N_CPU_MOE|map(tonumber)|sort' '[0,12,24,36,48]'
check "solve: the fastest 3-slot shape puts the same $k expert blocks on the host as the rung" \
	json_is '[.best.slots, .best.keys.N_CPU_MOE]' "[3,\"$k\"]"
check "solve: its window is at least the endpoint's 32,768" test "$(jq .best.window solve.json)" -ge 32768
check "solve: its decode ratio is below 1 (slower than all on the card)" \
	test "$(jq '.best.decode.ratio < 1 and .base.decode.ratio == 1' solve.json)" = true
sets=$(jq -r '.best.keys | to_entries[] | "--set=\(.key)=\(.value)"' solve.json)
# shellcheck disable=SC2086
run "$ZEALOT" plan --json q30.env $sets
check "solve: plan --set of the best's lines fits with its free MiB" \
	test "$(jq -c '[.verdict,.free_mib]' "$TMP/out")" = "$(jq -c '["fits",.best.plan.free_mib]' solve.json)"
check "solve: the frontier carries shapes with experts on the host" \
	test "$(jq '[.frontier[]|select(.keys.N_CPU_MOE)]|length > 0' solve.json)" = true

# No experts, or no card: no such axis and no such rung.
cat >dense.env <<'X'
MODEL_FILE=dense.gguf
CTX_SIZE=8192
DEVICE=rtx3090
X
run "$ZEALOT" rungs --json dense.env
check "a dense payload: no N_CPU_MOE rung" json_is '[.rungs[]|select(.keys.N_CPU_MOE)]|length' 0
run "$ZEALOT" solve --json q30.env --device cpu --vary CACHE_TYPE_K=f16 --vary CACHE_TYPE_V=f16 --vary UBATCH_SIZE=512 --slots 1
check "on cpu (no card): no N_CPU_MOE axis" json_is '.space|has("N_CPU_MOE")' false
check "on cpu: the whole token is read on the host at 51 GB/s" \
	json_is '[.base.decode.devices[]|select(.bytes_per_token > 0)|[.device,.bandwidth_gbs]]' '[["host",51]]'
run "$ZEALOT" rungs q30.env --host-bw -1
check "--host-bw -1 is a usage error" rc_is 2

# The input layer (LLM_TENSOR_LAYER_INPUT: token_embd, per_layer_token_embd,
# position_embd, token_types) is gathered a row per token, not streamed:
# with a dense model wholly on the card, what a token reads there is
# exactly plan's CUDA0 weights (gemma3n: its per-layer token embeddings,
# 6.25 MiB here, sit on the host and were counted as read on the card).
must "$ZEALOT" synth gemma3n -o g3n.gguf || exit 1
printf 'MODEL_FILE=g3n.gguf\nCTX_SIZE=4096\nDEVICE=rtx3090\n' >g3n.env
run "$ZEALOT" plan --json g3n.env
check "gemma3n: plan exits 0" rc_is 0
check "gemma3n: the decode reads on CUDA0 exactly plan's CUDA0 weights (the input layer gathered, not streamed)" \
	test "$(jq '[.model[]|select(.device=="CUDA0").mib][0]' "$TMP/out")" = \
	"$(jq '[.decode.devices[]|select(.device=="CUDA0").weights_mib][0]' "$TMP/out")"
check "gemma3n: the per-layer token embeddings are on the host, in the plan" \
	test "$(jq '[.model[]|select(.device=="CPU_Mapped").mib][0] > 0' "$TMP/out")" = true

# LFM2's final norm is named token_embd_norm (LLM_TENSOR_OUTPUT_NORM_LFM2):
# an output-layer tensor, where -ngl 1 puts it on the card. plan and rate
# place it by one rule (place_tensor_layer); 32 KiB at embd 8192, which rate
# had counted on layer 0's device (the host): 8.00 against 8.03 MiB.
"$ZEALOT" synth lfm2 --set embd=8192 --set heads=64 --set kv_heads=8 --set head_dim=128 --set rope_dims=128 \
	-o l2.gguf 2>/dev/null
printf 'MODEL_FILE=l2.gguf\nCTX_SIZE=4096\nDEVICE=rtx3090\nNGL=1\n' >l2.env
run "$ZEALOT" plan --json l2.env
check "lfm2 -ngl 1: plan exits 0" rc_is 0
check "lfm2 -ngl 1: the decode reads on CUDA0 exactly plan's CUDA0 weights (the final norm in the output layer)" \
	jq -en 'input | [.model[]|select(.device=="CUDA0").mib][0] as $m | $m > 8 and $m == [.decode.devices[]|select(.device=="CUDA0").weights_mib][0]' "$TMP/out"
