# synth writes only what the engine loads, and inspect refuses what the
# engine refuses (issue 8, item 6).
#
# 1. A grid of payloads over every architecture synth knows x weight types
#    x widths (some where the K-quants' 256-element block does not divide a
#    row): for each combination either synth refuses it (exit 2, the
#    engine's rule named) or the engine loads it, answers /health and one
#    completion. Booted with --no-repack so the host's extra buffer types
#    (AMX, CPU_REPACK) play no part: this is about the file, not the ISA;
#    and with one thread (--threads 1, as boot_for_ledger boots): ggml's
#    pool spins while it waits, and two threads beside another suite's
#    engine took five times as long a case (3.1 s against 0.6 s, measured
#    under load).
# 2. Every corrupt fixture that breaks one of the engine reader's rules is
#    refused by the engine with that rule's own message, as inspect says.
#
# The default grid (about 45 s on two quiet cores) takes the dense,
# hybrid and sliding-window architectures with the weight types of every
# block size (1, 32, 256) and each extra buffer type's set at the default
# widths, plus the other widths for q4_0 and q4_K, and the MoE families
# with one type per block size (f16, q8_0, q4_K) at every width; ZEALOT_GRID=full takes every type at every width
# (about 3 minutes).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
cd "$TMP" || exit 1

archs="llama qwen35 gemma3 deepseek2 glm4moe qwen35moe"
types="f16 bf16 q8_0 q4_0 q4_1 iq4_nl q4_K q5_K q6_K iq4_xs"
[ "${ZEALOT_GRID:-}" != full ] || types="$types q5_0 q5_1 q2_K q3_K mxfp4 tq2_0"
# widths: the defaults (qwen35's value width 128 breaks every 256 block),
# 320 (a multiple of 32, not of 256), and one where every row is a
# multiple of 256
widths=("" "embd=320 ff=640" "embd=512 ff=768 ssm_state=64")

prompt='{"prompt":"hi","max_tokens":1,"temperature":0}'
booted=0 refused=0 failed=0 n=0
start=$SECONDS
for a in $archs; do
	for t in $types; do
		for wi in "${!widths[@]}"; do
			w=${widths[$wi]}
			if [ "${ZEALOT_GRID:-}" != full ] && [ "$wi" -gt 0 ]; then
				case $t in q4_0 | q4_K) ;; *) continue ;; esac
			fi
			# the MoE families' own tensors at one type per block size
			# (1, 32, 256); the full grid takes them all
			if [ "${ZEALOT_GRID:-}" != full ]; then
				case $a in llama | qwen35 | gemma3) ;; *) case $t in f16 | q8_0 | q4_K) ;; *) continue ;; esac ;; esac
			fi
			n=$((n + 1))
			name="$a-$t-${wi}"
			args=(--set "type=$t" --set layers=4 --set vocab=512)
			for kv in $w; do args+=(--set "$kv"); done
			"$ZEALOT" synth "$a" "${args[@]}" -o "$name.gguf" 2>"$name.synth"
			rc=$?
			if [ "$rc" -ne 0 ]; then
				if [ "$rc" -eq 2 ] && grep -q "the engine refuses" "$name.synth"; then
					refused=$((refused + 1))
				else
					failed=$((failed + 1))
					echo "# $name: synth exit $rc: $(cat "$name.synth")"
				fi
				continue
			fi
			if ! engine_start "$name" -m "$name.gguf" -c 512 -np 1 --no-repack -t 1; then
				failed=$((failed + 1))
				echo "# $name ($w): synth wrote it, the engine did not boot:"
				grep -E ' E |error|failed' "$ENGINE_LOG" | head -5 | sed 's/^/#   /'
				engine_stop
				continue
			fi
			engine_post /v1/completions "$prompt"
			if [ "$http" = 200 ] && [ "$(jq '.usage.completion_tokens' "$TMP/out")" -gt 0 ]; then
				booted=$((booted + 1))
			else
				failed=$((failed + 1))
				echo "# $name: booted, completion answered $http: $(head -c 300 "$TMP/out")"
			fi
			engine_stop
			rm -f "$name.gguf"
		done
	done
done
check "grid of $n ($(wc -w <<<"$archs") archs x ${types// /,} x ${#widths[@]} widths): $booted loaded and answered, $refused refused by synth, in $((SECONDS - start)) s" \
	test "$failed" -eq 0
check "the grid both boots and refuses (it exercises the rule)" test "$booted" -gt 0 -a "$refused" -gt 0

# The engine refuses each file inspect refuses for one of its reader's
# rules, with that rule's own message (ggml/src/gguf.cpp, llama-model-loader).
# The engine logs from a worker thread that an early exit can cut short, so
# a refusal whose message did not reach the log is booted again (3 tries).
while IFS='|' read -r f want; do
	said='' healthy=0
	for _ in 1 2 3; do
		if engine_start "corrupt-$f" -m "$ROOT/tests/data/corrupt/$f" -c 512 --no-repack; then
			healthy=1
			engine_stop
			break
		fi
		said=$(grep -F -- "$want" "$ENGINE_LOG")
		[ -z "$said" ] || break
	done
	check "engine refuses $f: \"$want\"" test "$healthy" -eq 0 -a -n "$said"
	[ -n "$said" ] || { echo "#   engine exit status ${ENGINE_STATUS:-?}"; tail -3 "$ENGINE_LOG" | sed "s/^/#   engine: /"; }
	run "$ZEALOT" inspect "$ROOT/tests/data/corrupt/$f"
	check "inspect refuses $f too (exit 3)" rc_is 3
done <<'X'
row-block.gguf|has 128 elements per row, not a multiple of block size (256)
removed-type.gguf|not a multiple of block size (0)
gap.gguf|tensor 'b' has offset 512, expected 256
out-of-order.gguf|tensor 'b' has offset 256, expected 0
overlap.gguf|tensor 'b' has offset 32, expected 256
misaligned.gguf|tensor 't' has offset 3, expected 0
dup-tensor.gguf|duplicate tensor name 't'
dup-key.gguf|duplicate key 'general.architecture'
empty-key.gguf|key 0 is empty
alignment-type.gguf|must be of type u32 but is u64
bad-alignment.gguf|alignment 24 is not a power of 2
long-name.gguf|is too long
bad-dims.gguf|invalid number of dimensions
elements-overflow.gguf|has a size in bytes >
bytes-overflow.gguf|has a size in bytes >
data-past-eof.gguf|data is not within the file bounds
X
