# The CUDA bar of issue 13, against every CUDA figure in the seeds (no GPU,
# no engine): bench/cuda-seeds.sh plans each seeds' boot on a stand-in of
# the seeds' payload byte count and prints measured, planned, error; the
# compute terms must be within 3 %. The same rows with the CUDA rules
# turned off (ZEALOT_NO_CUDA_RULES=1) or the pinned engine's FA pairs
# (no f16-q8_0 kernel) must miss the bar, so the test holds the rules, not
# a number. Figures are modelled from source, not measured on a GPU here.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

# the example endpoints name payloads under examples/payloads (make examples)
run env ZEALOT="$ZEALOT" "$ROOT/bench/cuda-seeds.sh" --json
check "cuda-seeds: every seeds' row planned (exit 0)" rc_is 0
cp "$TMP/out" seeds.json

# row BOOT-PREFIX TERM BUFFER: the row's planned figure, its error
row() { jq -r --arg b "$1" --arg t "$2" --arg f "$3" \
	'.rows[] | select((.boot | startswith($b)) and .term == $t and .buffer == $f) | "\(.planned * 100 | round / 100) \(.error_pct)"' "$4"; }
within() { # FILE BOOT TERM BUFFER PCT
	local r
	r=$(row "$2" "$3" "$4" "$1")
	[ -n "$r" ] && awk -v e="${r#* }" -v p="$5" 'BEGIN { exit !(e <= p && e >= -p) }'
}
bar() { # BOOT TERM BUFFER MEASURED
	check "$1 $2 $3: within 3 % of the measured $4 ($(row "$1" "$2" "$3" seeds.json | tr ' ' '/')%)" \
		within seeds.json "$1" "$2" "$3" 3
}
b9="9B 3x200,704"
bar "$b9" compute CUDA0 1,665.00
bar "$b9" compute CUDA_Host 424.88
bar "$b9" draft_compute CUDA0 480.97
bar "$b9" draft_compute CUDA_Host 424.86
bar "27B 2x200,704 q8_0" compute CUDA0 1,272
bar "27B 1x262,144 q8_0" compute CUDA0 1,512
bar "27B 2x200,704 q4_0" compute CUDA0 1,272
bar "9B 2x262,144" compute all 2,496.13
check "9B 3x200,704: the stand-in's weights (synth bytes=) within 0.5 % of CUDA0 2,283.29" \
	within seeds.json "$b9" model CUDA0 0.5
check "9B 3x200,704: KV, draft KV and state exact" \
	test "$(jq -c '[.rows[] | select((.boot | startswith("9B 3x")) and (.term == "kv" or .term == "draft_kv" or .term == "recurrent")) | .error_pct]' seeds.json)" = "[0,0,0]"
check "every settled total within 1 % (the profile's runtime overhead)" \
	test "$(jq '[.rows[] | select(.term == "settled") | .error_pct | fabs] | max' seeds.json | awk '{ print ($1 <= 1) }')" = 1

# Without the CUDA rules the 9B target's card buffer is the CPU replay's.
grep -E '^(#|9B 3x)' "$ROOT/bench/cuda-seeds.tsv" >b9.tsv
run env ZEALOT="$ZEALOT" ZEALOT_NO_CUDA_RULES=1 "$ROOT/bench/cuda-seeds.sh" --json --rows b9.tsv
cp "$TMP/out" off.json
check "without the CUDA rules: the 9B target CUDA0 misses the bar ($(row "$b9" compute CUDA0 off.json | tr ' ' '/')%)" \
	eval '! within off.json "$b9" compute CUDA0 3'
# The pinned engine's pairs (GGML_CUDA_FA_ALL_QUANTS=OFF) have no f16 K +
# q8_0 V kernel: flash attention runs on the CPU and its cache views are
# copied into CUDA_Host.
sed 's/^9B 3x200,704 f16K+q8_0V MTP ub1024 (10-19, b10777)\tfrank-zealot.env\t-/pinned\tfrank-zealot.env\tCUDA_FA_QUANTS=f16-f16;q8_0-q8_0/' \
	"$ROOT/bench/cuda-seeds.tsv" | grep -E '^(#|pinned)' >pinned.tsv
run env ZEALOT="$ZEALOT" "$ROOT/bench/cuda-seeds.sh" --json --rows pinned.tsv
cp "$TMP/out" pinned.json
check "pinned FA pairs: the target's CUDA_Host misses the bar by the cache copies ($(row pinned compute CUDA_Host pinned.json | tr ' ' '/')%)" \
	eval '! within pinned.json pinned compute CUDA_Host 3'

# The one command also reads a real boot log against its endpoint.
run env ZEALOT="$ZEALOT" "$ROOT/bench/cuda-seeds.sh" --boot-log "$ROOT/examples/history/frank-zealot-2026-10-19.journal" \
	--endpoint "$ROOT/examples/history/frank-zealot.env" --json
check "--boot-log: the ledger's compute rows, held against the plan" \
	json_is '[.rows[] | select(.term == "compute" or .term == "draft_compute") | [.buffer, .measured, .planned]]' \
	'[["CUDA0",1665,1665],["CUDA_Host",424.88,424.88],["CUDA0",480.97,480.97],["CUDA_Host",424.86,424.86]]'
run env ZEALOT="$ZEALOT" "$ROOT/bench/cuda-seeds.sh" --boot-log nothing.log --endpoint "$ROOT/examples/history/frank-zealot.env"
check "--boot-log: an unreadable log exits 3" rc_is 3

# synth bytes=: the stand-in hits the byte count it is asked for.
must "$ZEALOT" synth --preset bonsai-27b --set type=142 --set bytes=7206168928 -o b27.gguf || exit 1
check "synth bytes=7,206,168,928: within 0.01 % ($(stat -c %s b27.gguf))" \
	awk -v n="$(stat -c %s b27.gguf)" 'BEGIN { e = (n - 7206168928) / 7206168928; exit !(e < 1e-4 && e > -1e-4) }'
run "$ZEALOT" synth --preset bonsai-9b --set type=q8_0 --set bytes=2675410720 -o x.gguf
check "synth bytes= on a stock type: refused (its sizes are fixed by its blocks)" \
	eval '[ "$rc" -ne 0 ] && grep -q "custom weight type" "$TMP/err"'

# plan says how it modelled a CUDA card, and where flash attention runs.
run "$ZEALOT" plan "$ROOT/examples/history/frank-zealot.env"
check "plan: compute rows say modelled from source, not measured on a GPU here" \
	test "$(grep -c '^compute .*modelled from source, not measured on a GPU here' "$TMP/out")" = 2
check "plan: the note names the pinned engine and the build's source" \
	out_has_unwrapped "(llama.cpp of 2026-09-12 (node-llama-cpp 3.21.1); sm_86); build: CUDA_FA_QUANTS="
run "$ZEALOT" plan --json "$ROOT/examples/history/frank-zealot.env" --set CUDA_FA_QUANTS=f16-f16
check "plan --json: without the pair's kernel, flash attention is off the card" json_is '.cuda.fa_on_card' 'false'
run "$ZEALOT" plan "$ROOT/examples/history/frank-zealot.env" --set CUDA_FA_QUANTS=f16-fp8
check "CUDA_FA_QUANTS: an unknown type is a usage error naming the key" \
	eval '[ "$rc" -eq 2 ] && grep -q CUDA_FA_QUANTS "$TMP/err"'

# A runtime's CMakeCache.txt wins over the key (law S14).
mkdir -p rt/build/bin
printf '#!/bin/sh\n' >rt/build/bin/llama-server
chmod +x rt/build/bin/llama-server
printf 'GGML_CUDA:BOOL=ON\nGGML_CUDA_FA_ALL_QUANTS:BOOL=OFF\n' >rt/build/CMakeCache.txt
run "$ZEALOT" plan --json "$ROOT/examples/history/frank-zealot.env" --set RUNTIME="$TMP/rt/build/bin/llama-server"
check "CMakeCache.txt with FA_ALL_QUANTS=OFF: no f16-q8_0 kernel, whatever CUDA_FA_QUANTS says" \
	json_is '[.cuda.fa_on_card, (.cuda.build_source | test("CMakeCache.txt: GGML_CUDA_FA_ALL_QUANTS=OFF"))]' '[false,true]'
run "$ZEALOT" check "$ROOT/examples/history/frank-zealot.env" --set RUNTIME="$TMP/rt/build/bin/llama-server"
check "check: S14 warns that the build has no f16 K + q8_0 V kernel" \
	out_has_unwrapped "compiles no flash-attention kernel for f16 K + q8_0 V"
printf 'GGML_CUDA:BOOL=ON\nGGML_CUDA_FA_ALL_QUANTS:BOOL=ON\n' >rt/build/CMakeCache.txt
run "$ZEALOT" check "$ROOT/examples/history/frank-zealot.env" --set RUNTIME="$TMP/rt/build/bin/llama-server"
check "check: no S14 when the build compiles every pair (GGML_CUDA_FA_ALL_QUANTS=ON)" eval '! out_has "S14"'
run "$ZEALOT" plan --json "$ROOT/examples/history/frank-zealot.env" --set RUNTIME="$TMP/rt/build/bin/llama-server"
check "CMakeCache.txt with FA_ALL_QUANTS=ON: the pair on the card, CUDA0 1,665.00" \
	json_is '[.cuda.fa_all, .cuda.fa_on_card, ([.compute[] | select(.device == "CUDA0") | .mib] | add)]' '[true,true,1665]'
