# The one poll helper of the tests and benches (sourced by tests/lib.sh and
# tests/nginx.sh).
#
# wait_for SECONDS CMD...: run CMD until it succeeds (every 0.05 s) or
# SECONDS pass on the shell's clock; its last status. A wait on a state
# (a port that listens, a unit that settled), never on a moment: a fast
# machine goes on at once, a slow one gets the whole bound.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.05
	done
}
