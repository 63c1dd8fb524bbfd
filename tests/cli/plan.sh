# zealot plan: the seeds' ledgers as test vectors, the fit gate's refusals,
# what-if overrides, and errors that name the key or the law.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

must "$ZEALOT" synth --preset bonsai-9b --set type=142 -o b9.gguf || exit 1
must "$ZEALOT" synth clip --preset bonsai-9b-mmproj --set projection_dim=4096 -o mm.gguf || exit 1
must "$ZEALOT" synth --preset bonsai-27b --set type=142 -o b27.gguf || exit 1

# The seeds' current shape (2026-10-19): 3 x 200,704, f16 K + q8_0 V, MTP armed.
cat >b9.env <<'X'
MODEL_FILE=b9.gguf
MMPROJ_FILE=mm.gguf
CTX_SIZE=602112
PARALLEL=3
CACHE_TYPE_K=f16
CACHE_TYPE_V=q8_0
BATCH_SIZE=6144
UBATCH_SIZE=1024
SPEC_TYPE=draft-mtp
SPEC_DRAFT_N_MAX=2
DEVICE=rtx3090
X
run "$ZEALOT" plan --json b9.env
check "9B current shape: exit 0 (fits)" rc_is 0
check "9B: KV 14,406.00 MiB = K 9,408.00 + V 4,998.00" json_is '[.kv.mib,.kv.k_mib,.kv.v_mib]' '[14406,9408,4998]'
check "9B: 200704 cells, 8 layers, 3/3 seqs" json_is '[.kv.cells,.kv.layers,.kv.seqs,.kv.streams]' '[200704,8,3,3]'
check "9B: draft KV 2,352.00 over the whole pool (law M05)" json_is '[.draft_kv.mib,.draft_kv.cells,.draft_kv.layers]' '[2352,200704,1]'
check "9B: recurrent armed 452.25 = R 20.25 + S 432.00 (law M04)" json_is '[.recurrent.mib,.recurrent.r_mib,.recurrent.s_mib,.recurrent.rs_seq]' '[452.25,20.25,432,2]'
check "9B: input embedding host-mapped 257.66 MiB" json_is '[.model[]|select(.device=="CPU_Mapped")|.mib]' '[257.66]'
check "9B: n_ctx 602112 = 3 x 200704" json_is '[.n_ctx,.n_ctx_seq,.n_seq]' '[602112,200704,3]'
check "9B: the projector is billed (law M06)" test "$(jq '.projector.mib > 0' "$TMP/out")" = true
run "$ZEALOT" plan --json b9.env --set SPEC_TYPE=none
check "9B unarmed: recurrent 150.75 MiB, no draft KV" json_is '[.recurrent.mib,.draft_kv.mib]' '[150.75,0]'
run "$ZEALOT" plan --json b9.env --set SPEC_TYPE=none --set CACHE_TYPE_V=f16
check "9B exact V at 602,112: KV 18,816 MiB (32,768 B/token)" json_is '.kv.mib' '18816'
run "$ZEALOT" plan --json b9.env --set CACHE_TYPE_K=q8_0 --set SPEC_TYPE=none
check "9B fully quantized pair: 17,408 B/token = 9,996 MiB" json_is '.kv.mib' '9996'

# The refusal the fit gate must prove (law M09), with the projector.
run "$ZEALOT" plan b9.env --set CTX_SIZE=786432 --set PARALLEL=3 --set CACHE_TYPE_V=f16 --set SPEC_TYPE=none --set UBATCH_SIZE=2048 --set BATCH_SIZE=4096
check "9B exact KV at 3 x 262,144 on rtx3090: refused (exit 1)" rc_is 1
check "9B exact KV at 3 x 262,144: says refused and names M09" out_has "refused"
run "$ZEALOT" plan --json b9.env --set CTX_SIZE=524288 --set PARALLEL=2 --set CACHE_TYPE_V=f16 --set SPEC_TYPE=none --set UBATCH_SIZE=2048 --set BATCH_SIZE=4096
check "9B exact KV at 2 x 262,144, drafter off: fits (exit 0)" rc_is 0
check "9B 2 x 262,144: KV 16,384 MiB, at least the slack free" test "$(jq '.kv.mib == 16384 and .free_mib >= 1024 and .verdict == "fits"' "$TMP/out")" = true
run "$ZEALOT" plan b9.env --set SLACK_MIB=30000
check "a slack band larger than the card: refused" rc_is 1

# The 27B era (2026-10-17): 2 x 200,704 q8_0 pair.
cat >b27.env <<'X'
MODEL_FILE=b27.gguf
CTX_SIZE=401408
PARALLEL=2
CACHE_TYPE_K=q8_0
CACHE_TYPE_V=q8_0
BATCH_SIZE=4096
UBATCH_SIZE=2048
DEVICE=rtx3090
X
run "$ZEALOT" plan --json b27.env
check "27B: KV 13,328.00 MiB over 16 full layers" json_is '[.kv.mib,.kv.layers]' '[13328,16]'
check "27B: context 13,627 = KV + 299.25 of recurrent state" json_is '[.recurrent.mib, (.kv.mib + .recurrent.mib)]' '[299.25,13627.25]'
run "$ZEALOT" plan --json b27.env --set CACHE_TYPE_K=q4_0 --set CACHE_TYPE_V=q4_0
check "27B q4_0 pair: KV 7,056 (18/32 B per element, law M02) + 299 = 7,355" json_is '[.kv.mib, (.kv.mib + .recurrent.mib)]' '[7056,7355.25]'
run "$ZEALOT" plan --json b27.env --set CACHE_TYPE_K=f16 --set CACHE_TYPE_V=f16
check "27B f16 pair: KV 25,088.00 MiB, refused" json_is '[.kv.mib,.verdict]' '[25088,"refused"]'

# Rounding the engine does: a pool not a multiple of 256 per slot.
run "$ZEALOT" plan --json b27.env --set CTX_SIZE=400000 --set PARALLEL=3
check "CTX_SIZE 400000 / 3 slots: n_ctx_seq padded to 133,376, n_ctx 400,128" json_is '[.n_ctx_seq,.n_ctx]' '[133376,400128]'
run "$ZEALOT" plan --json b27.env --set CTX_SIZE=4000 --set PARALLEL=1 --set KV_UNIFIED=1
check "CTX_SIZE 4000 unified: padded to 4096" json_is '[.n_ctx,.kv.streams]' '[4096,1]'

# The human table names the terms like the engine's ledger.
run "$ZEALOT" plan b9.env
for term in model kv recurrent draft_kv output compute draft_compute projector overhead addressable free slack verdict; do
	check "human table has '$term'" out_has "$term"
done

# Devices.
run "$ZEALOT" plan --json b9.env --device cpu --set ADDRESSABLE_MIB=100000
check "--device cpu bills host memory: no overhead, addressable from the key" json_is '[.device,.overhead_mib,.addressable_mib]' '["cpu",0,100000]'
run "$ZEALOT" plan b9.env --device nosuchcard
check "unknown device: exit 2" rc_is 2
check "unknown device: says so" err_has "not a known profile"

# Errors name the key, the line or the law.
printf 'MODEL_FILE=b9.gguf\nPARALLEL=2\n' >noctx.env
run "$ZEALOT" plan noctx.env
check "CTX_SIZE unset: exit 2 naming S01" test "$rc" -eq 2 -a -n "$(grep -F 'law S01' "$TMP/err")"
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=8192\nKV_CACHE_TYPE=q8_0\n' >typo.env
run "$ZEALOT" plan typo.env
check "invented KV_CACHE_TYPE: exit 2 with line and did-you-mean (C01)" \
	test "$rc" -eq 2 -a -n "$(grep -F 'typo.env:3: unknown key' "$TMP/err" | grep -F 'did you mean CACHE_TYPE')"
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=8192\nCACHE_TYPE_K=fp8\n' >fp8.env
run "$ZEALOT" plan fp8.env
check "fp8 cache type: exit 2 naming S04 and the allowed list" test "$rc" -eq 2 -a -n "$(grep -F 'S04' "$TMP/err" | grep -F 'q8_0')"
printf 'MODEL_FILE=missing.gguf\nCTX_SIZE=8192\n' >missing.env
run "$ZEALOT" plan missing.env
check "missing payload: exit 3 naming MODEL_FILE" test "$rc" -eq 3 -a -n "$(grep -F 'MODEL_FILE' "$TMP/err")"
run "$ZEALOT" plan b9.env --set NOPE=1
check "--set unknown key: exit 2" rc_is 2
run "$ZEALOT" plan "$TMP/none.env"
check "no endpoint file: exit 3" rc_is 3
run "$ZEALOT" plan --help
check "--help lists the devices" test "$rc" -eq 0 -a -n "$(grep -F rtx3090 "$TMP/out")"
check "no sanitizer report in any run" no_sanitizer

# The human report's shape, line for line (tests/data/expect/plan-frank.txt,
# written by `zealot plan examples/history/frank-zealot.env --cpu-features avx2` from
# the repository's root): the CPU features pinned, the card a profile, the
# host's memory only named.
(cd "$ROOT" && "$ZEALOT" plan examples/history/frank-zealot.env --cpu-features avx2) >frank.txt 2>&1
test_cmp "plan examples/history/frank-zealot.env: the report as expected" "$ROOT/tests/data/expect/plan-frank.txt" frank.txt
