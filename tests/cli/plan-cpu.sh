# zealot plan on another host's CPU: the engine's extra CPU buffers (AMX,
# CPU_REPACK) from the host's features, held against boot logs recorded on
# an Intel AMX host (tests/data/amx-boots), and the features' sources.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
DATA=$ROOT/tests/data/amx-boots

env_for() { # NAME [KEY=VALUE...]: a cpu endpoint like the recorded boots
	local name=$1
	shift
	{
		printf 'MODEL_FILE=%s.gguf\nCTX_SIZE=4096\nPARALLEL=2\nDEVICE=cpu\nSLACK_MIB=0\n' "$name"
		for kv in "$@"; do echo "$kv"; done
	} >"$name.env"
}

for log in "$DATA"/*.log; do
	name=$(basename "$log" .log)
	arch=${name%%-*}
	type=${name#*-}
	grep -q "model buffer size" "$log" || continue # the engine refused this one (see README)
	must "$ZEALOT" synth "$arch" --set type="$type" --set layers=4 --set embd=512 --set vocab=3000 -o "$name.gguf" || exit 1
	# the features come from the log itself, not from this test
	features=$("$ZEALOT" ledger "$log" --json | jq -r .cpu_features)
	env_for "$name" "CPU_FEATURES=$features"
	run "$ZEALOT" ledger "$log" --endpoint "$name.env" --json
	check "$name: every exact term equals the AMX host's ledger ($features)" rc_is 0
	lines=$(grep -c "model buffer size" "$log")
	check "$name: all $lines model buffers the engine printed are compared, and match" \
		json_is '[.comparison[]|select(.term=="model")|.match]|[length, all]' "[$lines,true]"
	check "$name: no CPU mismatch reported" json_is .cpu_mismatch null
	# the same payload planned for this host's features must not claim the AMX host's buffers
	run "$ZEALOT" plan "$name.env" --cpu-features none --json
	check "$name: with no CPU features everything stays in the mapping" \
		json_is '[.model[].device]' '["CPU_Mapped"]'
	run "$ZEALOT" plan "$name.env" --set REPACK=0 --json
	check "$name: REPACK=0 keeps every weight mapped (--no-repack)" json_is '[.model[].device]' '["CPU_Mapped"]'
done

# An AMX boot planned for an AVX2-only host: the model terms differ, and
# the ledger names the cause before anyone reads the numbers.
must "$ZEALOT" synth llama --set type=q4_0 --set layers=4 --set embd=512 --set vocab=3000 -o q40.gguf || exit 1
env_for q40 CPU_FEATURES=avx2
run "$ZEALOT" ledger "$DATA/llama-q4_0.log" --endpoint q40.env --json
check "avx2 plan of an AMX boot: an exact model term differs (exit 1)" rc_is 1
check "avx2 plan of an AMX boot: the mismatch names both feature sets" \
	jq -en 'input | (.cpu_mismatch|test("avx2 \\(CPU_FEATURES\\).*amx_int8"))' "$TMP/out"
run "$ZEALOT" plan q40.env --json
check "avx2: q4_0 matmuls with 8-row groups are repacked (CPU_REPACK), none in AMX" \
	json_is '[.model[].device]' '["CPU_Mapped","CPU_REPACK"]'
check "plan --json says which features it assumed and where from" json_is '.cpu' '{"features":"avx2","source":"CPU_FEATURES","extra_buffers":true}'
run "$ZEALOT" plan q40.env --cpu-features avx2,avx512,avx512_vnni,amx_int8 --json
check "--cpu-features overrides the key and says so" json_is '.cpu.source' '"--cpu-features"'
check "amx_int8 + avx512_vnni: the AMX buffer comes first, as the engine prints it" \
	json_is '[.model[].device]' '["AMX","CPU_Mapped","CPU_REPACK"]'
run "$ZEALOT" plan q40.env --cpu-features avx2,amx_int8 --json
check "amx_int8 without avx512_vnni: no AMX kernels are compiled" \
	json_is '[.model[].device]' '["CPU_Mapped","CPU_REPACK"]'
run "$ZEALOT" plan q40.env --cpu-features avx2,sse9
check "an unknown feature is a usage error naming it" rc_is 2
check "the error lists the known features" err_has "'sse9' is not a CPU feature zealot knows"
env_for q40b CPU_FEATURES=avx3
sed -i 's/q40b.gguf/q40.gguf/' q40b.env
run "$ZEALOT" plan q40b.env
check "a bad CPU_FEATURES names the file and key" err_has "q40b.env:6: CPU_FEATURES"
# With no key, the host's own features are read and named.
env_for q40h
sed -i 's/q40h.gguf/q40.gguf/' q40h.env
run "$ZEALOT" plan q40h.env --json
case "$(uname -m)" in
aarch64) want='"host AT_HWCAP"' ;;
*) want='"host /proc/cpuinfo"' ;;
esac
check "without CPU_FEATURES the plan reads this host ($want)" json_is .cpu.source "$want"
check "no sanitizer reports" no_sanitizer
