# A fleet on one machine for the tests: each host is a systemd-nspawn
# container (tests/systemd.sh) running its own systemd and its own sshd on
# a loopback port of its own. The containers share the host's network
# namespace, so a host's sshd and its endpoints answer on 127.0.0.1.
#
# Each host gets its own host keys (the overlay's copies of the build
# host's keys are removed, then `ssh-keygen -A`), a drop-in
# /etc/ssh/sshd_config.d/zealot.conf with `Port N` and `ListenAddress
# 127.0.0.1`, root's authorized_keys holding the test's client key, and
# `systemctl start ssh`. The test's side, under $FLEET_SSH (in $TMP):
#
#   id, id.pub       the client key (ed25519, no passphrase)
#   known_hosts      every host's public host keys, as [127.0.0.1]:PORT
#   config           an ssh config (`ssh -F`): one `Host NAME` alias per
#                    host (HostName 127.0.0.1, its Port, User root, the
#                    key, this known_hosts, StrictHostKeyChecking yes)
#
# This build ($ROOT, read-only), the engine's tree (read-only) and $TMP
# (read-write: payloads, endpoint files) are bound into every host at the
# same path (a path with a space too), and /usr/local/bin/zealot in each host is $FLEET_ZEALOT (the
# plain build by default: the unit's sandbox denies a sanitizer's ptrace),
# so `ssh NAME zealot ...` runs this build there.
#
# Source after lib.sh and engine.sh, then:
#
#   fleet_start NAME...      boot one host per NAME (sets FLEET_PORT[NAME]);
#                            non-zero, with the log, on failure
#   fleet_exec NAME CMD...   run CMD inside host NAME (as rs_exec)
#   fleet_root NAME          the build host's path of host NAME's "/"
#   fleet_ssh NAME CMD...    ssh -F $FLEET_SSH/config NAME CMD (BatchMode)
#   fleet_stop NAME          power host NAME off, in order (systemd stops
#                            its units, sshd last)
#   fleet_cut NAME           cut host NAME's power: its PID 1 is killed, and
#                            every process in it with it (a connection to it
#                            drops mid-command); then cleaned up as fleet_stop
#
# Every host is powered off at the test's exit (rs_start's EXIT trap).
# Needs root, systemd-nspawn and openssh-server installed on the build host
# without running (scripts/install-deps.sh installs it under a policy-rc.d
# that forbids starting it).

. "$(dirname "${BASH_SOURCE[0]}")/systemd.sh"

FLEET_SSH=$TMP/ssh
FLEET_ZEALOT=${FLEET_ZEALOT:-$ROOT/zealot}
declare -A FLEET_PORT=()

_fleet_say() { echo "# fleet.sh: $*" >&2; }

# _fleet_as NAME CMD...: CMD with tests/systemd.sh pointed at host NAME.
_fleet_as() {
	local RS_NAME=zl-fl$$-$1 RS_DIR=/tmp/zealot-systemd/zl-fl$$-$1
	shift
	"$@"
}

fleet_exec() { _fleet_as "$1" rs_exec "${@:2}"; }
fleet_root() { _fleet_as "$1" rs_root; }
fleet_stop() { _fleet_as "$1" rs_stop; }
_fleet_cut() {
	local l
	l=$(_rs_leader) && kill -KILL "$l"
	rs_stop
}
fleet_cut() { _fleet_as "$1" _fleet_cut; }
fleet_ssh() { ssh -F "$FLEET_SSH/config" -o BatchMode=yes -o ConnectTimeout=5 "$@"; }

_fleet_client() {
	[ -s "$FLEET_SSH/id" ] && return 0
	mkdir -p "$FLEET_SSH" && chmod 700 "$FLEET_SSH" || return 1
	ssh-keygen -q -t ed25519 -N '' -C zealot-fleet-test -f "$FLEET_SSH/id" || return 1
	: >"$FLEET_SSH/known_hosts"
	: >"$FLEET_SSH/config"
}

# _fleet_boot NAME: boot host NAME (in this shell: rs_start sets the trap
# that powers it off at exit).
_fleet_boot() {
	# (tests/systemd.sh binds $ROOT and the engine's tree read-only itself)
	RS_BIND="$TMP
${RS_BIND:-}" rs_start
}

# _fleet_sshd NAME PORT: host NAME's own host keys, its sshd on PORT, the
# test's key for root; its known_hosts lines and config entry into
# $FLEET_SSH/hosts/NAME.{known_hosts,config}. Hosts run this at once.
_fleet_sshd() {
	local name=$1 port=$2 r k
	r=$(rs_root) || return 1
	rs_exec sh -c 'rm -f /etc/ssh/ssh_host_*_key /etc/ssh/ssh_host_*_key.pub && ssh-keygen -A' >/dev/null || return 1
	# UsePAM no: pam_systemd would start root's user manager for every
	# session, 0.4 s a command; a key login needs no PAM
	printf 'Port %s\nListenAddress 127.0.0.1\nPasswordAuthentication no\nUsePAM no\n' "$port" \
		>"$r/etc/ssh/sshd_config.d/zealot.conf"
	mkdir -p "$r/root/.ssh" && chmod 700 "$r/root/.ssh"
	# bash runs root's ~/.bashrc for every ssh command: the build host's may
	# load anything (pyenv: 0.4 s a command); a host's root starts clean
	: >"$r/root/.bashrc"
	cp "$FLEET_SSH/id.pub" "$r/root/.ssh/authorized_keys" && chmod 600 "$r/root/.ssh/authorized_keys"
	ln -sf "$FLEET_ZEALOT" "$r/usr/local/bin/zealot"
	# the build host's enabled ssh.service is masked in every container:
	# unmask (which reloads) and start it here, on this host's port
	rs_exec systemctl unmask --quiet ssh.service sshd.service || return 1
	if ! rs_exec systemctl start ssh.service; then
		rs_exec journalctl -u ssh.service --no-pager -o cat | tail -5 | sed 's/^/# sshd: /' >&2
		return 1
	fi
	for k in "$r"/etc/ssh/ssh_host_*_key.pub; do
		echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$k")"
	done >"$FLEET_SSH/hosts/$name.known_hosts"
	cat >"$FLEET_SSH/hosts/$name.config" <<C
Host $name
	HostName 127.0.0.1
	Port $port
	User root
	IdentityFile $FLEET_SSH/id
	IdentitiesOnly yes
	UserKnownHostsFile $FLEET_SSH/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	UpdateHostKeys no
	LogLevel ERROR

C
}

fleet_start() {
	local name t0 p taken="" pids=() i=0 bad=0
	t0=$(_rs_ms)
	_fleet_client || return 1
	mkdir -p "$FLEET_SSH/hosts"
	for name in "$@"; do
		if ! _fleet_as "$name" _fleet_boot; then
			_fleet_say "host $name did not boot"
			return 1
		fi
		# a port of its own: nothing binds it until its sshd starts
		for _ in $(seq 20); do
			p=$(free_port) || return 1
			[[ " $taken " == *" $p "* ]] || break
		done
		taken+=" $p"
		FLEET_PORT[$name]=$p
	done
	for name in "$@"; do
		_fleet_as "$name" _fleet_sshd "$name" "${FLEET_PORT[$name]}" &
		pids+=($!)
	done
	for name in "$@"; do
		if ! wait "${pids[$i]}"; then
			_fleet_say "host $name: its sshd did not come up"
			bad=1
		fi
		i=$((i + 1))
	done
	[ "$bad" = 0 ] || return 1
	for name in "$@"; do
		cat "$FLEET_SSH/hosts/$name.known_hosts" >>"$FLEET_SSH/known_hosts"
		cat "$FLEET_SSH/hosts/$name.config" >>"$FLEET_SSH/config"
	done
	for name in "$@"; do
		if ! fleet_ssh "$name" true; then
			_fleet_say "host $name: ssh does not answer on port ${FLEET_PORT[$name]}"
			return 1
		fi
		_fleet_say "host $name up: sshd on 127.0.0.1:${FLEET_PORT[$name]}"
	done
	_fleet_say "$# hosts up in $(($(_rs_ms) - t0)) ms"
}
