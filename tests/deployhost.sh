# A deploy host for a live suite: a real systemd in a container
# (tests/systemd.sh) binding the test's $TMP, the unit's user, and the plain
# build the unit runs (a sanitizer's leak check at a refusal's exit would
# need ptrace, which the unit's system call filter denies). Source it after
# lib.sh and engine.sh with RS_NAME set; it leaves the test in $TMP with
# R (the container's root), X (run in the container) and UNIT_ZEALOT, and
# prints the boot's TAP line (or fails it and exits).
RS_BIND=$TMP
. "$ROOT/tests/systemd.sh"
cd "$TMP" || exit 1
chmod 755 "$TMP" # the unit's user reads the payloads
export ZEALOT_STATE_DIR=$TMP/state
UNIT_ZEALOT=$ROOT/zealot
[ -x "$UNIT_ZEALOT" ] || { echo "not ok - $UNIT_ZEALOT is not built (make zealot)"; exit 1; }
if ! rs_start; then
	echo "not ok - a real systemd boots in a container (tests/systemd.sh)"
	exit 1
fi
echo "ok - a real systemd boots in a container in $RS_BOOT_MS ms"
R=$(rs_root)
X() { rs_exec "$@"; }
X useradd --system --no-create-home --shell /usr/sbin/nologin zealot-engine

# router_host_env FILE: the three members (router_members, one engine
# thread each) readable by the unit's user, a free port in $port and $url,
# and FILE a router endpoint over them as the unit's user runs it.
router_host_env() {
	router_members "EXTRA_ARGS=--threads 1" || return 1
	chmod -R a+rX models ./*.gguf
	port=$(free_port)
	url=http://127.0.0.1:$port
	cat >"$1" <<X
RUNTIME=$SERVER
MODELS=models
MODELS_MAX=2
LISTEN_PORT=$port
ADDRESSABLE_MIB=16384
USER=zealot-engine
X
}
