# The store (SQLite, $ZEALOT_STATE_DIR/zealot.db): ledger --record,
# calibration (law M08) on the seeds' 2026-10-19 journal, history and diff
# over eras written the way deploy writes them, the per-endpoint lock, a
# newer schema refused, and kill -9 mid-write leaving a consistent store.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
EX=$ROOT/examples/history
DB=$ZEALOT_STATE_DIR/zealot.db
# near A B: two figures within 0.005 MiB (both printed to the hundredth)
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.0051) }'; }

# a writer that uses the store the way deploy does (tests/store-fixture.c)
store_fixture fixture
check "the store fixture builds" test -x fixture

# --- ledger --record and calibration: the bar ---------------------------------
run "$ZEALOT" plan "$EX/frank-zealot.env" --json
check "before any record: no store, no calibration" json_is '.calibration' 'null'
check "before any record: compute is the model's alone (the card and its pinned host buffer)" \
	json_is '[.compute[]|.device]' '["CUDA0","CUDA_Host"]'
m0=$(jq -c '[.compute[]|.mib]' "$TMP/out")
mcard=$(jq '.compute[0].mib' "$TMP/out")
mhost=$(jq '.compute[1].mib' "$TMP/out")
run "$ZEALOT" ledger "$EX/frank-zealot-2026-10-19.journal" --record "$EX/frank-zealot.env" --settled-used 22870
check "ledger --record of the seeds' journal: exit 0" rc_is 0
check "ledger --record says which boot it recorded" out_has "recorded as boot 1 of"
check "the store is created in ZEALOT_STATE_DIR" test -s "$DB"
check "the store is in WAL mode" test "$(sqlite3 "$DB" 'PRAGMA journal_mode')" = wal
check "the boot carries the build from the log's build line" \
	test "$(sqlite3 "$DB" 'SELECT runtime_version FROM boots WHERE id = 1')" = b10777-e3de71522
check "the boot carries the device and the payload's size" \
	test "$(sqlite3 "$DB" 'SELECT device, payload_bytes FROM boots WHERE id = 1')" = "rtx3090|$(stat -c %s "$EX/../payloads/bonsai-9b-pq2.gguf")"

run "$ZEALOT" plan "$EX/frank-zealot.env" --json
check "calibrated: compute 1,665.00 (card) + 424.88 (host), as the boot measured" \
	json_is '[.compute[]|[.device,.mib,.card]]' '[["CUDA0",1665,true],["CUDA_Host",424.88,false]]'
check "calibrated: draft compute 480.97 + 424.86" json_is '[.draft_compute[]|.mib]' '[480.97,424.86]'
check "calibrated: the projector's card compute 248.10" json_is '.projector.compute_mib' '248.1'
check "the calibration object names boot 1 and how it matched" json_is '[.calibration.boot,.calibration.runtime_version,.calibration.matched_on]' '[1,"b10777-e3de71522","path"]'
check "per term: measured vs modelled at the recorded shape (the model's CUDA_Host is the boot's)" \
	json_is '[.calibration.terms[]|select(.term=="compute")|[.device,.modelled_mib,.measured_mib,.how]]' \
	"[[\"CUDA0\",$mcard,1665,\"measured\"],[\"CUDA_Host\",$mhost,424.88,\"measured\"]]"
"$ZEALOT" ledger "$EX/frank-zealot-2026-10-19.journal" --json >ledger.json
card=$(jq '[(.model+.lora)[]|select(.device|test("^CUDA[0-9]"))|.mib] + [.target.kv.mib,.target.recurrent.mib,.draft.kv.mib]
	+ [(.target.compute+.draft.compute+.projector.compute)[]|select(.device|test("^CUDA[0-9]"))|.mib]
	+ [.projector.model_mib] | add' ledger.json)
check "overhead = settled 22,870 minus the ledger's card terms ($card)" \
	near "$(jq '.overhead_mib' "$TMP/out")" "$(awk -v c="$card" 'BEGIN { printf "%.2f", 22870 - c }')"
run "$ZEALOT" plan "$EX/frank-zealot.env"
check "text: calibrated from boot 1 of <date>" out_has "calibrated from boot 1 of "
check "text: the calibrated rows say so" out_has "calibrated"

run "$ZEALOT" plan "$EX/frank-zealot.env" --json --no-calibration
check "--no-calibration: the model alone" json_is '[[.compute[]|.mib],.calibration]' "[$m0,null]"

# another shape: each modelled term scaled by measured/modelled at the boot
"$ZEALOT" plan "$EX/frank-zealot.env" --json --no-calibration --set UBATCH_SIZE=512 >u512.json
run "$ZEALOT" plan "$EX/frank-zealot.env" --json --set UBATCH_SIZE=512
m=$(jq '.compute[0].mib' u512.json)
mh=$(jq '.compute[1].mib' u512.json)
# (two figures rounded to the hundredth on the way in: 0.02 MiB)
near2() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.0201) }'; }
check "ubatch 512: CUDA0 = model ($m) x 1665.00/$mcard" \
	near2 "$(jq -r '.compute[0].mib' "$TMP/out")" "$(awk -v m="$m" -v b="$mcard" 'BEGIN { printf "%.2f", m * 1665 / b }')"
check "ubatch 512: CUDA_Host = model ($mh) x 424.88/$mhost" \
	near2 "$(jq -r '.compute[1].mib' "$TMP/out")" "$(awk -v m="$mh" -v b="$mhost" 'BEGIN { printf "%.2f", m * 424.88 / b }')"
check "ubatch 512: labelled scaled" json_is '[.calibration.terms[]|select(.term=="compute")|.how]' '["scaled","scaled"]'

run "$ZEALOT" plan "$EX/frank-zealot.env" --json --device rtx4090
check "another device: not calibrated" json_is '.calibration' 'null'
run "$ZEALOT" plan "$EX/frank-zealot.env" --set MODEL_BYTES=12345
check "another payload (a MODEL_BYTES pin that differs): not calibrated, and says why" out_has "uncalibrated: no boot of this device and payload"

# a runtime that runs here is matched on its version, read once and cached
# (runtime_ask: sandboxed, so as nobody under root; the directory is theirs to reach)
chmod 755 "$TMP"
mkdir -p rt && chmod 1777 rt && cd rt || exit 1
cat >rt-a <<'X'
#!/bin/sh
echo run >>"${0%/*}/rt-a.runs"
[ "$1" = --version ] && echo "version: 0.2.0-dev (build 10777, commit e3de71522)" >&2
X
sed 's/10777/10778/; s/rt-a.runs/rt-b.runs/' rt-a >rt-b
chmod +x rt-a rt-b
run "$ZEALOT" plan "$EX/frank-zealot.env" --json --set RUNTIME="$TMP/rt/rt-a"
check "a runtime that says build 10777 (e3de71522): calibrated, matched on its version" json_is '[.calibration.boot,.calibration.matched_on]' '[1,"version"]'
run "$ZEALOT" plan "$EX/frank-zealot.env" --json --set RUNTIME="$TMP/rt/rt-a"
check "its --version is read once, then cached by the binary's SHA-256" test "$(wc -l <rt-a.runs)" -eq 1
run "$ZEALOT" plan "$EX/frank-zealot.env" --set RUNTIME="$TMP/rt/rt-b"
check "another build (10778): not calibrated, naming the build" out_has "none of this runtime (b10778-e3de71522)"
echo '# another build of the same' >>rt-a
run "$ZEALOT" plan "$EX/frank-zealot.env" --json --set RUNTIME="$TMP/rt/rt-a"
check "a changed runtime (other bytes) is asked again" test "$(wc -l <rt-a.runs)" -eq 2
cd "$TMP" || exit 1

cp "$EX/frank-zealot.env" "$TMP/.hidden.env"
sed -i "s|=\.\./payloads/|=$EX/../payloads/|" "$TMP/.hidden.env"
run "$ZEALOT" ledger "$EX/frank-zealot-2026-10-19.journal" --record "$TMP/.hidden.env"
check "an endpoint name that cannot be a path is refused (exit 2)" rc_is 2
check "... naming why" err_has "may not start with '.'"
run "$ZEALOT" ledger "$EX/frank-zealot-2026-10-19.journal" --settled-used 5
check "--settled-used without --record is a usage error" rc_is 2

# --- eras, history, diff ------------------------------------------------------
for e in frank-zealot-2026-10-17 frank-zealot-2026-10-18 frank-zealot; do
	"$ZEALOT" plan --no-calibration --json "$EX/$e.env" >"$e.plan.json"
done
./fixture era "$ZEALOT_STATE_DIR" frank-zealot "$EX/frank-zealot-2026-10-17.env" frank-zealot-2026-10-17.plan.json 1792224000 \
	"the 9B bills half the KV per token" >/dev/null
./fixture era "$ZEALOT_STATE_DIR" frank-zealot "$EX/frank-zealot-2026-10-18.env" frank-zealot-2026-10-18.plan.json 1792300000 \
	"Frank ordered unquantized KV" >/dev/null
./fixture era "$ZEALOT_STATE_DIR" frank-zealot "$EX/frank-zealot.env" frank-zealot.plan.json 1792400000 \
	"Frank ordered the refusal direction removed" >/dev/null
echo '{"probes":[{"name":"health","status":"pass"},{"name":"chat","status":"fail"},{"name":"vision","status":"skip"}]}' >probes.json
./fixture boot "$ZEALOT_STATE_DIR" frank-zealot 3 ledger.json probes.json >/dev/null
./fixture attempt "$ZEALOT_STATE_DIR" frank-zealot deploy "arm the drafter" rolled-back \
	gates:ok:0.2:clean install:ok:0.1: "verify:failed:3.5:ledger differs on kv" >/dev/null
./fixture attempt "$ZEALOT_STATE_DIR" frank-zealot deploy "cut over" - gates:ok:0.2:clean >/dev/null

run "$ZEALOT" history frank-zealot --json
check "history --json: three eras, oldest first, with their reasons" \
	json_is '[.eras[]|[.id,.reason]]' '[[1,"the 9B bills half the KV per token"],[2,"Frank ordered unquantized KV"],[3,"Frank ordered the refusal direction removed"]]'
check "each era ended when the next started; only the last is current" \
	json_is '[.eras[]|[.started,.ended,.current]]' '[[1792224000,1792300000,false],[1792300000,1792400000,false],[1792400000,0,true]]'
check "keys: the endpoint file's keys, parsed back from the stored text" \
	json_is '.eras[2].keys|[.CTX_SIZE,.PARALLEL,.CACHE_TYPE_V,.SPEC_TYPE,.LORA_FILE]' '["602112","3","q8_0","draft-mtp","../payloads/bonsai-9b-lora.gguf"]'
check "keys: only what the file writes (no defaults)" json_is '.eras[1].keys.JINJA' 'null'
check "rollback of era 3: to era 2, with the key lines that change" \
	json_is '.eras[2].rollback|[.to,.command,([.keys[]|select(.key=="CTX_SIZE")|.to][0])]' '[2,"zealot rollback frank-zealot 2","524288"]'
check "the first era has no rollback" json_is '.eras[0].rollback' 'null'
check "the runtime's build from its version line" json_is '.eras[0].runtime_build' '"b10777-e3de71522"'
check "the era's boot with its ledger and probes" json_is '.eras[2].boots|[length,.[0].ledger.target.kv.mib,(.[0].probes.probes|length)]' '[1,14406,3]'
check "the boot recorded from a log is listed apart" json_is '[.boots[]|[.id,.era_id,.settled_used_mib]]' '[[1,0,22870]]'
check "attempts: rolled-back with its failed step, and one never ended: interrupted" \
	json_is '[.attempts[]|[.outcome,(.steps|length),.steps[-1].status]]' '[["rolled-back",3,"failed"],["interrupted",1,"ok"]]'
run "$ZEALOT" history frank-zealot
check "history: exit 0" rc_is 0
check "history text: each era with its window, payload, runtime, shape, reason and rollback" \
	bash -c "grep -q '^era 3  frank-zealot  .* -> (current)' '$TMP/out' && grep -q '  shape     3 x 200,704, f16 K + q8_0 V, batch 6144/1024, draft-mtp depth 2, rtx3090' '$TMP/out' && grep -q 'rollback  zealot rollback frank-zealot 2' '$TMP/out' && grep -q 'payload   bonsai-9b-pq2.gguf + projector' '$TMP/out'"
check "history text: the boot's figures and probes" out_has_unwrapped "KV 14,406.00, compute 1,665.00 + 424.88, draft 480.97 + 424.86; probes 1 pass, 1 fail, 1 skip (failed: chat)"
check "history text: the interrupted attempt" out_has "deploy frank-zealot: interrupted"
# the widest line, but for one unbreakable word (a path) on a line of its own
widest() { awk 'NF > 1 { if (length > m) m = length } END { print m + 0 }' "$1"; }
check "history text: fits 100 columns in a pipe ($(widest "$TMP/out"))" test "$(widest "$TMP/out")" -le 100
if command -v script >/dev/null; then
	script -qec "stty cols 80 rows 50; \"$ZEALOT\" history frank-zealot" /dev/null | tr -d '\r' >history.tty
	check "history on an 80-column terminal: every line fits 80 ($(widest history.tty))" \
		test "$(widest history.tty)" -le 80 -a -n "$(grep -F 'era 3' history.tty)"
fi
run "$ZEALOT" history "$EX/frank-zealot.env" --json
check "history takes the endpoint file too" json_is '.eras|length' '3'
run "$ZEALOT" history other --json
check "another endpoint: nothing" json_is '[(.eras|length),(.attempts|length)]' '[0,0]'
run "$ZEALOT" history --help
check "history --help documents --json" out_has '"eras": [{"id", "endpoint", "started", "ended"'

run "$ZEALOT" diff frank-zealot 2 3 --json
check "diff 2 3: the keys that changed, by value in force" \
	json_is '[.keys[]|select(.key=="CTX_SIZE" or .key=="SPEC_TYPE" or .key=="LORA_FILE")|[.key,.from,.to]]' \
	'[["LORA_FILE","","../payloads/bonsai-9b-lora.gguf"],["CTX_SIZE","524288","602112"],["SPEC_TYPE","none","draft-mtp"]]'
check "diff 2 3: a key written at its default is no change (JINJA)" json_is '[.keys[]|select(.key=="JINJA")]|length' '0'
check "diff 2 3: the plan term by term (KV 16,384.00 -> 14,406.00)" \
	json_is '.plan[]|select(.term=="kv")|[.from_mib,.to_mib,.delta_mib]' '[16384,14406,-1978]'
check "diff 2 3: a term one side lacks (draft compute, on the card and in its pinned host buffer)" \
	json_is '[.plan[]|select(.term=="draft_compute")|[.from_mib,.to_mib]]' '[[null,480.97],[null,424.86]]'
run "$ZEALOT" diff frank-zealot 2 --json
check "diff ERA: against the current era" json_is '[.from.era,.to.era]' '[2,3]'
run "$ZEALOT" diff "$EX/frank-zealot.env" --json
check "diff with no era: the current era against the file, planned now (calibrated)" \
	json_is '[.from.era,.to.era,.to.calibrated,.changed_keys]' '[3,null,true,0]'
check "... whose compute differs by the calibration" json_is '.plan[]|select(.term=="compute" and .device=="CUDA0")|.to_mib' '1665'
run "$ZEALOT" diff frank-zealot
check "diff NAME: the file the current era installed" out_has "diff frank-zealot: era 3 (current) -> file (boot 1)"
run "$ZEALOT" diff frank-zealot 9
check "diff of an era that does not exist: exit 2, naming it" bash -c "[ $rc -eq 2 ] && grep -q 'no era 9 of' '$TMP/err'"
run "$ZEALOT" diff frank-zealot x
check "diff of a word that is no era: exit 2" rc_is 2

# --- the lock -----------------------------------------------------------------
./fixture lock "$ZEALOT_STATE_DIR" frank-zealot >lock.out &
holder=$!
wait_for 60 grep -q locked lock.out
run ./fixture lock "$ZEALOT_STATE_DIR" frank-zealot
check "a second lock of one endpoint is refused, naming the holder's pid" \
	bash -c "[ $rc -ne 0 ] && grep -q \"locked by pid $holder\" '$TMP/err'"
run "$ZEALOT" history frank-zealot --json
check "taking the lock recorded the attempt left open before as interrupted" json_is '.attempts[1].outcome' '"interrupted"'
check "while the lock is held, the holder's open attempt reads running" json_is '.attempts[2].outcome' '"running"'
kill -9 "$holder"
wait "$holder" 2>/dev/null
run "$ZEALOT" history frank-zealot --json
check "its holder killed with -9: the attempt reads interrupted" json_is '.attempts[2].outcome' '"interrupted"'
./fixture lock "$ZEALOT_STATE_DIR" frank-zealot >relock.out 2>&1 &
holder=$!
wait_for 60 grep -q locked relock.out
kill -9 "$holder"
wait "$holder" 2>/dev/null
check "the lock is free again after kill -9" grep -q locked relock.out

# --- a store from a newer zealot ---------------------------------------------
mkdir -p future
cp "$DB" future/zealot.db
sqlite3 future/zealot.db 'PRAGMA user_version = 99'
run env ZEALOT_STATE_DIR="$TMP/future" "$ZEALOT" history
check "a store from a newer zealot: exit 3, naming its version" bash -c "[ $rc -eq 3 ] && grep -q 'schema version 99 is newer' '$TMP/err'"
check "... and left at that version" test "$(sqlite3 future/zealot.db 'PRAGMA user_version')" = 99

# --- damage (issue 18, item 10) --------------------------------------------------
# A copy of the store with one index page overwritten: sqlite's own
# integrity_check fails; every command that opens the store must refuse it
# (exit 3) with the way to recover, and write nothing.
mkdir -p damaged
SV=$(sqlite3 "$DB" 'PRAGMA user_version') # the schema this zealot writes
sqlite3 "$DB" ".backup damaged/zealot.db"
sqlite3 damaged/zealot.db 'PRAGMA journal_mode=DELETE' >/dev/null
eras_before=$(sqlite3 damaged/zealot.db 'SELECT count(*) FROM eras')
root=$(sqlite3 damaged/zealot.db "SELECT rootpage FROM sqlite_master WHERE name='eras_one_current'")
ps=$(sqlite3 damaged/zealot.db 'PRAGMA page_size')
cp damaged/zealot.db whole.db
head -c "$ps" /dev/zero | tr '\0' '\377' | dd of=damaged/zealot.db bs="$ps" seek=$((root - 1)) conv=notrunc status=none
check "damage: sqlite's integrity_check fails on the copy (page $root of $ps bytes)" \
	test "$(sqlite3 damaged/zealot.db 'PRAGMA integrity_check' 2>&1)" != ok
sum_before=$(sha256sum <damaged/zealot.db)
run env ZEALOT_STATE_DIR="$TMP/damaged" "$ZEALOT" history
check "damage: history exits 3" rc_is 3
check "damage: history says the store is damaged and how to recover (.dump, the WAL, the version)" \
	bash -c "grep -q 'zealot.db is damaged' '$TMP/err' && grep -q '.dump' '$TMP/err' && grep -q -- '-wal' '$TMP/err' && grep -q 'user_version = $SV' '$TMP/err'"
run env ZEALOT_STATE_DIR="$TMP/damaged" "$ZEALOT" ledger "$EX/frank-zealot-2026-10-19.journal" --record "$EX/frank-zealot.env"
check "damage: ledger --record exits 3, saying so" bash -c "[ $rc -eq 3 ] && grep -q 'is damaged' '$TMP/err'"
check "damage: nothing was written to it" test "$(sha256sum <damaged/zealot.db)" = "$sum_before"
run env ZEALOT_STATE_DIR="$TMP/damaged" "$ZEALOT" store check
check "store check of the damaged store: exit 1, DAMAGED, the check's own line" \
	bash -c "[ $rc -eq 1 ] && grep -q 'quick_check: DAMAGED' '$TMP/out' && grep -q 'is damaged' '$TMP/err'"
run env ZEALOT_STATE_DIR="$TMP/damaged" "$ZEALOT" store check --json --full
check "store check --json --full: ok false, problems, a recovery text" \
	json_is '[.ok,.check,(.problems|length>0),(.recovery|test("recover"))]' '[false,"integrity_check",true,true]'
# the recovery the message gives, followed to the letter
(cd damaged && sqlite3 zealot.db .dump >dump.sql && sqlite3 new.db <dump.sql && sqlite3 new.db "PRAGMA user_version = $SV" &&
	mv new.db zealot.db && rm -f zealot.db-wal zealot.db-shm)
run env ZEALOT_STATE_DIR="$TMP/damaged" "$ZEALOT" history --json
check "damage: after the recovery it gives, history reads every era again ($eras_before)" \
	bash -c "[ $rc -eq 0 ] && [ \"\$(jq '.eras|length' '$TMP/out')\" = '$eras_before' ]"
run "$ZEALOT" store check --json
check "store check of a whole store: exit 0, ok, its schema version" \
	bash -c "[ $rc -eq 0 ] && [ \"\$(jq -c '[.ok,.schema_version,.exists]' '$TMP/out')\" = '[true,$SV,true]' ]"
run env ZEALOT_STATE_DIR="$TMP/none-yet" "$ZEALOT" store check
check "store check with no store yet: exit 0, says so" bash -c "[ $rc -eq 0 ] && grep -q 'none yet' '$TMP/out'"
run "$ZEALOT" store --help
check "store --help: usage, exits, --json keys" \
	bash -c "[ $rc -eq 0 ] && grep -q 'zealot store check' '$TMP/out' && grep -q 'recovery' '$TMP/out' && grep -q '1 it is damaged' '$TMP/out'"
run "$ZEALOT" store vacuum
check "store: an unknown subcommand is usage (2)" rc_is 2

# --- a backup before each migration ------------------------------------------
# A version-1 store (as zealot 1 wrote it: no runtime_versions table) is
# copied to zealot.db.v1.bak before it is migrated; a damaged store names it.
mkdir -p old
cp whole.db old/zealot.db
sqlite3 old/zealot.db 'DROP TABLE runtime_versions; DROP TABLE IF EXISTS baselines; DROP TABLE IF EXISTS arms; DROP TABLE IF EXISTS era_members; PRAGMA user_version = 1'
run env ZEALOT_STATE_DIR="$TMP/old" "$ZEALOT" history
check "migration: history of a version-1 store: exit 0, migrated to $SV" \
	test "$rc" -eq 0 -a "$(sqlite3 old/zealot.db 'PRAGMA user_version')" = "$SV"
check "migration: the backup zealot.db.v1.bak holds version 1 and every era" \
	test "$(sqlite3 old/zealot.db.v1.bak 'PRAGMA user_version')" = 1 -a \
	"$(sqlite3 old/zealot.db.v1.bak 'SELECT count(*) FROM eras')" = "$eras_before"
head -c "$ps" /dev/zero | tr '\0' '\377' | dd of=old/zealot.db bs="$ps" seek=$(($(sqlite3 old/zealot.db "SELECT rootpage FROM sqlite_master WHERE name='eras_one_current'") - 1)) conv=notrunc status=none
run env ZEALOT_STATE_DIR="$TMP/old" "$ZEALOT" history
check "migration: a damaged store's message names the backup" \
	bash -c "[ $rc -eq 3 ] && grep -qF 'zealot.db.v1.bak' '$TMP/err'"

# --- a read-only state directory ---------------------------------------------
mkdir -p rostate
if mount -t tmpfs -o size=4m,mode=0700 tmpfs rostate 2>/dev/null; then
	cp whole.db rostate/zealot.db
	mount -o remount,ro rostate
	run env ZEALOT_STATE_DIR="$TMP/rostate" "$ZEALOT" history
	check "read-only state directory: exit 3, named read-only (not 'not a database')" \
		bash -c "[ $rc -eq 3 ] && grep -q 'state directory .* is read-only' '$TMP/err' && ! grep -q 'not a database' '$TMP/err'"
	run env ZEALOT_STATE_DIR="$TMP/rostate" "$ZEALOT" ledger "$EX/frank-zealot-2026-10-19.journal" --record "$EX/frank-zealot.env"
	check "read-only state directory: ledger --record exit 3, named read-only" \
		bash -c "[ $rc -eq 3 ] && grep -q 'is read-only' '$TMP/err'"
	umount rostate
else
	echo "ok - read-only state directory # SKIP cannot mount a tmpfs here"
fi

# --- kill -9 mid-write ----------------------------------------------------------
# A writer that commits eras, steps, boots and attempts the way deploy does,
# killed (SIGKILL, as kill -9) at a named point of a named transaction
# (ZEALOT_FAULT, src/base/fault.h), so each cut lands at the same write every
# run. Each round of the writer is five transactions: 1 the attempt, 2 its
# step, 3 the era (two statements: the previous era ended, the new one
# added), 4 the boot, 5 the attempt's end; then it prints the era's id.
# Then zealot's own ledger --record, killed in and after its transactions.
export ZEALOT_STATE_DIR=$TMP/crash
mkdir -p "$ZEALOT_STATE_DIR"
committed=0
want=0
# POINT@PASS ERAS: killed there, the store then holds ERAS more eras
for cut in "before-commit@13 2" "after-commit@13 3" "before-commit@9 2" "after-commit@1 0" \
	"before-commit@25 5" "after-commit@30 6" "before-commit@3 0"; do
	read -r at eras <<<"$cut"
	point=store:${at%@*}
	before=$(sqlite3 "$ZEALOT_STATE_DIR/zealot.db" 'SELECT count(*) FROM eras' 2>/dev/null || echo 0)
	ZEALOT_FAULT=$point:kill@${at#*@} ZEALOT_FAULT_LOG=$TMP/crash.log ./fixture hammer "$ZEALOT_STATE_DIR" 7 >hammer.out 2>/dev/null
	hrc=$?
	after=$(sqlite3 "$ZEALOT_STATE_DIR/zealot.db" 'SELECT count(*) FROM eras')
	check "killed at $point pass ${at#*@} (status $hrc): $eras more eras, $(wc -l <hammer.out) reported" \
		test "$hrc" -eq 137 -a "$(tail -1 "$TMP/crash.log" | cut -d' ' -f1-3)" = "$point kill ${at#*@}" \
		-a "$((after - before))" -eq "$eras"
	committed=$((committed + $(wc -l <hammer.out)))
	want=$((want + eras))
done
# ledger --record writes one transaction (the boot): killed before its
# commit the store holds no more boots, killed after it one more
boots() { sqlite3 "$ZEALOT_STATE_DIR/zealot.db" 'SELECT count(*) FROM boots'; }
led=""
for at in before-commit after-commit; do
	b0=$(boots)
	ZEALOT_FAULT=store:$at:kill ZEALOT_FAULT_LOG=$TMP/crash.log \
		"$ZEALOT" ledger "$EX/frank-zealot-2026-10-19.journal" --record "$EX/frank-zealot.env" >/dev/null 2>&1
	led+="$? $(tail -1 "$TMP/crash.log" | cut -d' ' -f1) +$(($(boots) - b0)) "
done
check "ledger --record killed at store:before-commit (no boot) and store:after-commit (the boot kept)" \
	test "$led" = "137 store:before-commit +0 137 store:after-commit +1 "
echo "# $committed eras reported committed, $want in the store by the cuts"
check "after kill -9: PRAGMA integrity_check says ok" test "$(sqlite3 "$ZEALOT_STATE_DIR/zealot.db" 'PRAGMA integrity_check')" = ok
run "$ZEALOT" history --json
check "after kill -9: history reads the store" rc_is 0
check "every era the writer saw committed is there, and each one the cuts let commit" \
	test "$(jq '.eras|length' "$TMP/out")" -ge "$committed" -a "$(jq '.eras|length' "$TMP/out")" -eq "$want"
check "at most one current era per endpoint" json_is '[.eras|group_by(.endpoint)[]|map(select(.current))|length<=1]|all' 'true'
check "each era ends where the next of its endpoint starts" \
	json_is '[.eras|group_by(.endpoint)[]|sort_by(.id)|[range(1;length) as $i|.[$i-1].ended==.[$i].started]|all]|all' 'true'
check "every boot of an era points at an era that exists" \
	test "$(sqlite3 "$ZEALOT_STATE_DIR/zealot.db" 'SELECT count(*) FROM boots WHERE era_id != 0 AND era_id NOT IN (SELECT id FROM eras)')" = 0
check "every boot's ledger is whole JSON" json_is '[(.eras[].boots[]),(.boots[])|.ledger|type=="object"]|all' 'true'
check "every attempt either ended or reads interrupted" \
	json_is '[.attempts[]|.outcome=="deployed" or .outcome=="interrupted"]|all' 'true'
check "every step belongs to an attempt" \
	test "$(sqlite3 "$ZEALOT_STATE_DIR/zealot.db" 'SELECT count(*) FROM steps WHERE attempt_id NOT IN (SELECT id FROM attempts)')" = 0
check "no sanitizer report" no_sanitizer

# --- help ---------------------------------------------------------------------
run "$ZEALOT" diff --help
check "diff --help: usage, eras, --json keys" bash -c "[ $rc -eq 0 ] && grep -q 'zealot diff ENDPOINT \[ERA \[ERA\]\]' '$TMP/out' && grep -q 'delta_mib' '$TMP/out'"
run "$ZEALOT" ledger --help
check "ledger --help documents --record and --settled-used" bash -c "grep -q -- '--record' '$TMP/out' && grep -q -- '--settled-used' '$TMP/out'"
run "$ZEALOT" plan --help
check "plan --help documents calibration and --no-calibration" bash -c "grep -q 'law M08' '$TMP/out' && grep -q -- '--no-calibration' '$TMP/out'"
run "$ZEALOT" history extra args
check "history with two arguments is a usage error" rc_is 2
