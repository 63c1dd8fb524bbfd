#!/usr/bin/env bash
# Fetch throughput beside `curl -o` of the same file from a loopback nginx
# (and beside `curl -o && sync`, the fair pair: fetch's bytes are on disk
# when it ends, curl's may be in the page cache), and the hashing rate
# beside libcrypto's own (openssl dgst, openssl speed). Prints figures and
# whether issue 34's goals are met; asserts nothing. `make bench` runs it
# after the others.
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
TMP=$(mktemp -d)
. tests/nginx.sh
trap 'nginx_stop; rm -rf "$TMP"' EXIT
command -v nginx >/dev/null || { echo "== fetch: nginx not installed - skipped"; exit 0; }
Z=$ROOT/zealot
mkdir -p "$TMP/www" "$TMP/dl"
# about 1 GiB: a qwen35 geometry with a wide embedding and a big vocabulary
"$Z" synth qwen35 --set vocab=250000 --set embd=1024 -o "$TMP/www/f.gguf" 2>/dev/null
size=$(stat -c %s "$TMP/www/f.gguf")
nginx_start "$TMP/www"
U=http://127.0.0.1:$NGINX_PORT/f.gguf
cat >"$TMP/dl/e.env" <<X
MODEL_FILE=f.gguf
MODEL_URL=$U
CTX_SIZE=4096
X
cat "$TMP/www/f.gguf" >/dev/null # the server reads from the page cache in every run

runs=${FETCH_BENCH_ROUNDS:-5}
# CMD...: run it; print its rate in MiB/s for the file's size and the CPU
# it took (user + system, its children's included; not the kernel's
# writeback threads, which flush what curl -o leaves in the page cache)
# in seconds per GiB; "n/a n/a" and status 1 when CMD fails (its figures
# would be those of a failure: a refused dd ends at once)
timed() {
	local t
	if ! t=$({ TIMEFORMAT='%R %U %S' && time "$@" >/dev/null 2>&1; } 2>&1); then
		echo "n/a n/a"
		return 1
	fi
	awk -v b="$size" -v t="$t" 'BEGIN { split(t, v, " "); printf "%.0f %.2f\n", b / v[1] / 1048576, (v[2] + v[3]) / (b / 1073741824) }'
}
wall() { # CMD...: the same after dropping the previous download
	rm -rf "$TMP/dl/c.gguf" "$TMP/dl/f.gguf" "$TMP/state"
	timed "$@"
}
# the median of the values on stdin and their range: "M (LO-HI)"; "n/a"
# when a round has none
range() { sort -n | awk '$1 == "n/a" { na = 1 } { v[NR] = $1 } END { if (na || !NR) printf "n/a"; else printf "%s (%s-%s)", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR] }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# Paired: each round runs every contender back to back, so the host's load
# (a shared 2-core machine) weighs on all of them alike; the ratios are
# taken within a round, and the range over rounds is what is printed.
# the disk's own rate needs O_DIRECT, which some file systems refuse
# (tmpfs before Linux 6.6): probed once, as tests/cli/fetch.sh does
fs=$(findmnt -n -o FSTYPE --target "$TMP" 2>/dev/null || stat -f -c %T "$TMP")
direct=1
dd if=/dev/zero of="$TMP/dl/probe" bs=4096 count=1 oflag=direct 2>/dev/null || direct=
rm -f "$TMP/dl/probe"
echo "== fetch: $size bytes from nginx on loopback, $runs paired rounds (median and range over rounds); load average $(load)"
echo "  TMP $TMP is on $fs$([ -n "$direct" ] || echo ", which refuses O_DIRECT: no dd figures")"
: >"$TMP/r"
for _ in $(seq "$runs"); do
	# (a contender that fails prints n/a: its row says n/a)
	c=$(wall curl -s -o "$TMP/dl/c.gguf" "$U") || :
	cs=$(wall sh -c "curl -s -o '$TMP/dl/c.gguf' '$U' && sync '$TMP/dl/c.gguf'") || :
	css=$(wall sh -c "curl -s -o '$TMP/dl/c.gguf' '$U' && sync '$TMP/dl/c.gguf' && sha256sum '$TMP/dl/c.gguf'") || :
	z1=$(wall env ZEALOT_STATE_DIR="$TMP/state" "$Z" fetch --connections 1 "$TMP/dl/e.env") || :
	z4=$(wall env ZEALOT_STATE_DIR="$TMP/state" "$Z" fetch --connections 4 "$TMP/dl/e.env") || :
	# the disk's own rate for bytes it must keep: as many zeros, 1 MiB
	# O_DIRECT writes and an fdatasync (no network, no hash)
	dd="n/a n/a"
	[ -z "$direct" ] ||
		dd=$(wall dd if=/dev/zero of="$TMP/dl/c.gguf" bs=1M count=$(((size + 1048575) / 1048576)) oflag=direct conv=fdatasync) || :
	echo "$c $cs $css $z1 $z4 $dd" >>"$TMP/r"
done
# contender N's rate is column 2N-1, its CPU column 2N
col() { awk -v c=$((2 * $1 - 1)) '{ print $c }' "$TMP/r" | range; }
cpu() { awk -v c=$((2 * $1)) '{ print $c }' "$TMP/r" | range; }
pct() { awk -v a=$((2 * $1 - 1)) -v b=$((2 * $2 - 1)) '{ if ($a == "n/a" || $b == "n/a" || $b == 0) print "n/a"; else printf "%.0f\n", 100 * $a / $b }' "$TMP/r" | range; }
line() {
	if [ "$(col "$2")" = n/a ]; then
		printf '  %-33s n/a (it failed in a round)%s\n' "$1" "${3:-}"
	else
		printf '  %-33s %s MiB/s, CPU %s s/GiB%s\n' "$1" "$(col "$2")" "$(cpu "$2")" "${3:-}"
	fi
}
line "curl -o:" 1 " (no hash, no sync: the bytes may still be only in the page cache)"
line "curl -o && sync FILE:" 2 " (the fair pair: on disk (fsync), like fetch; no hash)"
line "curl -o && sync && sha256sum:" 3 " (the seeds' fetch scripts)"
line "zealot fetch --connections 1:" 4 " (hashed, on disk, renamed)"
line "zealot fetch --connections 4:" 5 " (the default)"
line "dd oflag=direct conv=fdatasync:" 6 " (the disk alone: zeros, 1 MiB O_DIRECT writes)"
echo "  zealot fetch --connections 1 / curl -o, per round: $(pct 4 1) %; / curl -o && sync: $(pct 4 2) %"
echo "  zealot fetch --connections 4 / curl -o, per round: $(pct 5 1) %; / curl -o && sync: $(pct 5 2) %"
echo "  curl -o && sync / curl -o, per round: $(pct 2 1) %; dd (the disk) / curl -o: $(pct 6 1) %"
# the goal (issue 34): at or above curl -o while hashing and syncing, or,
# where the disk keeps bytes slower than curl -o leaves them in the page
# cache, at or above the fair pair; the medians of the per-round ratios
med() { pct "$1" "$2" | cut -d' ' -f1; }
atleast() { awk -v v="$1" -v t="$2" 'BEGIN { if (v == "n/a") printf "n/a"; else printf "%s (%s %%)", (v + 0 >= t + 0 ? "met" : "not met"), v }'; } # PCT FLOOR
verdict() { atleast "$1" 100; }
echo "  goal, zealot fetch --connections 1 >= curl -o: $(verdict "$(med 4 1)"); >= curl -o && sync: $(verdict "$(med 4 2)")"
ZEALOT_STATE_DIR=$TMP/state "$Z" fetch "$TMP/dl/e.env" >/dev/null
cmp -s "$TMP/dl/f.gguf" "$TMP/www/f.gguf" && echo "  (the fetched file is byte-identical to the served one)"
# hashing a page-cached file: zealot (--verify-only, no stamp) paired with
# libcrypto's own digest of the same file (openssl dgst, the same EVP) and
# with libcrypto's rate on a 1 MiB buffer that stays in the cache (openssl
# speed: no file, no read), each as wall rate and as bytes per second of
# the CPU it took (what the load moves least; openssl speed measures that
# way unless -elapsed)
cat "$TMP/dl/f.gguf" >/dev/null
speed() { openssl speed "$@" -evp sha256 -bytes 1048576 -seconds 1 2>/dev/null | awk '/^sha256/ { sub(/k$/, "", $2); printf "%.0f\n", $2 * 1000 / 1048576 }'; }
percpu() { awk '{ if ($1 == "n/a" || $2 == 0) print "n/a n/a"; else printf "%.0f %.0f\n", $1, 1024 / $2 }'; } # "MiB/s s/GiB" -> "MiB/s MiB/s-of-CPU"
: >"$TMP/h"
for _ in $(seq "$runs"); do
	rm -rf "$TMP/state"
	h=$(timed env ZEALOT_STATE_DIR="$TMP/state" "$Z" fetch --verify-only "$TMP/dl/e.env" | percpu)
	if command -v openssl >/dev/null; then
		o=$(timed openssl dgst -sha256 "$TMP/dl/f.gguf" | percpu)
		echo "$h $o $(speed -elapsed) $(speed)" >>"$TMP/h"
	fi
done
hcol() { awk -v c="$1" '{ print $c }' "$TMP/h" | range; }
hpct() { awk -v a="$1" -v b="$2" '{ if ($a == "n/a" || $b == "n/a" || $b == 0) print "n/a"; else printf "%.0f\n", 100 * $a / $b }' "$TMP/h" | range; }
if [ -s "$TMP/h" ]; then
	echo "  hashing a page-cached file, MiB/s of wall time and MiB/s of CPU time:"
	echo "    zealot fetch --verify-only (no stamp): $(hcol 1), CPU $(hcol 2) (read + SHA-256)"
	echo "    openssl dgst -sha256, the same file:   $(hcol 3), CPU $(hcol 4)"
	echo "    openssl speed -evp sha256, 1 MiB:      $(hcol 5), CPU $(hcol 6) (no file: a buffer in the cache)"
	echo "    zealot / openssl dgst, per round:      $(hpct 1 3) %, CPU $(hpct 2 4) %"
	echo "    zealot / openssl speed, per round:     $(hpct 1 5) %, CPU $(hpct 2 6) %"
	# the goal: within 10 % of libcrypto (its own rate on a file, and on a
	# buffer that needs no read: what a read's copy costs shows there)
	hmed() { hpct "$1" "$2" | cut -d' ' -f1; }
	within() { atleast "$1" 90; }
	echo "    goal, within 10 % of openssl dgst: $(within "$(hmed 1 3)"); of openssl speed: wall $(within "$(hmed 1 5)"), CPU $(within "$(hmed 2 6)")"
else
	echo "  hashing: openssl not installed - no libcrypto figures to pair with"
fi
echo "  load average at the end: $(load)"
