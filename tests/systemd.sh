# A real systemd for the tests: systemd as PID 1 of a throw-away
# systemd-nspawn container, on a host whose own PID 1 is not systemd.
#
# The container's root is an overlay whose lower layer is the host's "/"
# (its binaries, libraries, the engine cache and this build) and whose upper
# layer is a tmpfs, so every write inside vanishes at rs_stop. The network
# namespace is the host's: a port bound inside answers on the host's
# 127.0.0.1 (and collides with host ports). Boot takes about a second.
#
# Source it from a test (after lib.sh), then:
#
#   RS_NAME=zl-mytest-$$     a machine name unique to this test file and run
#   RS_BIND="$TMP"           host paths bound read-write at the same path
#                            (files written there after boot are seen inside);
#                            several: one a line (a path may hold a space)
#   RS_BIND_RO="DIR..."      host paths bound read-only at the same path (one
#                            a line)
#
# This build ($ROOT) and the engine's build tree (two up from $ENGINE, its
# bin directory, when set) are bound read-only as well: the container's systemd mounts its own /tmp, so
# a clone or an engine under the host's /tmp would not be seen inside.
#   rs_start                 boot; returns non-zero (with the log) on failure
#   rs_exec CMD ARGS...      run CMD inside (all the container's namespaces,
#                            this environment, the caller's cwd if it exists
#                            inside): its systemctl talks to the container's
#                            systemd, its /proc is the container's
#   rs_root                  the host path of the container's "/"
#   rs_stop                  power off, unmount, remove cgroups and state
#
# Several containers at once: set RS_NAME and RS_DIR before each rs_start
# and each call (tests/fleet.sh does, one per host).
#
# rs_start chains rs_stop onto the EXIT trap (keeping the one lib.sh and
# engine.sh set) and turns INT/TERM into an exit, so a failing or killed test
# never leaves a container behind.
#
# Run directly, it is a small tool: tests/systemd.sh start|exec CMD...|root|stop
# (with RS_NAME set), for poking at a failing test by hand.
#
# Needs root and systemd-nspawn (Debian's systemd-container, which
# scripts/install-deps.sh installs).

RS_NAME=${RS_NAME:-zl-systemd-$$}
RS_DIR=${RS_DIR:-/tmp/zealot-systemd/$RS_NAME}
RS_SIZE=${RS_SIZE:-2G}
RS_BOOT_TIMEOUT=${RS_BOOT_TIMEOUT:-60}
_RS_CG="/sys/fs/cgroup/systemd /sys/fs/cgroup/unified"

_rs_ms() { echo $(($(date +%s%N) / 1000000)); }
_rs_say() { echo "# systemd.sh: $*" >&2; }

# The container's PID 1, as a host PID.
_rs_leader() {
	[ -s "$RS_DIR/leader" ] || { _rs_say "$RS_NAME is not running"; return 1; }
	local l
	l=$(cat "$RS_DIR/leader")
	[ -d "/proc/$l" ] || { _rs_say "$RS_NAME: leader $l is gone"; return 1; }
	echo "$l"
}

_rs_cgroups_remove() {
	local h
	for h in $_RS_CG; do
		[ -d "$h/$RS_NAME" ] || continue
		find "$h/$RS_NAME" -depth -type d -exec rmdir {} \; 2>/dev/null
	done
	return 0
}

rs_start() {
	[ "$(id -u)" = 0 ] || { _rs_say "needs root"; return 1; }
	command -v systemd-nspawn >/dev/null || { _rs_say "systemd-nspawn is missing (scripts/install-deps.sh installs systemd-container)"; return 1; }
	if [ -s "$RS_DIR/nspawn.pid" ] && [ -d "/proc/$(cat "$RS_DIR/nspawn.pid")" ]; then
		_rs_say "$RS_NAME is already running"
		return 1
	fi
	# tear down on any exit of the test, on top of the trap already set
	local prev
	prev=$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")
	# (this container's name and state, whichever RS_NAME is set at exit)
	# shellcheck disable=SC2064
	trap "RS_NAME=$(printf %q "$RS_NAME") RS_DIR=$(printf %q "$RS_DIR") rs_stop; $prev" EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM

	rm -rf "$RS_DIR"
	mkdir -p "$RS_DIR/ovl" "$RS_DIR/root"
	# the host image's enabled services and timers stay off inside
	local masks="" u b
	for u in /etc/systemd/system/{multi-user,timers,sysinit,getty}.target.wants/*; do
		[ -e "$u" ] || [ -L "$u" ] || continue
		case "$u" in *.service | *.timer) masks+=" $(basename "$u")" ;; esac
	done
	masks+=" ${RS_MASK:-}"
	# nspawn's --bind=SRC[:DST]: a ':' in a path is written '\:'
	local -a binds=()
	local -A bound=()
	while IFS= read -r b; do
		[ -n "$b" ] && [ -z "${bound[$b]:-}" ] && bound[$b]=1 && binds+=("--bind=${b//:/\\:}")
	done <<<"${RS_BIND:-}"
	while IFS= read -r b; do
		[ -n "$b" ] && [ -z "${bound[$b]:-}" ] && bound[$b]=1 && binds+=("--bind-ro=${b//:/\\:}")
	done <<<"${RS_BIND_RO:-}
${ROOT:-}
${ENGINE:+$(dirname "$(dirname "$ENGINE")")}"

	local t0
	t0=$(_rs_ms)
	(
		# no inherited pipe may keep the caller's $(...) or tests/run waiting
		for fd in $(ls /proc/$BASHPID/fd); do
			[ "$fd" -gt 2 ] && [ "$fd" -lt 255 ] && eval "exec $fd>&-"
		done
		# nspawn's cgroups land under /sys/fs/cgroup/*/$RS_NAME, removable at stop
		for h in $_RS_CG; do
			if [ -f "$h/cgroup.procs" ]; then
				mkdir -p "$h/$RS_NAME"
				echo $BASHPID >"$h/$RS_NAME/cgroup.procs"
			fi
		done
		export RS_DIR RS_NAME RS_SIZE masks
		# a private mount namespace: the overlay and tmpfs never show on the
		# host and disappear with it
		exec setsid unshare --mount --propagation private -- /bin/bash -c '
			set -e
			echo $$ > "$RS_DIR/nspawn.pid"
			mount -n -t tmpfs -o mode=755 rs-run /run
			mount -n -t tmpfs -o size=$RS_SIZE,mode=755 rs-ovl "$RS_DIR/ovl"
			mkdir -p "$RS_DIR/ovl/upper" "$RS_DIR/ovl/work"
			mount -n -t overlay rs-root -o lowerdir=/,upperdir="$RS_DIR/ovl/upper",workdir="$RS_DIR/ovl/work" "$RS_DIR/root"
			R="$RS_DIR/root"
			for u in $masks; do ln -sf /dev/null "$R/etc/systemd/system/$u"; done
			ln -sf /lib/systemd/system/multi-user.target "$R/etc/systemd/system/default.target"
			tr -d - </proc/sys/kernel/random/uuid >"$R/etc/machine-id"
			exec systemd-nspawn --quiet --register=no --keep-unit --link-journal=no \
				--console=read-only -M "$RS_NAME" -D "$R" "$@" -b
		' rs-boot "${binds[@]}" >"$RS_DIR/nspawn.log" 2>&1 </dev/null
	) &

	# the container's PID 1 is nspawn's child once it has exec'd systemd
	local np="" l="" c deadline=$(($(_rs_ms) + RS_BOOT_TIMEOUT * 1000))
	while [ "$(_rs_ms)" -lt "$deadline" ]; do
		[ -z "$np" ] && [ -s "$RS_DIR/nspawn.pid" ] && np=$(cat "$RS_DIR/nspawn.pid")
		if [ -n "$np" ]; then
			if [ ! -d "/proc/$np" ]; then
				sed 's/^/# nspawn: /' "$RS_DIR/nspawn.log" >&2
				rs_stop
				return 1
			fi
			for c in $(cat /proc/"$np"/task/*/children 2>/dev/null); do
				[ "$(cat "/proc/$c/comm" 2>/dev/null)" = systemd ] && l=$c
			done
			[ -n "$l" ] && break
		fi
		sleep 0.05
	done
	if [ -z "$l" ]; then
		sed 's/^/# nspawn: /' "$RS_DIR/nspawn.log" >&2
		rs_stop
		return 1
	fi
	echo "$l" >"$RS_DIR/leader"
	local st=""
	while [ "$(_rs_ms)" -lt "$deadline" ]; do
		st=$(nsenter -t "$l" -a systemctl is-system-running --wait 2>/dev/null)
		case "$st" in running | degraded) break ;; esac
		sleep 0.1
	done
	case "$st" in
	running | degraded) ;;
	*)
		_rs_say "$RS_NAME: boot did not finish (state '$st')"
		sed 's/^/# nspawn: /' "$RS_DIR/nspawn.log" >&2
		rs_stop
		return 1
		;;
	esac
	RS_BOOT_MS=$(($(_rs_ms) - t0))
	_rs_say "$RS_NAME up: leader pid $l, state $st, boot $RS_BOOT_MS ms"
}

rs_exec() {
	local l
	l=$(_rs_leader) || return 125
	# nsenter --wd resolves on the host side, so change directory inside
	SYSTEMD_PAGER=cat SYSTEMD_COLORS=0 nsenter -t "$l" -a -- \
		/bin/sh -c 'cd "$1" 2>/dev/null || cd /; shift; exec "$@"' rs-exec "$PWD" "$@"
}

rs_root() {
	local l
	l=$(_rs_leader) || return 1
	echo "/proc/$l/root"
}

rs_stop() {
	local np="" i
	[ -s "$RS_DIR/nspawn.pid" ] && np=$(cat "$RS_DIR/nspawn.pid")
	if [ -n "$np" ] && [ -d "/proc/$np" ]; then
		kill -TERM "$np" 2>/dev/null # nspawn: an orderly poweroff of the container
		for i in $(seq 1 200); do
			[ -d "/proc/$np" ] || break
			sleep 0.1
		done
		if [ -d "/proc/$np" ]; then
			kill -KILL "$np" 2>/dev/null
			sleep 0.5
		fi
	fi
	_rs_cgroups_remove
	if [ -d "$RS_DIR" ] && ! mountpoint -q "$RS_DIR/root"; then
		rm -rf "$RS_DIR"
		rmdir "$(dirname "$RS_DIR")" 2>/dev/null
	fi
	return 0
}

# Run directly: a tool for poking at a container by hand.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case "${1:-}" in
	start) trap - EXIT; rs_start && trap - EXIT ;;
	exec)
		shift
		rs_exec "$@"
		;;
	root) rs_root ;;
	stop) rs_stop ;;
	*)
		echo "usage: RS_NAME=NAME $0 start|exec CMD...|root|stop" >&2
		exit 2
		;;
	esac
fi
