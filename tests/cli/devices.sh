# Device profiles: a near miss (rtx-3090, RTX3090, 3090) gets a
# did-you-mean; the error names what gave the name (--device, --set DEVICE,
# the file's line); check reports an unknown DEVICE as law C02 on its key
# and line; every such error says how to price a card that is not listed
# (ADDRESSABLE_MIB, DEVICES=).
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
must "$ZEALOT" synth llama -o l.gguf || exit 1
printf '#!/bin/sh\nexec true\n' >rt.sh && chmod +x rt.sh
printf 'RUNTIME=%s\nMODEL_FILE=l.gguf\nCTX_SIZE=4096\nDEVICE=cpu\n' "$TMP/rt.sh" >ok.env
for d in rtx-3090 RTX3090 3090 "RTX 3090"; do
	run "$ZEALOT" plan ok.env --device "$d"
	check "plan --device '$d': exit 2, did you mean rtx3090" test "$rc" -eq 2 -a -n "$(grep -F 'did you mean rtx3090' "$TMP/err")"
	check "plan --device '$d': the flag blamed, not the file's DEVICE" \
		test -n "$(grep -F -- "--device: '$d' is not a known profile" "$TMP/err")" -a -z "$(grep -F 'ok.env' "$TMP/err")"
done
run "$ZEALOT" plan ok.env --device a100
check "plan --device a100: both A100 profiles offered" err_has "did you mean a100-40g or a100-80g?"
run "$ZEALOT" rungs ok.env --device rtx-3090
check "rungs --device: the same did-you-mean on the flag" err_has "--device: 'rtx-3090' is not a known profile: did you mean rtx3090?"
run "$ZEALOT" plan ok.env --set DEVICE=3090
check "plan --set DEVICE=3090: --set DEVICE blamed (both 3090 profiles: CUDA and Vulkan)" err_has "--set DEVICE: '3090' is not a known profile: did you mean rtx3090 or rtx3090-vk?"
run "$ZEALOT" plan ok.env --device gizmo
check "an unlisted card: no did-you-mean" test -z "$(grep -F 'did you mean' "$TMP/err")"
check "an unlisted card: ADDRESSABLE_MIB and DEVICES= named" \
	test -n "$(grep -F 'ADDRESSABLE_MIB=' "$TMP/err")" -a -n "$(grep -F 'DEVICES=' "$TMP/err")"

sed 's/^DEVICE=.*/DEVICE=rtx-3090/' ok.env >bad.env
run "$ZEALOT" plan bad.env
check "plan: the file's line blamed" err_has "bad.env:4: DEVICE: 'rtx-3090' is not a known profile: did you mean rtx3090?"
run "$ZEALOT" check --json bad.env
check "check: exit 1" rc_is 1
check "check: law C02 on DEVICE, line 4" \
	json_is '[.findings[]|select(.law=="C02" and .key=="DEVICE")|[.severity,.line]]' '[["error",4]]'
check "check: the fix holds the did-you-mean and the unlisted card's way" \
	test -n "$(jq -r '.findings[]|select(.key=="DEVICE")|.fix' "$TMP/out" | grep -F 'did you mean rtx3090?' | grep -F ADDRESSABLE_MIB)"
check "check: the path said once (no 'bad.env: bad.env')" test -z "$(jq -r '.findings[].reason' "$TMP/out" | grep -F 'bad.env')"
printf 'DEVICES=3090:24576\n' >>ok.env
run "$ZEALOT" plan ok.env
check "DEVICES=3090: did you mean rtx3090" err_has "DEVICES: '3090' is not a known profile: did you mean rtx3090 or rtx3090-vk?"
check "no sanitizer report" no_sanitizer
