# A router endpoint under a real systemd (tests/systemd.sh): the unit
# zealot emits runs zealot serve, which gates the set and every member,
# writes the preset to the unit's StateDirectory and execs the engine's
# router as an unprivileged USER in the hardened sandbox (MODELS and the
# members' payloads bound back read-only). Each member answers through it,
# the journal's children hold to their members' plans, and a member change
# that no longer fits is refused at the next start (78, no restart loop).
# zealot deploy of a router is tests/live/router-deploy.sh.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
RS_NAME=zl-router-$$
. "$(dirname "$0")/../deployhost.sh"

router_host_env router.env || exit 1
chmod a+r router.env

run "$UNIT_ZEALOT" emit unit router.env --zealot "$UNIT_ZEALOT"
check "emit unit of a router: exit 0" rc_is 0
check "the unit binds the members' directory back" out_has "$TMP/models"
X sh -c 'cat >/etc/systemd/system/zl-router.service' <"$TMP/out"
X systemctl daemon-reload
run X systemctl start zl-router.service
check "the router's unit starts" rc_is 0
up() { [ "$(curl -s -o /dev/null -w '%{http_code}' -m 2 "$url/health")" = 200 ]; }
wait_for 60 up
check "the router answers /health under systemd" up
run X sh -c 'cat /var/lib/zealot/router.models.ini'
check "serve wrote the preset to the StateDirectory" out_has "[qwen]"
for m in llama gemma qwen; do
	code=$(curl -s -m 180 -o ask.json -w '%{http_code}' -H 'Content-Type: application/json' \
		-d "{\"model\":\"$m\",\"prompt\":\"The sky is\",\"n_predict\":4,\"ignore_eos\":true}" "$url/completion")
	check "$m answers through the unit's router" test "$code" = 200 -a "$(jq '.tokens_predicted // 0' ask.json)" -gt 0
done
journal_ledger() {
	X journalctl -u zl-router.service -o short --no-pager >j.log 2>/dev/null
	"$ZEALOT" ledger --json --endpoint router.env j.log >ledger.json 2>/dev/null
	[ "$(jq -c '[.boots[].name]' ledger.json 2>/dev/null)" = '["llama","gemma","qwen"]' ]
}
wait_for 30 journal_ledger
check "the journal holds three children, one per member" journal_ledger
check "each child's ledger matches its member's plan" test "$(jq -c '[.boots[].verdict] | unique' ledger.json)" = '["matches"]'

# a member change that no longer fits: its prompt cache alone is over the host
cp models/qwen.env qwen.env.good
sed -i 's/^CACHE_RAM=64/CACHE_RAM=20000/' models/qwen.env
run "$ZEALOT" plan router.env
check "the changed member no longer fits (plan: exit 1)" rc_is 1
X systemctl restart zl-router.service
gone() { [ "$(X systemctl show -p ActiveState --value zl-router.service)" = failed ]; }
wait_for 30 gone
check "the next start is refused: the unit failed" gone
check "by serve's refusal (78), not restarted" \
	test "$(X systemctl show -p ExecMainStatus --value zl-router.service)/$(X systemctl show -p NRestarts --value zl-router.service)" = 78/0
run X journalctl -u zl-router.service --no-pager
check "the journal names the fit gate, law M13" out_has "refused at the fit gate: M13"
check "and the member in the worst set" out_has "+ qwen "
# the member put back: the router starts again
cp qwen.env.good models/qwen.env
X systemctl reset-failed zl-router.service
X systemctl start zl-router.service
wait_for 60 up
check "the member put back, the router serves again" up
X systemctl stop zl-router.service
