# Exit codes as the README and each command's --help state them: 0 success,
# 1 a verdict said no, 2 usage, 3 I/O, network or runtime, 78 serve's gate
# refusal. One row per command and situation, each reachable without the
# engine (tests/live/ hold the ones that need it: deploy's 1 on a refused
# gate and 3 on a failed rollback, fleet deploy's 3 on a host lost mid-way).
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state

# the fixtures the rows use
must "$ZEALOT" synth qwen35 -o q.gguf || exit 1
head -c 100000 q.gguf >trunc.gguf
# a runtime that says its version, as the engine does (check asks it)
printf '#!/bin/sh\necho "version: 7000 (abcdef0)" >&2\n' >llama-server
chmod +x llama-server
endpoint() { # FILE [KEY=VALUE...]: a CPU endpoint on q.gguf, KEY=VALUE over the defaults
	local f=$1 s k
	shift
	{
		for s in "RUNTIME=$TMP/llama-server" MODEL_FILE=q.gguf CTX_SIZE=4096 DEVICE=cpu ADDRESSABLE_MIB=16384 "$@"; do
			k=${s%%=*}
			printf '%s\n' "$@" | grep -q "^$k=" && [[ " $* " != *" $s "* ]] && continue
			echo "$s"
		done
	} >"$f"
}
endpoint ok.env
endpoint big.env ADDRESSABLE_MIB=64
endpoint law.env PARALLEL=4 BATCH_SIZE=2
endpoint bad.env FROBNICATE=1
endpoint baduser.env 'USER=nobody%n'
endpoint pin.env "MODEL_BYTES=$(stat -c %s q.gguf)" MODEL_SHA256=0000000000000000000000000000000000000000000000000000000000000000
# a loopback port nothing listens on
closed=$(free_port)
printf 'MODEL_FILE=n.gguf\nMODEL_URL=http://127.0.0.1:%s/n.gguf\nCTX_SIZE=4096\n' "$closed" >net.env
endpoint dead.env "LISTEN_PORT=$closed"
printf 'no ledger here\n' >plain.log
mkdir -p fleet newer
endpoint fleet/e1.env HOST=gone "LISTEN_PORT=$closed"
printf 'Host gone\n\tHostName 127.0.0.1\n\tPort %s\n\tUser root\n\tStrictHostKeyChecking no\n\tUserKnownHostsFile /dev/null\n' \
	"$closed" >ssh.cfg
sqlite3 newer/zealot.db 'PRAGMA user_version = 99'

# row CODE SITUATION ARGS...: zealot ARGS exits CODE (and, when not 0,
# says something)
row() {
	local want=$1 what=$2
	shift 2
	run "$ZEALOT" "$@"
	if [ "$want" -ne 0 ]; then
		check "$what: exit $want" test "$rc" -eq "$want" -a \( -s "$TMP/err" -o -s "$TMP/out" \)
	else
		check "$what: exit $want" rc_is "$want"
	fi
	no_sanitizer || echo "not ok - $what: a sanitizer report"
}

#   code  situation                                   command
row 2 "no command" 
row 2 "an unknown command"                             frobnicate
row 0 "--version"                                      --version
run env ZEALOT_FAULT=deploy:after-nothing:stop "$ZEALOT" plan ok.env
check "a malformed ZEALOT_FAULT (a point that is none): exit 2 before any command, the point named" \
	test "$rc" -eq 2 -a -n "$(grep -F "ZEALOT_FAULT: 'deploy:after-nothing' is no fault point" "$TMP/err")"
row 0 "inspect: read"                                  inspect q.gguf
row 3 "inspect: a truncated file"                      inspect trunc.gguf
row 3 "inspect: a missing file"                        inspect nothing.gguf
row 2 "inspect: an unknown option"                     inspect --frob q.gguf
row 0 "synth: written"                                 synth qwen35 -o s.gguf
row 2 "synth: invalid geometry"                        synth qwen35 --set vocab=x -o s2.gguf
row 3 "synth: an unwritable output"                    synth qwen35 -o no/such/dir/s.gguf
row 0 "plan: fits"                                     plan ok.env --no-calibration
row 1 "plan: refused (does not fit)"                   plan big.env --no-calibration
row 2 "plan: an invalid endpoint"                      plan bad.env
row 3 "plan: an unreadable endpoint file"              plan missing.env
row 0 "rungs: listed"                                  rungs ok.env
row 2 "rungs: an invalid endpoint"                     rungs bad.env
row 3 "rungs: an unreadable file"                      rungs missing.env
row 0 "solve: a best shape"                            solve ok.env
row 1 "solve: no shape fits"                           solve big.env
row 3 "solve: an unreadable file"                      solve missing.env
row 0 "check: clean"                                   check ok.env
row 1 "check: a law's error (S08)"                     check law.env
row 3 "check: an unreadable file"                      check missing.env
row 0 "argv: printed"                                  argv ok.env
row 2 "argv: an invalid endpoint"                      argv bad.env
row 3 "argv: an unreadable endpoint file"              argv missing.env
row 0 "emit unit: rendered"                            emit unit ok.env
row 2 "emit: an invalid endpoint"                      emit unit bad.env
row 2 "emit unit: a USER that is no user name"         emit unit baduser.env
row 3 "emit: an unreadable file"                       emit unit missing.env
row 78 "serve --dry-run: a gate refuses"               serve --dry-run law.env
row 78 "serve: an unreadable endpoint file (C03: no restart)" serve --dry-run missing.env
row 2 "serve: usage"                                   serve
row 1 "fetch --verify-only: the file does not match its pins" fetch --verify-only pin.env
row 3 "fetch: the server cannot be reached"            fetch net.env
row 2 "fetch: usage"                                   fetch
row 3 "ledger: a log with no ledger lines"             ledger plain.log
row 3 "ledger: an unreadable log"                      ledger missing.log
row 0 "history: nothing recorded"                      history
ZEALOT_STATE_DIR=$TMP/newer row 3 "history: a store from a newer zealot" history
row 2 "rename: one name only"                          rename e1
row 1 "rename: an endpoint never deployed"             rename nosuch other
row 1 "rename: an invalid new name"                    rename e1 b/c
ZEALOT_STATE_DIR=$TMP/newer row 3 "rename: a store from a newer zealot" rename e1 e2
row 2 "diff: no such era"                              diff ok.env 9
row 3 "audit: no engine found"                         audit dead.env
row 3 "bench: the engine did not answer"               bench dead.env
row 3 "probe: a dead server (nothing listens)"         probe "http://127.0.0.1:$closed"
row 3 "probe: a dead server given as HOST:PORT"        probe "127.0.0.1:$closed" --only health
row 3 "probe: a dead Prometheus (--only scrape)"       probe "http://127.0.0.1:$closed" --only scrape --prometheus "http://127.0.0.1:$closed"
row 3 "bench: a dead server given as a URL"            bench "http://127.0.0.1:$closed" --runs 1
row 3 "ledger: a URL (the log is not on the port)"     ledger "http://127.0.0.1:$closed/"
check "ledger: a URL: the error says where the ledger is" err_has "the ledger is in the engine's boot log"
row 3 "probe: an unreadable endpoint"                  probe "http://127.0.0.1:$closed" --endpoint missing.env
row 2 "deploy: no --reason"                            deploy ok.env
row 2 "fleet: no subcommand"                           fleet
row 2 "fleet: an unknown subcommand"                   fleet frob fleet
row 3 "fleet plan: an unreadable directory"            fleet plan nodir
row 3 "fleet status: an unreadable directory"          fleet status nodir
row 1 "fleet status: the endpoint's host unreachable"  fleet status fleet --ssh-config ssh.cfg --timeout 5
row 3 "fleet deploy: the endpoint's host unreachable"  fleet deploy fleet --reason x --ssh-config ssh.cfg
row 3 "fleet history: a host's store cannot be read"   fleet history fleet --ssh-config ssh.cfg
row 2 "fleet deploy: no --reason"                      fleet deploy fleet

# ZEALOT_FAULT's exit action: status 97 (src/base/fault.h), at the point
# named, logged first; here fleet deploy's per-endpoint points, which a host
# that does not answer reaches too
for at in fleet:before-endpoint fleet:after-endpoint; do
	rm -f fault.log
	run env ZEALOT_FAULT=$at:exit ZEALOT_FAULT_LOG=$TMP/fault.log "$ZEALOT" fleet deploy fleet --reason x --ssh-config ssh.cfg
	check "ZEALOT_FAULT=$at:exit: fleet deploy exits 97 there, logged" \
		test "$rc" -eq 97 -a "$(cut -d' ' -f1-3 fault.log 2>/dev/null)" = "$at exit 1"
done
