# zealot rename against a real systemd (PID 1 of a systemd-nspawn
# container, tests/systemd.sh) and the real engine on a synthetic payload:
# refusals that touch nothing (a taken name, an invalid one), a new unit
# that fails to serve (the old one serves again), a dry run, a
# rename whose new unit serves the same model with the old history and
# whose old unit is gone, and runs cut by a kill -9 at the fault points
# rename:after-install (the old name still serves), rename:after-stop and
# rename:after-record, each completed by running the same command again.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
RS_NAME=zl-rename-$$
. "$(dirname "$0")/../deployhost.sh"

"$ZEALOT" synth qwen35 -o q.gguf 2>/dev/null
port=$(free_port)
url=http://127.0.0.1:$port
endpoint() { # CTX PARALLEL
	cat <<E
RUNTIME=$SERVER
MODEL_FILE=q.gguf
MODEL_BYTES=$(stat -c %s q.gguf)
MODEL_SHA256=$(sha256sum q.gguf | cut -d' ' -f1)
ALIAS=e1
LISTEN_PORT=$port
CTX_SIZE=$1
PARALLEL=$2
DEVICE=cpu
ADDRESSABLE_MIB=16384
USER=zealot-engine
E
}
Z() { run rs_exec "$ZEALOT" "$@"; }
health() { curl -s -o /dev/null -w '%{http_code}' -m 5 "$url/health"; }
sql() { sqlite3 "$ZEALOT_STATE_DIR/zealot.db" "$1"; }
active() { X systemctl is-active "$1.service" 2>/dev/null; }
serves() { # NAME: NAME.service is active, its engine serves the same payload, the file is installed
	local pid
	pid=$(X systemctl show -p MainPID --value "$1.service")
	test "$(active "$1")" = active -a "$(health)" = 200 -a -f "$R/etc/zealot/$1.env" &&
		X cat "/proc/$pid/cmdline" | tr '\0' '\n' | grep -qFx "$TMP/q.gguf"
}
gone() { # NAME: no unit file, no endpoint file, systemd no longer has it, no era in the store
	test ! -e "$R/etc/systemd/system/$1.service" -a ! -e "$R/etc/zealot/$1.env" \
		-a "$(X systemctl show -p LoadState --value "$1.service")" = not-found \
		-a "$(sql "select count(*) from eras where endpoint='$1'")" = 0
}
history_eras() { "$ZEALOT" history "$1" --json | jq '[.eras[]|select(.endpoint=="'"$1"'")]|length'; }

# 1. two eras of e1
endpoint 4096 2 >e1.env
Z deploy e1.env --reason "first era" --zealot "$UNIT_ZEALOT"
check "deploy e1: exit 0" rc_is 0
endpoint 4096 1 >e1.env
Z deploy e1.env --reason "second era" --zealot "$UNIT_ZEALOT"
check "deploy e1 again: exit 0, e1 serves" eval 'rc_is 0 && serves e1'
check "e1 has 2 eras" test "$(history_eras e1)" = 2

# 2. refusals: nothing changes
echo "LISTEN_PORT=1" >"$R/etc/zealot/busy.env"
Z rename e1 busy --zealot "$UNIT_ZEALOT"
check "rename to a taken name: exit 1, says taken, e1 still serves" \
	eval 'rc_is 1 && grep -q "busy is taken: .*busy.env exists" "$TMP/err" && serves e1 && test ! -e "$R/etc/systemd/system/busy.service"'
for bad in 'a/b' 'a@b' '.x' e1; do
	Z rename e1 "$bad" --json
	check "rename to '$bad': refused (exit 1, JSON outcome refused, why given), e1 still serves" \
		eval 'rc_is 1 && test "$(jq -r .outcome "$TMP/out")" = refused -a -n "$(jq -r .why "$TMP/out")" && serves e1'
done
Z rename nosuch r9
check "rename of an endpoint never deployed: exit 1" eval 'rc_is 1 && grep -q "nosuch has no current era" "$TMP/err"'

# 3. a new unit that does not serve (its ExecStart a binary that exits 1)
# is stopped and removed, and the old one serves again
Z rename e1 bad1 --json --zealot /bin/false --timeout 60
sed 's/^/#   /' "$TMP/err"
check "a new unit that fails: exit 1, outcome rolled-back, e1 serves again, bad1 is gone" \
	eval 'rc_is 1 && test "$(jq -r .outcome "$TMP/out")" = rolled-back && serves e1 && gone bad1 &&
		test "$(X systemctl is-enabled e1.service)" = enabled -a "$(history_eras e1)" = 2'

# 4. the dry run
Z rename e1 r1 --dry-run --json --zealot "$UNIT_ZEALOT"
check "dry run: exit 0, outcome dry-run, five steps said, nothing written" \
	eval 'rc_is 0 && test "$(jq -r .outcome "$TMP/out")" = dry-run -a "$(jq ".steps|length" "$TMP/out")" = 5 &&
		test ! -e "$R/etc/zealot/r1.env" -a ! -e "$R/etc/systemd/system/r1.service" && serves e1'

# 5. the rename
Z rename e1 r1 --json --zealot "$UNIT_ZEALOT"
sed 's/^/#   /' "$TMP/err"
check "rename e1 r1: exit 0, outcome renamed, 2 eras moved" \
	eval 'rc_is 0 && test "$(jq -r .outcome "$TMP/out")" = renamed -a "$(jq -r .eras_moved "$TMP/out")" = 2'
jq -r '.steps[]|"#   \(.)"' "$TMP/out"
check "r1.service is active and serves the same model" serves r1
check "history r1 shows e1's two eras, reasons kept" \
	eval 'test "$(history_eras r1)" = 2 && "$ZEALOT" history r1 | grep -q "first era"'
check "e1 is gone: unit file, endpoint file, systemd's unit, the store's eras" gone e1
check "the store's boots and attempts follow the new name" \
	test "$(sql "select count(*) from boots where endpoint='e1'")" = 0 -a "$(sql "select count(*) from attempts where endpoint='e1'")" = 0 \
	-a "$(sql "select count(*) from attempts where endpoint='r1'")" -ge 2
check "the current era names r1's unit and installed file" \
	test "$(sql "select unit_name||' '||endpoint_path from eras where endpoint='r1' and ended=0")" = "r1.service /etc/zealot/r1.env"
check "r1's unit is enabled" test "$(X systemctl is-enabled r1.service)" = enabled

# 6. kill -9 at each fault point, then the same command again
cut_at() { # FROM TO POINT
	rm -f "$TMP/fault.log"
	ZEALOT_FAULT=rename:$3:kill ZEALOT_FAULT_LOG=$TMP/fault.log run rs_exec "$ZEALOT" rename "$1" "$2" --zealot "$UNIT_ZEALOT"
	check "cut $1 -> $2 at rename:$3: killed there" \
		test "$rc" -ne 0 -a -n "$(grep "^rename:$3 kill 1 " "$TMP/fault.log")"
}
again() { # FROM TO
	from=$1 to=$2
	Z rename "$1" "$2" --json --zealot "$UNIT_ZEALOT"
	sed 's/^/#   /' "$TMP/err"
	check "rerun $1 -> $2: exit 0, renamed, an earlier run's work carried on" \
		eval 'rc_is 0 && test "$(jq -r .outcome "$TMP/out")" = renamed -a "$(jq -r .resumed "$TMP/out")" = true'
	check "rerun $1 -> $2: $2 serves the same model with 2 eras, $1 is gone" \
		eval 'serves "$to" && test "$(history_eras "$to")" = 2 && gone "$from"'
}
cut_at r1 r2 after-install
check "cut after install: the old name still serves, its eras untouched" \
	eval 'serves r1 && test "$(history_eras r1)" = 2 -a "$(active r2)" != active'
again r1 r2
cut_at r2 r3 after-stop
check "cut after stop: nothing serves twice (r2 stopped, r3 not started), the store still r2's" \
	test "$(active r2)" != active -a "$(active r3)" != active -a "$(history_eras r2)" = 2
again r2 r3
cut_at r3 r4 after-record
check "cut after record: r4 serves with the history, r3's files are left" \
	eval 'serves r4 && test "$(history_eras r4)" = 2 -a -e "$R/etc/systemd/system/r3.service"'
again r3 r4

# 7. the renamed endpoint deploys on: a new era follows the moved ones
endpoint 4096 2 >r4.env
Z deploy r4.env --reason "third era, after the renames" --zealot "$UNIT_ZEALOT"
check "deploy r4 after the renames: exit 0, 3 eras, serves" eval 'rc_is 0 && test "$(history_eras r4)" = 3 && serves r4'
check "no sanitizer report" no_sanitizer
