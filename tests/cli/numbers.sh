# One number format in every human report: MiB with two decimals and a
# comma every three digits (22,543.86), counts with commas and no
# decimals; inspect's bytes also in GiB and its file type named from the
# engine's llama_ftype list (or a fork's, marked custom); a refused plan
# names the commands that find a shape that fits.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state
commas() { python3 -c 'import sys; print(f"{float(sys.argv[1]):,.2f}")' "$1"; }
# a MiB figure of four digits or more without its commas (1234.56), or a
# count of cells, tokens or n_ctx without them (602112); a key's value
# (UBATCH_SIZE=1024, "was 1024") is written as the endpoint file has it
bare() {
	grep -nE '(^|[^0-9,])[0-9]{4,}\.[0-9]{2}([^0-9]|$)|(^|[^0-9,=])[0-9]{4,} (cells|tokens)|n_ctx(_seq)? [0-9]{4,}' "$1" |
		grep -vE 'steps of [0-9]+ tokens \(was [0-9]+\)'
}

mkdir payloads
must "$ZEALOT" synth --preset bonsai-9b --set type=142 -o payloads/bonsai-9b-pq2.gguf || exit 1
must "$ZEALOT" synth clip --preset bonsai-9b-mmproj --set projection_dim=4096 -o payloads/bonsai-9b-mmproj-q8.gguf || exit 1
must "$ZEALOT" synth lora --base payloads/bonsai-9b-pq2.gguf -o payloads/bonsai-9b-lora.gguf || exit 1
sed "s|=\.\./payloads/|=payloads/|" "$ROOT/examples/history/frank-zealot.env" >fz.env
echo CPU_FEATURES=avx2 >>fz.env

# plan: every figure in the one format, the total as --json has it
run "$ZEALOT" plan fz.env --no-calibration
cp "$TMP/out" plan.txt
total=$("$ZEALOT" plan fz.env --no-calibration --json | jq .total_mib)
check "plan: the total on the card as $(commas "$total")" grep -qE "^total on the card +$(commas "$total")" plan.txt
check "plan: the kv row's detail in commas (200,704 cells; K 9,408.00)" \
	grep -qF '200,704 cells, 8 layers, 3/3 seqs; K (f16)' plan.txt
check "plan: the context in commas" grep -qF 'context: n_ctx 602,112 = 3 slots x n_ctx_seq 200,704' plan.txt
check "plan: no figure without its commas" test -z "$(bare plan.txt)"
bare plan.txt | sed 's/^/#   /'
check "plan: the verdict's MiB above the band with two decimals" grep -qE '^verdict: fits, [0-9,]+\.[0-9]{2} MiB above' plan.txt
check "a plan that fits names no other command" test -z "$(grep -F 'hint:' plan.txt)"

# rungs and solve
run "$ZEALOT" rungs fz.env
cp "$TMP/out" rungs.txt
check "rungs: no figure without its commas" test -z "$(bare rungs.txt)"
bare rungs.txt | sed 's/^/#   /'
check "rungs: a rung's delta signed with two decimals" grep -qE '^ 1 .* [-+][0-9,]+\.[0-9]{2} +[0-9,]+\.[0-9]{2}  ' rungs.txt
run "$ZEALOT" solve fz.env
cp "$TMP/out" solve.txt
check "solve: no figure without its commas" test -z "$(bare solve.txt | grep -v '^[0-9]*:[A-Z_]*=')"

# ledger: the seeds' boot log against its endpoint
run "$ZEALOT" ledger "$ROOT/examples/history/frank-zealot-2026-10-19.journal" --endpoint fz.env
cp "$TMP/out" ledger.txt
check "ledger: counts as whole numbers with commas (n_ctx 602,112, not 602112.00)" \
	grep -qE '^context +n_ctx +602,112 +602,112 +0 ' ledger.txt
check "ledger: no count with decimals" test -z "$(grep -E '^[a-z_]+ +(n_ctx|n_ctx_seq|n_seq_max|cells|layers|seqs|streams|rs_seq) .*\.00 ' ledger.txt)"
check "ledger: MiB rows in the one format (kv 14,406.00)" grep -qE '^kv +mib +14,406\.00 +14,406\.00 ' ledger.txt
check "ledger: a field the log does not state is left out (no 'kv_unified ?')" test -z "$(grep -F 'kv_unified ?' ledger.txt)"
check "ledger: the target context's kv_unified as the log states it" grep -qF 'kv_unified false' ledger.txt
check "ledger: no figure without its commas" test -z "$(bare ledger.txt)"
bare ledger.txt | sed 's/^/#   /'
check "ledger: every line within 100 columns" test -z "$(awk 'length($0) > 100' ledger.txt)"

# inspect: GiB beside bytes, file types named
run "$ZEALOT" inspect payloads/bonsai-9b-pq2.gguf
cp "$TMP/out" inspect.txt
bytes=$(stat -c %s payloads/bonsai-9b-pq2.gguf)
gib=$(python3 -c "print(f'{$bytes / 2**30:.2f}')")
check "inspect: the file's bytes also in GiB ($gib)" grep -qF "bytes = $gib GiB" inspect.txt
check "inspect: file type 141 named PQ2_0, custom (not the engine's)" \
	grep -qE '^file type +141 = PQ2_0 \(custom: not in the engine.s llama_ftype list, law S10\)' inspect.txt
check "inspect: the weights in MiB and GiB" grep -qE '^weights +[0-9,]+ bytes \([0-9,]+\.[0-9]{2} MiB = [0-9]+\.[0-9]{2} GiB\)' inspect.txt
must "$ZEALOT" synth llama --set type=8 -o q8.gguf || exit 1
run "$ZEALOT" inspect q8.gguf
check "inspect: file type 7 is the engine's Q8_0" grep -qE '^file type +7 = Q8_0$' "$TMP/out"
run "$ZEALOT" inspect --json q8.gguf
check "inspect --json: file_type_name Q8_0, not custom" json_is '[.file_type, .file_type_name, .file_type_custom]' '[7,"Q8_0",false]'
run "$ZEALOT" inspect --json payloads/bonsai-9b-pq2.gguf
check "inspect --json: 141 is PQ2_0, custom" json_is '[.file_type, .file_type_name, .file_type_custom]' '[141,"PQ2_0",true]'

# a refused plan points at rungs and solve, on the file as named (quoted
# for a shell when its path needs it)
mkdir "a dir"
printf 'MODEL_FILE=%s\nCTX_SIZE=4096\nDEVICE=cpu\nADDRESSABLE_MIB=8\n' "$TMP/q8.gguf" >"a dir/small.env"
run "$ZEALOT" plan "a dir/small.env"
check "a refused plan: exit 1 and a hint naming rungs and solve on the file" \
	test "$rc" -eq 1 -a -n "$(unwrapped | grep -F "hint: zealot rungs 'a dir/small.env' lists each one-line change")" \
	-a -n "$(unwrapped | grep -F "zealot solve 'a dir/small.env' finds the best shape that fits")"
run "$ZEALOT" plan "a dir/small.env" --json
check "a refused plan --json: no hint in the JSON" test "$rc" -eq 1 -a "$(jq -r .verdict "$TMP/out")" = refused
run "$ZEALOT" plan fz.env --set CTX_SIZE=900000 --no-calibration
check "a plan refused by a law (S02): the hint too" test "$rc" -eq 1 -a -n "$(grep -F 'hint: zealot rungs fz.env' "$TMP/out")"
check "a refused plan: every line within 100 columns" test -z "$(awk 'length($0) > 100' "$TMP/out")"
