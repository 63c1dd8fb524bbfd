# zealot ledger --prom FILE: the memory ledger as metrics for the node
# exporter's textfile collector, written atomically; promtool accepts the
# exposition. tests/live/prometheus.sh scrapes it through the real node
# exporter into a real Prometheus.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
EX=$ROOT/examples/history
mkdir tf

run "$ZEALOT" ledger "$EX/frank-zealot-2026-10-19.journal" --endpoint "$EX/frank-zealot.env" --prom tf/zealot.prom --settled-used 22664
check "ledger --prom: the verdict's exit (1: the seeds' journal differs on an exact term)" rc_is 1
check "the file is written" test -s tf/zealot.prom
run promtool check metrics <tf/zealot.prom
check "promtool check metrics accepts it" rc_is 0
m() { grep -F "$1" tf/zealot.prom | awk '{print $2}'; }
check "kv: plan and ledger 14,406.00 MiB on CUDA0 (the seeds' figure)" \
	test "$(m 'zealot_memory_mib{endpoint="frank-zealot",term="kv",buffer="CUDA0",source="plan"}')" = 14406.00 -a \
	"$(m 'zealot_memory_mib{endpoint="frank-zealot",term="kv",buffer="CUDA0",source="ledger"}')" = 14406.00
check "the settled figure is --settled-used" test "$(m 'term="total",buffer="device",source="settled"}')" = 22664.00
check "the plan's total is there" test -n "$(m 'term="total",buffer="device",source="plan"}')"
check "K and V splits are not billed twice (no k_mib/v_mib buffer)" test -z "$(grep -E 'buffer="(k|v|r|s)_mib"' tf/zealot.prom)"
check "one series per label set" test "$(grep -v '^#' tf/zealot.prom | sed 's/ [^ ]*$//' | sort | uniq -d | wc -l)" -eq 0
check "zealot_slack_mib plan and settled" test -n "$(m 'zealot_slack_mib{endpoint="frank-zealot",source="plan"}')" -a -n "$(m 'zealot_slack_mib{endpoint="frank-zealot",source="settled"}')"
check "zealot_probe_pass{probe=\"ledger\"} 0: an exact term differs" test "$(m 'zealot_probe_pass{endpoint="frank-zealot",probe="ledger"}')" = 0
check "no zealot_era without a deployed era" test -z "$(grep '^zealot_era' tf/zealot.prom)"
check "no temporary file is left beside it" test "$(ls -A tf)" = zealot.prom


# atomic: a directory it cannot write leaves the old file whole, exit 3
cp tf/zealot.prom before.prom
chmod 555 tf
if [ "$(id -u)" != 0 ]; then
	run "$ZEALOT" ledger "$EX/frank-zealot-2026-10-19.journal" --endpoint "$EX/frank-zealot.env" --prom tf/zealot.prom
	check "an unwritable directory: exit 3, the old file untouched" test "$rc" -eq 3 -a "$(cmp -s before.prom tf/zealot.prom && echo same)" = same
else
	# root writes anywhere: a path that is a directory stands in for the failure
	chmod 755 tf
	mkdir tf/dir.prom
	run "$ZEALOT" ledger "$EX/frank-zealot-2026-10-19.journal" --endpoint "$EX/frank-zealot.env" --prom tf/dir.prom
	check "a target it cannot rename over: exit 3, naming it" test "$rc" -eq 3 -a -n "$(grep -F 'dir.prom' "$TMP/err")"
	check "no temporary file is left behind" test -z "$(ls -A tf | grep tmp)"
fi
chmod 755 tf

run "$ZEALOT" ledger "$EX/frank-zealot-2026-10-19.journal" --prom tf/x.prom
check "--prom without --endpoint: exit 2" rc_is 2
check "no sanitizer report" no_sanitizer
