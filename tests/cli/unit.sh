# zealot emit unit: the hardened unit. Every line a GPU engine tolerates is
# there, the directories the sandbox would hide (payloads under /tmp or
# /home, the runtime's build tree) are bound back read-only, the USER key
# becomes User=, and systemd's own analyzer accepts it and scores it.
# (tests/live/deploy.sh boots the engine under it in a real systemd.)
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
export ZEALOT_STATE_DIR=$TMP/state

mkdir -p p "runtime dir"
must "$ZEALOT" synth qwen35 -o p/q.gguf || exit 1
printf '#!/bin/sh\nexit 0\n' >"runtime dir/llama-server"
chmod +x "runtime dir/llama-server"
cat >cpu.env <<X
RUNTIME=$TMP/runtime dir/llama-server
MODEL_FILE=p/q.gguf
CTX_SIZE=4096
DEVICE=cpu
ADDRESSABLE_MIB=16384
X
{ cat cpu.env; echo "USER=zealot-engine"; } >user.env
sed 's/^DEVICE=cpu/DEVICE=rtx3090/' cpu.env >gpu.env
{ cat cpu.env; echo "BIND_ADDR=0.0.0.0"; echo "LISTEN_PORT=443"; } >wide.env

# the zealot binary the unit names: a path this test made, so the binds
# expected below are the paths made here, wherever the clone lives
mkdir -p "zealot bin"
printf '#!/bin/sh\n' >"zealot bin/zealot"
chmod +x "zealot bin/zealot"
# bound PATH: systemd's spelling of one BindReadOnlyPaths= entry ("-":
# optional; quoted when the path holds a space, a quote or a backslash)
bound() {
	local p=${1//%/%%}
	case $p in
	*[[:space:]\"\'\\]*) p=${p//\\/\\\\}; printf '"-%s"' "${p//\"/\\\"}" ;;
	*) printf -- '-%s' "$p" ;;
	esac
}
# hidden DIR: the sandbox would hide DIR (ProtectHome=tmpfs, PrivateTmp=)
hidden() { case $1 in /home | /home/* | /root | /root/* | /run/user/* | /tmp/* | /var/tmp/*) return 0 ;; esac; return 1; }
d_p=$(cd p && pwd -P)
d_rt=$(cd "runtime dir" && pwd -P)
d_z=$(cd "zealot bin" && pwd -P)
d_ep=$(pwd -P)/cpu.env # the endpoint file itself: serve reads it in the sandbox
want="BindReadOnlyPaths="
for d in "$d_p" "$d_rt" "$d_z" "$d_ep"; do hidden "$d" && want+="$(bound "$d") "; done
want=${want% }

run "$ZEALOT" emit unit cpu.env --zealot "$TMP/zealot bin/zealot"
check "unit: exit 0" rc_is 0
cp "$TMP/out" cpu.service
for line in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=tmpfs PrivateTmp=yes PrivateMounts=yes \
	ProtectKernelTunables=yes ProtectKernelModules=yes ProtectKernelLogs=yes ProtectControlGroups=yes \
	ProtectClock=yes ProtectHostname=yes ProtectProc=invisible LockPersonality=yes RestrictRealtime=yes \
	RestrictNamespaces=yes RestrictSUIDSGID=yes "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX" \
	SystemCallFilter=@system-service SystemCallArchitectures=native DevicePolicy=closed \
	CapabilityBoundingSet= LimitMEMLOCK=infinity RestartPreventExitStatus=78 \
	StateDirectory=zealot "Environment=ZEALOT_STATE_DIR=%S/zealot"; do
	check "unit: $line" grep -qFx -- "$line" cpu.service
done
check "unit: the payload's, the runtime's and zealot's directories and the endpoint file the sandbox hides are bound back read-only (quoted, '-': optional)" \
	grep -qFx -- "$want" cpu.service
echo "# $want"
# without --zealot the unit names this binary: its directory is bound when
# the sandbox would hide it (a clone under /tmp or /home), else not
run "$ZEALOT" emit unit cpu.env
self_dir=$(dirname "$(realpath "$ZEALOT")")
if hidden "$self_dir"; then
	check "unit: this binary's directory ($self_dir) is hidden: bound back" \
		test -n "$(grep '^BindReadOnlyPaths=' "$TMP/out" | grep -F -- "$(bound "$self_dir")")"
else
	check "unit: this binary's directory ($self_dir) is visible: not bound" \
		test -z "$(grep '^BindReadOnlyPaths=' "$TMP/out" | grep -F -- "-$self_dir")"
fi
check "unit: cpu profile: no device nodes, no writable code" \
	test -n "$(grep -Fx PrivateDevices=yes cpu.service)" -a -n "$(grep -Fx MemoryDenyWriteExecute=yes cpu.service)"
check "unit: loopback bind: IP traffic to this host only" \
	test -n "$(grep -Fx IPAddressAllow=localhost cpu.service)" -a -n "$(grep -Fx IPAddressDeny=any cpu.service)"
check "unit: no USER: no User= line (root, sandboxed)" test -z "$(grep '^User=' cpu.service)"

run "$ZEALOT" emit unit user.env
check "unit: USER=zealot-engine becomes User=" out_has "User=zealot-engine"
check "unit: with a user, RemoveIPC" out_has "RemoveIPC=yes"
run "$ZEALOT" emit unit user.env --user other
check "unit: --user overrides USER" test -n "$(grep -Fx User=other "$TMP/out")"

run "$ZEALOT" emit unit gpu.env
cp "$TMP/out" gpu.service
check "unit: GPU profile: the NVIDIA nodes allowed" grep -qFx "DeviceAllow=char-nvidia* rw" gpu.service
check "unit: GPU profile: no PrivateDevices (it hides /dev/nvidia*), no MemoryDenyWriteExecute (PTX JIT)" \
	test -z "$(grep -E '^(PrivateDevices|MemoryDenyWriteExecute)=' gpu.service)"

run "$ZEALOT" emit unit wide.env
cp "$TMP/out" wide.service
check "unit: port 443: CAP_NET_BIND_SERVICE is the one capability" \
	test -n "$(grep -Fx CapabilityBoundingSet=CAP_NET_BIND_SERVICE wide.service)" -a -n "$(grep -Fx AmbientCapabilities=CAP_NET_BIND_SERVICE wide.service)"
check "unit: 0.0.0.0: no IP allow list (clients come from the network)" test -z "$(grep IPAddress wide.service)"

# A path with % (a systemd specifier) is escaped.
mkdir -p "pct%dir"
cp p/q.gguf "pct%dir/"
sed 's|^MODEL_FILE=.*|MODEL_FILE=pct%dir/q.gguf|' cpu.env >pct.env
run "$ZEALOT" emit unit pct.env
check "unit: % in a path is doubled" out_has "-$TMP/pct%%dir"

if command -v systemd-analyze >/dev/null; then
	for u in cpu gpu wide; do
		run systemd-analyze verify "$u.service"
		check "$u unit: systemd-analyze verify passes" test "$rc" -eq 0 -a ! -s "$TMP/err"
	done
	for u in cpu gpu; do
		systemd-analyze security --offline=yes "$u.service" >"$u.score" 2>&1
		score=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p' "$u.score")
		echo "# $u unit: systemd-analyze security exposure $score"
		# the README quotes these; a regression past "OK" (2.x) fails here
		check "$u unit: exposure below 2.0 ($score)" awk -v s="$score" 'BEGIN { exit !(s != "" && s < 2.0) }'
	done
else
	echo "not ok - systemd-analyze is not installed (scripts/install-deps.sh installs systemd)"
fi
