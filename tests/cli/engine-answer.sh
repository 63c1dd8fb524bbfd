# The live tests' verdict on a boot (tests/engine.sh: amx_fault_expected,
# engine_ask, check_answered, engine_start, boot_for_ledger), held to boots
# recorded on an Intel host with AMX (tests/data/amx-boots/). A stand-in
# engine (tests/fakeboot.py) prints a recorded log and then answers or dies
# by SIGILL, as the pinned engine did there: the AMX fault (law S16) is
# predicted from the log's own facts, a death by a signal is what the live
# tests then require, and an engine that answers where it should have died,
# or dies where it should have answered, fails the check. This host needs
# no AMX for it: the AMX branch is exercised here, on every host.
. "$(dirname "$0")/../lib.sh"
mkdir -p "$TMP/bin"
printf '#!/bin/sh\nexec python3 %s "$@"\n' "$(printf %q "$ROOT/tests/fakeboot.py")" >"$TMP/bin/llama-server"
chmod +x "$TMP/bin/llama-server"
ZEALOT_ENGINE=$TMP/bin
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1
A=$ROOT/tests/data/amx-boots
not() { ! "$@"; }

# 1. The prediction, from each recorded boot's own lines.
for l in llama-q4_0 llama-q4_1 llama-q4_K llama-q6_K llama-q8_0 qwen35-q8_0 gemma3-q4_0; do
	check "$l (AMX_INT8 = 1, AMX buffer, $(sed -nE 's/.*- type +([a-zA-Z0-9_]+): .*/\1/p' "$A/$l.log" | grep -v f32) weights): the AMX fault is expected" amx_fault_expected "$A/$l.log"
done
check "llama-f16 (AMX buffer, but f16 runs AVX-512 code there): no fault expected" not amx_fault_expected "$A/llama-f16.log"
check "llama-bf16 (no AMX buffer): no fault expected" not amx_fault_expected "$A/llama-bf16.log"
for l in "$ROOT"/tests/data/ledger/*.log; do
	check "$(basename "$l") (a host without AMX): no fault expected" not amx_fault_expected "$l"
done
sed 's/AMX_INT8 = 1/AMX_INT8 = 0/' "$A/llama-q4_0.log" >no-amx-isa.log
check "the q4_0 boot with AMX_INT8 = 0: no fault expected" not amx_fault_expected no-amx-isa.log
grep -v ' AMX model buffer size' "$A/llama-q4_0.log" >no-amx-buffer.log
check "the q4_0 boot without an AMX buffer (REPACK=0): no fault expected" not amx_fault_expected no-amx-buffer.log

# 2. The verdict through engine_start: SCENARIO LOG MODE WANT (ok|not ok).
verdict() {
	local what=$1 log=$2 mode=$3 want=$4 v
	FAKEBOOT_LOG=$log FAKEBOOT_MODE=$mode engine_start "v$RANDOM" -m none.gguf
	v=$(check_answered "$what" "$ENGINE_LOG")
	engine_stop
	check "$what: check_answered says '$want'" test "$(head -1 <<<"$v" | sed -E 's/ - .*//')" = "$want"
	[ "$want" = ok ] || return 0
	if [ "$mode" = sigill ]; then
		check "$what: the verdict names law S16" grep -qF 'S16' <<<"$v"
		check "$what: the engine died by SIGILL (status 132)" test "${ASK_EXIT:-}" = 132
	else
		check "$what: /health 200 and one completion" test "$ASK_HEALTH/$ASK_HTTP/$ASK_TOKENS" = 200/200/4
	fi
}
export FAKEBOOT_LOG FAKEBOOT_MODE
verdict "AMX host, q4_0 weights, engine dies" "$A/llama-q4_0.log" sigill ok
verdict "AMX host, q8_0 weights, engine answers (S16 would be wrong)" "$A/llama-q8_0.log" answer "not ok"
verdict "AMX host, f16 weights, engine answers" "$A/llama-f16.log" answer ok
verdict "AMX host, f16 weights, engine dies" "$A/llama-f16.log" sigill "not ok"
verdict "host without AMX, engine answers" "$ROOT/tests/data/ledger/qwen35-mtp-cpu.log" answer ok
verdict "host without AMX, engine dies by a signal" "$ROOT/tests/data/ledger/qwen35-mtp-cpu.log" sigill "not ok"
verdict "AMX host, q4_0 weights, engine exits 1 (not a signal)" "$A/llama-q4_0.log" exit1 "not ok"
FAKEBOOT_LOG=$A/llama-q4_0.log FAKEBOOT_MODE=sigill engine_start dies -m none.gguf
check "engine_start on a dying engine: returns 1 with ENGINE_STATUS 132 and no PID" \
	test "$?/${ENGINE_STATUS:-}/${ENGINE_PID:-none}" = 1/132/none

# 3. boot_for_ledger: the argv zealot renders, booted and asked.
must "$ZEALOT" synth llama --set layers=2 --set embd=256 --set vocab=300 -o b.gguf || exit 1
FAKEBOOT_LOG=$A/llama-q4_0.log FAKEBOOT_MODE=sigill boot_for_ledger b "CTX_SIZE=4096"
check "boot_for_ledger: the boot log is kept" cmp -s b.log "$A/llama-q4_0.log"
check "boot_for_ledger, AMX fault: the verdict passes and names S16" grep -qE '^ok - .*S16' <<<"$(check_answered b b.log)"
FAKEBOOT_LOG=$A/llama-f16.log FAKEBOOT_MODE=answer boot_for_ledger b "CTX_SIZE=4096"
check "boot_for_ledger, a healthy engine: asked /health and one completion" test "$ASK_HEALTH/$ASK_HTTP/$ASK_TOKENS" = 200/200/4
check "boot_for_ledger, a healthy engine: stopped by PID afterwards" test -z "$(jobs -p)"
