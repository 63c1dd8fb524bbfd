# The one port picker of the tests and benches (sourced by tests/lib.sh and
# tests/nginx.sh, which bench/fetch.sh sources alone).
#
# free_port [ADDR]: a port nothing listens on at ADDR (127.0.0.1), below
# the kernel's ephemeral range (ip_local_port_range, 32768 up by default):
# a port up there can be a client socket's local port, and a server then
# cannot bind it. tests/run gives each of its lanes (TEST_LANE of
# TEST_LANES) its own share of the range, so two suites side by side never
# pick the same port, and a suite never gets one port twice ($TMP/ports):
# a port picked now may be bound much later (a unit, a container's sshd).
free_port() {
	local addr=${1:-127.0.0.1} p lo=32768 span base lanes=${TEST_LANES:-1} lane=${TEST_LANE:-0}
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
	[ "$lo" -gt 12000 ] || lo=32768
	[ "$lane" -ge 0 ] 2>/dev/null && [ "$lane" -lt "$lanes" ] || { lanes=1 lane=0; }
	span=$(((lo - 10000) / lanes))
	base=$((10000 + lane * span))
	for _ in $(seq 200); do
		p=$((base + RANDOM % span))
		grep -qx "$p" "$TMP/ports" 2>/dev/null && continue
		(echo >"/dev/tcp/$addr/$p") 2>/dev/null && continue
		echo "$p" >>"$TMP/ports"
		echo "$p"
		return 0
	done
	return 1
}
