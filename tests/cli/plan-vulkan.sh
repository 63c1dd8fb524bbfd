# zealot plan on a Vulkan device (no engine): the lavapipe profile and the
# cards', ggml-vulkan's buffer names (VulkanN, the pinned Vulkan_Host),
# alignment and no row padding, flash attention per cache type, a
# quantized K cache without flash attention sent to the CPU, the node
# reordering (graph_optimize) mirrored, law C13 (lavapipe without GPU) and
# GPU= as GGML_VK_VISIBLE_DEVICES in the unit.
# The live proof is tests/live/vulkan.sh (the Vulkan engine on lavapipe).
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

must "$ZEALOT" synth llama -o tiny.gguf || exit 1
# q4_0 weights with an ne0 that is no multiple of 512: CUDA pads the rows,
# ggml-vulkan allocates ggml_nbytes
must "$ZEALOT" synth llama --set type=q4_0 --set embd=320 --set ff=640 -o q4.gguf || exit 1

shape() { # NAME DEVICE MODEL "KEY=VALUE ..."
	{
		echo "CPU_FEATURES=avx2"
		echo "MODEL_FILE=$3"
		echo "DEVICE=$2"
		echo "CTX_SIZE=2048"
		echo "PARALLEL=1"
		echo "SLACK_MIB=0"
		for s in $4; do echo "$s"; done
	} >"$1.env"
}
mib() { # ENV TERM PART: the plan's MiB for that buffer (the order mirrored)
	GGML_VK_DISABLE_GRAPH_OPTIMIZE=1 "$ZEALOT" plan "$1" | awk -v t="$2" -v p="$3" '$1 == t && $2 == p { print $3 }'
}

shape fa lavapipe tiny.gguf "FLASH_ATTN=on"
shape nofa lavapipe tiny.gguf "FLASH_ATTN=off"
shape cpu cpu tiny.gguf "FLASH_ATTN=on"
shape q8k lavapipe tiny.gguf "FLASH_ATTN=off CACHE_TYPE_K=q8_0"
shape q8kfa lavapipe tiny.gguf "FLASH_ATTN=on CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
shape rx rx7900xtx tiny.gguf "FLASH_ATTN=on"

run "$ZEALOT" plan fa.env
check "lavapipe: fits" rc_is 0
check "lavapipe: the device is Vulkan0" out_has "devices: Vulkan0 (lavapipe)"
check "lavapipe: weights and KV on Vulkan0, logits in Vulkan_Host" \
	bash -c "grep -qE '^kv +Vulkan0' '$TMP/out' && grep -qE '^output +Vulkan_Host' '$TMP/out'"
check "lavapipe: its fixed 2,048 MiB heap is the addressable figure" out_has "2,048.00  (profile)"
check "lavapipe: the reordering is mirrored (graph_optimize)" out_has_unwrapped "nodes reordered as graph_optimize does"
check "lavapipe: the plan is exact with the reordering on" \
	bash -c "'$ZEALOT' plan --json fa.env | jq -e '.exact == true and (.unmirrored | length == 0)' >/dev/null"
check "lavapipe: with GGML_VK_DISABLE_GRAPH_OPTIMIZE the plan is exact, in graph order" \
	bash -c "GGML_VK_DISABLE_GRAPH_OPTIMIZE=1 '$ZEALOT' plan fa.env | tr '\n' ' ' | grep -q 'graph order' &&
		GGML_VK_DISABLE_GRAPH_OPTIMIZE=1 '$ZEALOT' plan --json fa.env | jq -e '.exact == true' >/dev/null"
# KV is the CPU engine's, byte for byte (measured: identical)
check "lavapipe: KV equals the cpu plan's" test "$(mib fa.env kv Vulkan0)" = "$(mib cpu.env kv CPU)"
# The tiny llama's host compute, measured on lavapipe (issue 31): 3.01 MiB
# with flash attention, 5.51 without
check "lavapipe: Vulkan_Host compute 3.01 with flash attention" test "$(mib fa.env compute Vulkan_Host)" = 3.01
check "lavapipe: Vulkan_Host compute 5.51 without" test "$(mib nofa.env compute Vulkan_Host)" = 5.51

# A q8_0 K without flash attention: KQ on the CPU, its inputs copied into
# Vulkan_Host (measured: 21.55 MiB there); with flash attention on the device.
run "$ZEALOT" plan q8k.env
check "q8_0 K, FA off: the plan says KQ runs on the CPU" out_has "runs on the CPU"
check "q8_0 K, FA off: Vulkan_Host compute within 0.5 % of the measured 21.55" \
	awk -v v="$(mib q8k.env compute Vulkan_Host)" 'BEGIN { d = (v - 21.55) / 21.55; exit !(d < 0.005 && d > -0.005) }'
run "$ZEALOT" plan q8kfa.env
check "q8_0 K+V, FA on: flash attention on the device" out_has_unwrapped "q8_0 V on the device"

# ggml-vulkan allocates ggml_nbytes aligned to the device's 16: a q4_0 model
# smaller on lavapipe than on a CUDA card (rows padded to 512 there)
shape q4v lavapipe q4.gguf "FLASH_ATTN=on NGL=99"
shape q4c rtx3090 q4.gguf "FLASH_ATTN=on NGL=99"
check "q4_0 weights: smaller on Vulkan0 than on CUDA0 (no row padding)" \
	awk -v v="$(mib q4v.env model Vulkan0)" -v c="$(mib q4c.env model CUDA0)" 'BEGIN { exit !(v < c) }'

# The cards' profiles and their sources
run "$ZEALOT" plan --help
for p in lavapipe rx7900xtx arc-a770 rtx3090-vk; do
	check "plan --help lists the Vulkan profile $p" out_has "$p"
done

# Law C13: lavapipe is a CPU-type device, which ggml-vulkan uses only when
# GGML_VK_VISIBLE_DEVICES lists it (GPU= writes it); without GPU the engine
# runs on the CPU (measured: 'no usable GPU found', CPU KV and compute)
run "$ZEALOT" check fa.env
check "C13: DEVICE=lavapipe without GPU is refused" \
	test "$rc" -eq 1 -a -n "$(grep -E '^error +C13' "$TMP/out")"
check "C13: it names GGML_VK_VISIBLE_DEVICES and the fix" \
	bash -c "tr -s ' \n' ' ' <'$TMP/out' | grep -q 'unless GGML_VK_VISIBLE_DEVICES lists it' && grep -q 'set GPU' '$TMP/out'"
run "$ZEALOT" check rx.env
check "C13: a card's Vulkan profile without GPU is not (the engine takes every GPU)" bash -c "! grep -q C13 '$TMP/out'"
shape two cpu tiny.gguf "FLASH_ATTN=on DEVICES=lavapipe,lavapipe GPU=0"
run "$ZEALOT" check two.env
check "C13: DEVICES with lavapipe twice is refused (GPU writes one index)" \
	bash -c "grep -qE '^error +C13' '$TMP/out' && grep -q 'DEVICES' '$TMP/out'"
run "$ZEALOT" explain C13
check "explain C13: the law's text" out_has "CPU-type"

# GPU= is ggml-vulkan's GGML_VK_VISIBLE_DEVICES on a Vulkan profile
printf 'GPU=0\n' >>fa.env
run "$ZEALOT" check fa.env
check "C13: GPU=0 on lavapipe passes" bash -c "! grep -q C13 '$TMP/out'"
run "$ZEALOT" emit unit fa.env
check "unit: GPU=0 on lavapipe sets GGML_VK_VISIBLE_DEVICES=0" out_has "GGML_VK_VISIBLE_DEVICES=0"
check "unit: and not CUDA_VISIBLE_DEVICES" bash -c "! grep -q CUDA_VISIBLE_DEVICES '$TMP/out'"
# serve builds the engine's environment (R04): the unit's own card variable
# passes on, with GPU's value only; the other backend's is refused
GGML_VK_VISIBLE_DEVICES=0 run "$ZEALOT" serve --dry-run fa.env --set RUNTIME=/bin/true
check "serve: the unit's GGML_VK_VISIBLE_DEVICES=0 (GPU=0) passes the environment gate" rc_is 0
GGML_VK_VISIBLE_DEVICES=1 run "$ZEALOT" serve --dry-run fa.env --set RUNTIME=/bin/true
check "serve: GGML_VK_VISIBLE_DEVICES=1 against GPU=0 is R04's" \
	test "$rc" -eq 78 -a -n "$(grep -F 'R04' "$TMP/err" | grep -F 'GGML_VK_VISIBLE_DEVICES=1')"
CUDA_VISIBLE_DEVICES=0 run "$ZEALOT" serve --dry-run fa.env --set RUNTIME=/bin/true
check "serve: CUDA_VISIBLE_DEVICES on a Vulkan profile is R04's" \
	test "$rc" -eq 78 -a -n "$(grep -F 'R04' "$TMP/err" | grep -F 'CUDA_VISIBLE_DEVICES=0')"

check "no sanitizer report in any run" no_sanitizer
