# zealot argv: the seeds' current shape reproduces the runbook's flags.
. "$(dirname "$0")/../lib.sh"
[ -e "$ROOT/examples/payloads/bonsai-9b-pq2.gguf" ] || make -C "$ROOT" -s examples >/dev/null 2>&1
run "$ZEALOT" argv "$ROOT/examples/history/frank-zealot.env"
check "argv: exit 0" rc_is 0
tr '\n' ' ' <"$TMP/out" >"$TMP/line"
# The runbook (2026-10-19): --ctx-size 602112 --parallel 3, f16 K + q8_0 V,
# --flash-attn on, batch 6144 / ubatch 1024, -ngl 99, --jinja --reasoning auto
# --reasoning-format deepseek, --metrics, --mmproj, --lora-scaled FILE:1,
# --log-verbosity 4, --presence-penalty 1.0, draft-mtp 2/0/0.
for want in "--ctx-size 602112" "--parallel 3" "--cache-type-k f16" "--cache-type-v q8_0" "--flash-attn on" \
	"--batch-size 6144" "--ubatch-size 1024" "--n-gpu-layers 99" "--jinja" "--reasoning auto" \
	"--reasoning-format deepseek" "--metrics" "--log-verbosity 4" "--presence-penalty 1.0" \
	"--spec-type draft-mtp" "--spec-draft-n-max 2" "--spec-draft-n-min 0" "--spec-draft-p-min 0" \
	"--alias frank-zealot" "--host 0.0.0.0" "--port 7771" "--fit off"; do
	check "argv has '$want'" grep -qF -- " $want " "$TMP/line"
done
check "argv: the projector, resolved next to the endpoint" grep -qF -- "--mmproj $ROOT/examples/history/../payloads/bonsai-9b-mmproj-q8.gguf " "$TMP/line"
check "argv: the adapter with its scale" grep -qF -- "--lora-scaled $ROOT/examples/history/../payloads/bonsai-9b-lora.gguf:1 " "$TMP/line"
check "argv: the runtime first" test "$(head -1 "$TMP/out")" = /home/dank/GitPackages/llama-prism-b10777/llama-server
run "$ZEALOT" argv "$ROOT/examples/history/frank-zealot.env" --set SPEC_TYPE=none
check "SPEC_TYPE=none strips every --spec-* flag (S05)" test -z "$(grep -e '--spec' "$TMP/out")"
run "$ZEALOT" argv "$ROOT/examples/history/frank-zealot.env" --set METRICS=0 --set LORA_FILE= --set MMPROJ_FILE= --set PRESENCE_PENALTY=
check "opt-outs: no --metrics, --lora-scaled, --mmproj or --presence-penalty" \
	test -z "$(grep -e '--metrics' -e '--lora-scaled' -e '--mmproj' -e '--presence-penalty' "$TMP/out")"
check "REPACK defaults on: no --no-repack" test -z "$(grep -Fx -- '--no-repack' "$TMP/out")"
run "$ZEALOT" argv "$ROOT/examples/history/frank-zealot.env" --set REPACK=0
check "REPACK=0 renders --no-repack" test -n "$(grep -Fx -- '--no-repack' "$TMP/out")"
run "$ZEALOT" argv "$ROOT/examples/history/frank-zealot.env" --set API_KEY_FILE=/etc/zealot/key
check "API key by file only" test -n "$(grep -Fx -- '--api-key-file' "$TMP/out")" -a -z "$(grep -Fx -- '--api-key' "$TMP/out")"
run "$ZEALOT" argv --json "$ROOT/examples/history/frank-zealot.env"
check "--json: an array whose 2nd element is --model" json_is '.[1]' '"--model"'
run "$ZEALOT" argv "$ROOT/examples/history/frank-zealot.env" --set CTX_SIZE=
check "empty CTX_SIZE: exit 2 naming S01" test "$rc" -eq 2 -a -n "$(grep -F S01 "$TMP/err")"
