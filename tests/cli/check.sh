# zealot check: for each law, an endpoint that breaks it (the right id,
# severity and exit status) and one that does not (the id absent).
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

must "$ZEALOT" synth qwen35 -o q.gguf || exit 1
must "$ZEALOT" synth llama -o l.gguf || exit 1
must "$ZEALOT" synth qwen35 --set mtp_tensors=0 -o ghost.gguf || exit 1
must "$ZEALOT" synth qwen35 --set type=142 -o pq.gguf || exit 1
must "$ZEALOT" synth clip -o mm.gguf || exit 1
must "$ZEALOT" synth llama --set head_dim=80 --set rope_dims=80 -o h80.gguf || exit 1
must "$ZEALOT" synth gemma3 --set head_dim=96 --set rope_dims=96 -o g96.gguf || exit 1
must "$ZEALOT" synth lora --base q.gguf -o lora.gguf || exit 1
must "$ZEALOT" synth lora --base q.gguf --set touch_embd=1 -o lora-embd.gguf || exit 1
must "$ZEALOT" synth lora --base l.gguf -o lora-llama.gguf || exit 1
must "$ZEALOT" synth lora --base q.gguf --set base_name=other.gguf -o lora-other.gguf || exit 1
must "$ZEALOT" synth llama --set vocab=600 --set embd_rows=512 -o rows.gguf || exit 1
must "$ZEALOT" synth llama --set kv_heads_meta=4 -o kvh.gguf || exit 1
must "$ZEALOT" synth t5encoder -o t5.gguf || exit 1
printf '#!/bin/sh\nexec true\n' >rt.sh && chmod +x rt.sh
printf 'echo no shebang\n' >noshebang.sh && chmod +x noshebang.sh
printf 'key\n' >apikey

# A clean endpoint: every law holds.
base() {
	cat <<X
RUNTIME=$TMP/rt.sh
MODEL_FILE=q.gguf
CTX_SIZE=8192
PARALLEL=2
PRESENCE_PENALTY=
DEVICE=cpu
ADDRESSABLE_MIB=16384
X
}
base >clean.env
run "$ZEALOT" check clean.env
check "clean endpoint: exit 0" rc_is 0
check "clean endpoint: 0 errors, 0 warnings" out_has "0 errors, 0 warnings"

# expect NAME LAW SEVERITY "KEY=VALUE lines (|-separated)": the law fires.
expect() {
	local name=$1 law=$2 sev=$3 lines=$4 want_rc=0
	[ "$sev" = error ] && want_rc=1
	# later lines override the base: keep the last value of each key
	{
		base
		echo "$lines" | tr '|' '\n'
	} | tac | awk -F= '!seen[$1]++' | tac >"$name.env"
	run "$ZEALOT" check --json "$name.env"
	check "$law ($name): exit $want_rc" rc_is "$want_rc"
	check "$law ($name): a $sev finding with the law id" \
		test "$(jq --arg l "$law" --arg s "$sev" '[.findings[]|select(.law==$l and .severity==$s)]|length' "$TMP/out")" -ge 1
}
# absent NAME LAW "lines": the law does not fire.
absent() {
	local name=$1 law=$2 lines=$3
	{
		base
		echo "$lines" | tr '|' '\n'
	} | tac | awk -F= '!seen[$1]++' | tac >"$name.env"
	run "$ZEALOT" check --json "$name.env"
	check "$law ($name): not raised" test "$(jq --arg l "$law" '[.findings[]|select(.law==$l)]|length' "$TMP/out")" -eq 0
}

expect unknown C01 error "KV_CACHE_TYPE=q8_0"
run "$ZEALOT" check unknown.env
check "C01: did-you-mean and the line" test -n "$(grep -F 'unknown.env:8: unknown key' "$TMP/out" | grep -F 'did you mean')"
expect empty-parallel C02 error "PARALLEL="
absent empty-mmproj C02 "MMPROJ_FILE="
expect bad-number C02 error "UBATCH_SIZE=lots"
expect bad-enum C02 error "FLASH_ATTN=maybe"
expect bad-sha C02 error "MODEL_SHA256=abc"
expect missing-model C03 error "MODEL_FILE=nowhere.gguf"
expect missing-mmproj C03 error "MMPROJ_FILE=nowhere-mmproj.gguf"
expect missing-runtime C03 error "RUNTIME=$TMP/no-such-server"
expect not-in-path C03 error "RUNTIME=no-such-server-in-path"
printf 'GGUF\3\0\0\0' >trunc.gguf
expect corrupt-model C03 error "MODEL_FILE=trunc.gguf"
expect metrics-off C04 warning "METRICS=0"
absent metrics-on C04 "METRICS=1"
expect verbosity-3 C05 warning "VERBOSITY=3"
absent verbosity-4 C05 "VERBOSITY=4"
# C07 warns only where the payload states a sampler the engine drops: a
# minimal endpoint on a payload that states none (or only the ones the
# engine reads: temp, top_p, top_k) checks with no warning at all
printf 'RUNTIME=%s\nMODEL_FILE=q.gguf\nCTX_SIZE=8192\n' "$TMP/rt.sh" >minimal.env
run "$ZEALOT" check --json minimal.env
check "C07: a minimal endpoint (RUNTIME, MODEL_FILE, CTX_SIZE): exit 0, no warning" \
	test "$rc" -eq 0 -a "$(jq '.warnings' "$TMP/out")" = 0
python3 "$ROOT/tests/gguf-addkv.py" q.gguf pp.gguf general.sampling.presence_penalty=1.5
base | grep -v '^PRESENCE_PENALTY' | sed 's/^MODEL_FILE=.*/MODEL_FILE=pp.gguf/' >presence-unset.env
run "$ZEALOT" check --json presence-unset.env
check "C07 (the payload states presence_penalty 1.5, the endpoint none): exit 0, warned" \
	test "$rc" -eq 0 -a "$(jq '[.findings[]|select(.law=="C07" and .severity=="warning")]|length' "$TMP/out")" -eq 1
check "C07: the fix writes the payload's own value" \
	test -n "$(jq -r '.findings[]|select(.law=="C07")|.fix' "$TMP/out" | grep -F 'PRESENCE_PENALTY=1.5')"
absent presence-set C07 "MODEL_FILE=pp.gguf|PRESENCE_PENALTY=1.5"
absent presence-optout C07 "MODEL_FILE=pp.gguf|PRESENCE_PENALTY="
run "$ZEALOT" check presence-unset.env
check "C07: no word the docs do not define (recipe)" test -z "$(grep -i recipe "$TMP/out")"
expect no-shebang C08 error "RUNTIME=$TMP/noshebang.sh"
chmod -x noshebang.sh
expect not-executable C08 error "RUNTIME=$TMP/noshebang.sh"
expect indivisible M03 error "CTX_SIZE=8193"
expect zero-slots M03 error "PARALLEL=0"
expect refused M09 error "ADDRESSABLE_MIB=100"
base | grep -v '^CTX_SIZE' >no-ctx.env
run "$ZEALOT" check --json no-ctx.env
check "S01 (CTX_SIZE unset): exit 1, error" test "$rc" -eq 1 -a "$(jq '[.findings[]|select(.law=="S01" and .severity=="error")]|length' "$TMP/out")" -ge 1
expect fit-on S01 error "EXTRA_ARGS=--fit on"
expect window S02 error "CTX_SIZE=131072|PARALLEL=1"
absent window-ok S02 "CTX_SIZE=65536|PARALLEL=2"
expect quant-v-no-fa S03 error "CACHE_TYPE_V=q8_0|FLASH_ATTN=off"
expect quant-v-auto S03 error "CACHE_TYPE_V=q4_0|FLASH_ATTN=auto"
absent quant-v-fa S03 "CACHE_TYPE_V=q8_0|FLASH_ATTN=on"
# S04: a quantized cache's block must divide the payload's head size
# (80 is not a multiple of q8_0's 32; 96 is, but not of q4_K's 256)
expect s04-v-block S04 error "MODEL_FILE=h80.gguf|CACHE_TYPE_V=q8_0|FLASH_ATTN=on"
expect s04-k-block S04 error "MODEL_FILE=g96.gguf|CACHE_TYPE_K=q4_K"
expect s04-k-block-fa-off S04 error "MODEL_FILE=h80.gguf|CACHE_TYPE_K=q8_0|FLASH_ATTN=off"
absent s04-v-block-fa-off S04 "MODEL_FILE=h80.gguf|CACHE_TYPE_V=q8_0|FLASH_ATTN=off"
absent s04-divides S04 "MODEL_FILE=g96.gguf|CACHE_TYPE_K=q8_0|CACHE_TYPE_V=q8_0"
expect fp8 S04 error "CACHE_TYPE_K=fp8"
expect fp8-draft S04 error "SPEC_DRAFT_TYPE_V=e4m3"
expect half-set S05 error "EXTRA_ARGS=--spec-draft-n-max 3"
expect spec-none-keys S05 warning "SPEC_TYPE=none|SPEC_DRAFT_N_MAX=2"
absent spec-armed S05 "SPEC_TYPE=draft-mtp|SPEC_DRAFT_N_MAX=2"
expect ghost S06 error "MODEL_FILE=ghost.gguf|SPEC_TYPE=draft-mtp"
expect no-head S06 error "MODEL_FILE=l.gguf|SPEC_TYPE=draft-mtp"
absent head S06 "SPEC_TYPE=draft-mtp"
expect two-drafters S07 error "SPEC_TYPE=draft-mtp,draft-eagle3"
run "$ZEALOT" check --json two-drafters.env
check "S07: value outside the enum is also C02" test "$(jq '[.findings[]|select(.law=="C02")]|length' "$TMP/out")" -ge 1
expect ngram-hybrid S07 warning "SPEC_TYPE=draft-mtp,ngram-mod"
absent ngram-dense S07 "MODEL_FILE=l.gguf|SPEC_TYPE=ngram-mod"
expect ubatch S08 error "BATCH_SIZE=256|UBATCH_SIZE=512"
expect batch-below-slots S08 error "CTX_SIZE=8192|PARALLEL=4|BATCH_SIZE=2|UBATCH_SIZE=2"
absent batch-equal-slots S08 "CTX_SIZE=8192|PARALLEL=4|BATCH_SIZE=4|UBATCH_SIZE=4"
expect tight-drafter S09 warning "SPEC_TYPE=draft-mtp|ADDRESSABLE_MIB=1600|SLACK_MIB=1024"
absent roomy-drafter S09 "SPEC_TYPE=draft-mtp|ADDRESSABLE_MIB=16384"
expect custom-type S10 warning "MODEL_FILE=pq.gguf"
absent stock-types S10 ""
expect lora-embd S12 error "LORA_FILE=lora-embd.gguf"
expect lora-arch S12 error "LORA_FILE=lora-llama.gguf"
expect lora-other S12 warning "LORA_FILE=lora-other.gguf"
expect lora-not-adapter S12 error "LORA_FILE=mm.gguf"
# S18: a drafter as the model (qwen35 renamed eagle3, its keys with it)
python3 -c 'import sys; b = open("q.gguf", "rb").read(); open("e3.gguf", "wb").write(b.replace(b"qwen35", b"eagle3"))'
expect drafter-model S18 error "MODEL_FILE=e3.gguf"
absent text-model S18 "MODEL_FILE=q.gguf"
# S19: t5encoder over a KV stream a slot aborts at load; one stream holds
expect t5-streams S19 error "MODEL_FILE=t5.gguf|EMBEDDINGS=on|POOLING=mean"
absent t5-unified S19 "MODEL_FILE=t5.gguf|EMBEDDINGS=on|POOLING=mean|KV_UNIFIED=1"
absent t5-one-slot S19 "MODEL_FILE=t5.gguf|EMBEDDINGS=on|POOLING=mean|PARALLEL=1|CTX_SIZE=4096"
absent lora-ok S12 "LORA_FILE=lora.gguf"
expect open-bind S13 warning "BIND_ADDR=0.0.0.0"
absent keyed-bind S13 "BIND_ADDR=0.0.0.0|API_KEY_FILE=apikey"
expect effort A08 info ""
# S17: a shape the engine's loader refuses (600 tokens over 512 token_embd rows)
expect loader-rows S17 error "MODEL_FILE=rows.gguf"
absent loader-ok S17 "MODEL_FILE=l.gguf"
run "$ZEALOT" check --json loader-rows.env
check "S17: names token_embd.weight, both shapes and the keys" \
	test -n "$(jq -r '.findings[]|select(.law=="S17")|.reason' "$TMP/out" | grep -F "token_embd.weight' has shape [256, 512], the engine's loader expects [256, 600]" | grep -F tokenizer.ggml.tokens)"
# S17, the attention projections: a header stating 4 KV heads over tensors of 2
expect loader-attn S17 error "MODEL_FILE=kvh.gguf"
run "$ZEALOT" check --json loader-attn.env
check "S17: names blk.0.attn_k.weight, both shapes, the keys and the engine's source" \
	test -n "$(jq -r '.findings[]|select(.law=="S17")|.reason' "$TMP/out" | grep -F "blk.0.attn_k.weight' has shape [256, 128], the engine's loader expects [256, 256]" | grep -F "llama.attention.key_length x head_count_kv" | grep -F src/models/llama.cpp)"
# qwen35's attention is built outside create_tensor_qkv: said, as info, not guessed
expect loader-unmirrored S17 info ""
run "$ZEALOT" check --json loader-unmirrored.env
check "S17 info: qwen35's attention shapes are not checked, and why" \
	test -n "$(jq -r '.findings[]|select(.law=="S17" and .severity=="info")|.reason' "$TMP/out" | grep -F "of qwen35 are not checked" | grep -F src/models/qwen35.cpp)"
# non-regular files are refused at open, never read (a FIFO used to hang check)
mkfifo fifo.env fifo.gguf
run timeout 20 "$ZEALOT" check fifo.env
check "a FIFO as the endpoint file: refused at once (exit 3), named a FIFO" \
	test "$rc" -eq 3 -a -n "$(grep -F "cannot read 'fifo.env': it is not a regular file (a FIFO)" "$TMP/err")"
base | sed 's/^MODEL_FILE=.*/MODEL_FILE=fifo.gguf/' >fifo-payload.env
run timeout 20 "$ZEALOT" check fifo-payload.env
check "a FIFO as the payload: check ends (exit 1), C03 names a FIFO" \
	test "$rc" -eq 1 -a -n "$(unwrapped | grep -F "is not a regular file (a FIFO)")"
base | sed 's|^MODEL_FILE=.*|MODEL_FILE=/dev/zero|' >dev-payload.env
run timeout 20 "$ZEALOT" check dev-payload.env
check "a device as the payload: check ends (exit 1), named a character device" \
	test "$rc" -eq 1 -a -n "$(unwrapped | grep -F "is not a regular file (a character device)")"

# The human output: law id, file:line, reason and fix.
run "$ZEALOT" check quant-v-no-fa.env
check "human: 'error   S03  FILE:LINE FLASH_ATTN:'" test -n "$(grep -E '^error +S03 +quant-v-no-fa.env:[0-9]+ FLASH_ATTN:' "$TMP/out")"
check "human: a fix line" out_has "fix: set FLASH_ATTN=on"
check "human: summary line" out_has "1 error"

# The examples pass with their own (synthetic) payloads, a runtime standing
# in for the seeds' fork build.
[ -e "$ROOT/examples/payloads/bonsai-9b-pq2.gguf" ] || make -C "$ROOT" -s examples >/dev/null 2>&1
for ex in "$ROOT"/examples/*.env "$ROOT"/examples/history/*.env; do
	run "$ZEALOT" check "$ex" --set RUNTIME=/bin/true
	check "example $(basename "$ex"): no error" rc_is 0
done
run "$ZEALOT" check "$ROOT/examples/history/frank-zealot.env" --set RUNTIME=/bin/true --set CACHE_TYPE_V=f16
check "example frank-zealot with exact V (+4,410 MiB): refused by the fit gate (M09)" \
	test "$rc" -eq 1 -a -n "$(grep -F M09 "$TMP/out")"
run "$ZEALOT" check --keys
check "--keys lists every key with its default" test -n "$(grep -E '^CACHE_TYPE_K +--cache-type-k +f16' "$TMP/out")"
run "$ZEALOT" check "$TMP/none.env"
check "no file: exit 3" rc_is 3
run "$ZEALOT" check --help
check "--help lists the laws" out_has "S06"

# S15: the runtime's source tree decides whether it knows the architecture.
mkdir -p rt/build/bin rt/src
printf '#!/bin/sh\nexit 0\n' >rt/build/bin/llama-server && chmod +x rt/build/bin/llama-server
printf 'static const std::map<llm_arch, const char *> LLM_ARCH_NAMES = {\n    { LLM_ARCH_LLAMA, "llama" },\n};\n' >rt/src/llama-arch.cpp
expect s15-unknown-arch S15 error "RUNTIME=$TMP/rt/build/bin/llama-server"
absent s15-known-arch S15 "RUNTIME=$TMP/rt/build/bin/llama-server|MODEL_FILE=l.gguf"
if [ -n "${ZEALOT_ENGINE:-}" ] && [ -x "$ZEALOT_ENGINE/llama-server" ]; then
	absent s15-pinned-engine S15 "RUNTIME=$ZEALOT_ENGINE/llama-server"
fi

# S16: the AMX fault. A build whose CPU backend carries the AMX kernels puts
# matmul weights of the tile types into its AMX buffer and the pinned engine
# dies at warm-up; REPACK=0 keeps them out. The evidence is the runtime's
# build tree (fake trees here: this host may have no AMX) or a boot log
# (copied from an AMX host into tests/data/amx-boots/).
must "$ZEALOT" synth llama --set type=q4_0 --set embd=512 --set vocab=3000 -o amx-q4.gguf || exit 1
must "$ZEALOT" synth qwen35 --set type=q8_0 --set embd=512 -o amx-q8.gguf || exit 1
must "$ZEALOT" synth llama --set type=f16 --set embd=512 -o amx-f16.gguf || exit 1
must "$ZEALOT" synth llama --set type=bf16 --set embd=512 -o amx-bf16.gguf || exit 1
must "$ZEALOT" synth llama --set type=iq4_nl --set embd=512 -o amx-iq4nl.gguf || exit 1
tree() { # tree NAME CMAKECACHE-LINES...: a runtime build tree
	local d=$1
	shift
	mkdir -p "$d/build/bin"
	printf '#!/bin/sh\nexit 0\n' >"$d/build/bin/llama-server" && chmod +x "$d/build/bin/llama-server"
	printf '%s\n' "$@" >"$d/build/CMakeCache.txt"
}
tree amx 'GGML_NATIVE:BOOL=OFF' 'GGML_AMX_INT8:BOOL=ON' 'GGML_AVX512_VNNI:BOOL=ON'
tree amx-novnni 'GGML_NATIVE:BOOL=OFF' 'GGML_AMX_INT8:BOOL=ON' 'GGML_AVX512_VNNI:BOOL=OFF'
tree noamx 'GGML_NATIVE:BOOL=OFF' 'GGML_AMX_INT8:BOOL=OFF' 'GGML_AVX2:BOOL=ON'
tree native 'GGML_NATIVE:BOOL=ON' 'GGML_AMX_INT8:BOOL=OFF'
tree native-ignores 'GGML_NATIVE:BOOL=ON' 'GGML_AMX_INT8:BOOL=ON' 'GGML_AVX512_VNNI:BOOL=ON'
AMX=$TMP/amx/build/bin/llama-server
expect s16-amx-q4_0 S16 error "RUNTIME=$AMX|MODEL_FILE=amx-q4.gguf"
check "S16: names the evidence (the build tree's options)" \
	test -n "$(jq -r '.findings[]|select(.law=="S16")|.reason' "$TMP/out" | grep -F "$TMP/amx/build/CMakeCache.txt has GGML_AMX_INT8=ON and GGML_AVX512_VNNI=ON")"
check "S16: counts the weights the AMX buffer takes (28 of 29: output's 3000 rows are not whole 32-row tiles)" \
	test -n "$(jq -r '.findings[]|select(.law=="S16")|.reason' "$TMP/out" | grep -F '28 matmul weights (q4_0)')"
check "S16: the fix is REPACK=0, on the REPACK key" \
	test "$(jq -r '.findings[]|select(.law=="S16")|[.key,.fix]|join(" ")' "$TMP/out" | cut -c1-22)" = "REPACK set REPACK=0 (-"
expect s16-amx-q8_0-hybrid S16 error "RUNTIME=$AMX|MODEL_FILE=amx-q8.gguf"
absent s16-repack-0 S16 "RUNTIME=$AMX|MODEL_FILE=amx-q4.gguf|REPACK=0"
absent s16-no-repack-flag S16 "RUNTIME=$AMX|MODEL_FILE=amx-q4.gguf|EXTRA_ARGS=--no-repack"
absent s16-f16 S16 "RUNTIME=$AMX|MODEL_FILE=amx-f16.gguf"
# f16 MLA decompression stacks (attn_k_b/attn_v_b) in the AMX buffer: the
# engine aborts reserving the graph (their matmul's operand is permuted)
must "$ZEALOT" synth mistral4 -o amx-mla.gguf || exit 1
must "$ZEALOT" synth mistral4 --set kv_lora=48 --set head_dim_v=48 -o amx-mla-untiled.gguf || exit 1
expect s16-mla-f16 S16 error "RUNTIME=$AMX|MODEL_FILE=amx-mla.gguf"
check "S16: names the MLA stacks and the engine's assert" \
	test -n "$(jq -r '.findings[]|select(.law=="S16")|.reason' "$TMP/out" | grep -F '8 f16 MLA decompression stacks' | grep -F 'cur_backend_id')"
absent s16-mla-untiled S16 "RUNTIME=$AMX|MODEL_FILE=amx-mla-untiled.gguf"
absent s16-bf16 S16 "RUNTIME=$AMX|MODEL_FILE=amx-bf16.gguf"
absent s16-iq4_nl S16 "RUNTIME=$AMX|MODEL_FILE=amx-iq4nl.gguf"
absent s16-cuda-profile S16 "RUNTIME=$AMX|MODEL_FILE=amx-q4.gguf|DEVICE=rtx3090"
absent s16-no-amx-build S16 "RUNTIME=$TMP/noamx/build/bin/llama-server|MODEL_FILE=amx-q4.gguf"
absent s16-amx-without-vnni S16 "RUNTIME=$TMP/amx-novnni/build/bin/llama-server|MODEL_FILE=amx-q4.gguf"
absent s16-no-tree S16 "MODEL_FILE=amx-q4.gguf"
# A native build compiles AMX exactly when its host has it (the GGML_AMX_*
# options are then ignored): the host's flags decide.
ZEALOT_CPUINFO=$ROOT/tests/data/cpuinfo/xeon-amx.txt \
	expect s16-native-amx-host S16 error "RUNTIME=$TMP/native/build/bin/llama-server|MODEL_FILE=amx-q4.gguf"
check "S16: a native build names the host's flags" \
	test -n "$(jq -r '.findings[]|select(.law=="S16")|.reason' "$TMP/out" | grep -F 'GGML_NATIVE=ON and this host')"
ZEALOT_CPUINFO=$ROOT/tests/data/cpuinfo/epyc-avx2.txt \
	absent s16-native-avx2-host S16 "RUNTIME=$TMP/native/build/bin/llama-server|MODEL_FILE=amx-q4.gguf"
ZEALOT_CPUINFO=$ROOT/tests/data/cpuinfo/epyc-avx2.txt \
	absent s16-native-ignores-options S16 "RUNTIME=$TMP/native-ignores/build/bin/llama-server|MODEL_FILE=amx-q4.gguf"
# A boot log's system_info line, with no build tree to read.
{
	base
	echo "MODEL_FILE=amx-q4.gguf"
} | tac | awk -F= '!seen[$1]++' | tac >s16-log.env
run "$ZEALOT" check --json --boot-log "$ROOT/tests/data/amx-boots/llama-q4_0.log" s16-log.env
check "S16 (boot log AMX_INT8 = 1): exit 1, error" \
	test "$rc" -eq 1 -a "$(jq '[.findings[]|select(.law=="S16" and .severity=="error")]|length' "$TMP/out")" -eq 1
check "S16 (boot log): names the log and its system_info line" \
	test -n "$(jq -r '.findings[]|select(.law=="S16")|.reason' "$TMP/out" | grep -F "llama-q4_0.log says AMX_INT8 = 1 in its system_info line")"
run "$ZEALOT" check --json --boot-log "$ROOT/tests/data/amx-boots/llama-q4_0.log" s16-log.env --set REPACK=0
check "S16 (boot log, REPACK=0): not raised" test "$(jq '[.findings[]|select(.law=="S16")]|length' "$TMP/out")" -eq 0
run "$ZEALOT" check --json --boot-log "$ROOT/tests/data/ledger/qwen35-mtp-cpu.log" s16-log.env
check "S16 (a boot log without AMX_INT8): not raised" test "$(jq '[.findings[]|select(.law=="S16")]|length' "$TMP/out")" -eq 0
run "$ZEALOT" check --boot-log "$TMP/no-such.log" s16-log.env
check "--boot-log of a missing file: exit 3 naming it" test "$rc" -eq 3 -a -n "$(grep -F "cannot open '$TMP/no-such.log'" "$TMP/err")"
run "$ZEALOT" check --help
check "--help names S16 and --boot-log" test -n "$(grep -F S16 "$TMP/out")" -a -n "$(grep -F -- --boot-log "$TMP/out")"
# Every boot on the AMX host (tests/data/amx-boots/: the synth command of
# each payload is in its README): S16 is raised exactly for the payloads
# whose boot died at warm-up, never for those that reached "listening".
n=0 bad=0
while IFS='|' read -r _ log cmd _; do
	log=$(echo "$log" | tr -d ' `')
	args=$(echo "$cmd" | tr -d '`' | sed -e 's/^ *zealot synth //' -e 's/ -o p.gguf *$//')
	# shellcheck disable=SC2086
	"$ZEALOT" synth $args --force -o boot.gguf 2>/dev/null || continue # a file the engine refused: synth refuses it too
	{
		base
		echo "MODEL_FILE=boot.gguf"
	} | tac | awk -F= '!seen[$1]++' | tac >boot.env
	"$ZEALOT" check --json --boot-log "$ROOT/tests/data/amx-boots/$log" boot.env >boot.json 2>/dev/null
	raised=$(jq '[.findings[]|select(.law=="S16")]|length' boot.json)
	if grep -q 'listening on' "$ROOT/tests/data/amx-boots/$log"; then died=0; else died=1; fi
	n=$((n + 1))
	[ "$raised" -eq "$died" ] || { bad=$((bad + 1)) && echo "# $log: S16 raised $raised, boot died $died"; }
done < <(grep -E '^\| `[A-Za-z0-9_-]+\.log`' "$ROOT/tests/data/amx-boots/README.md")
check "S16 against $n AMX-host boots: raised exactly where the engine died at warm-up" test "$n" -ge 9 -a "$bad" -eq 0
