#!/usr/bin/env bash
# Fetch throughput beside `curl -o` of the same file from a loopback nginx,
# and the hashing rate beside libcrypto's own (openssl speed). Prints
# figures, asserts nothing. `make bench` runs it after the others.
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

rate() { awk -v b="$size" -v ns="$1" 'BEGIN { printf "%.0f\n", b / (ns / 1e9) / 1048576 }'; }
runs=${FETCH_BENCH_ROUNDS:-5}
timed() { # CMD...: run it; print MiB/s for the file's size
	local s e
	s=$(date +%s%N)
	"$@" >/dev/null
	e=$(date +%s%N)
	rate $((e - s))
}
wall() { # CMD...: the same after dropping the previous download
	rm -rf "$TMP/dl/c.gguf" "$TMP/dl/f.gguf" "$TMP/state"
	timed "$@"
}
# the median of the values on stdin and their range: "M (LO-HI)"
range() { sort -n | awk '{ v[NR] = $1 } END { printf "%s (%s-%s)", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR] }'; }
# Paired: each round runs every contender back to back, so the host's load
# (a shared 2-core machine) weighs on all of them alike; the ratios are
# taken within a round, and the range over rounds is what is printed.
echo "== fetch: $size bytes from nginx on loopback, $runs paired rounds (median and range over rounds)"
: >"$TMP/r"
for _ in $(seq "$runs"); do
	c=$(wall curl -s -o "$TMP/dl/c.gguf" "$U")
	cs=$(wall sh -c "curl -s -o '$TMP/dl/c.gguf' '$U' && sync '$TMP/dl/c.gguf'")
	css=$(wall sh -c "curl -s -o '$TMP/dl/c.gguf' '$U' && sync '$TMP/dl/c.gguf' && sha256sum '$TMP/dl/c.gguf'")
	z1=$(wall env ZEALOT_STATE_DIR="$TMP/state" "$Z" fetch --connections 1 "$TMP/dl/e.env")
	z4=$(wall env ZEALOT_STATE_DIR="$TMP/state" "$Z" fetch --connections 4 "$TMP/dl/e.env")
	echo "$c $cs $css $z1 $z4" >>"$TMP/r"
done
col() { awk -v c="$1" '{ print $c }' "$TMP/r" | range; }
pct() { awk -v a="$1" -v b="$2" '{ printf "%.0f\n", 100 * $a / $b }' "$TMP/r" | range; }
echo "  curl -o:                          $(col 1) MiB/s (no hash; the bytes may still be only in the page cache)"
echo "  curl -o && sync:                  $(col 2) MiB/s (on disk, like fetch)"
echo "  curl -o && sync && sha256sum:     $(col 3) MiB/s (the seeds' fetch scripts)"
echo "  zealot fetch --connections 1:     $(col 4) MiB/s (hashed, fsynced, renamed): $(pct 4 1) % of curl -o, $(pct 4 2) % of curl -o && sync"
echo "  zealot fetch --connections 4:     $(col 5) MiB/s: $(pct 5 1) % of curl -o, $(pct 5 2) % of curl -o && sync"
ZEALOT_STATE_DIR=$TMP/state "$Z" fetch "$TMP/dl/e.env" >/dev/null
cmp -s "$TMP/dl/f.gguf" "$TMP/www/f.gguf" && echo "  (the fetched file is byte-identical to the served one)"
# hashing a page-cached file: zealot (--verify-only, no stamp) paired with
# libcrypto's own digest of the same file (openssl dgst, the same EVP)
cat "$TMP/dl/f.gguf" >/dev/null
: >"$TMP/h"
for _ in $(seq "$runs"); do
	rm -rf "$TMP/state"
	h=$(timed env ZEALOT_STATE_DIR="$TMP/state" "$Z" fetch --verify-only "$TMP/dl/e.env")
	o=$(command -v openssl >/dev/null && timed openssl dgst -sha256 "$TMP/dl/f.gguf" || echo 0)
	echo "$h $o" >>"$TMP/h"
done
echo "  zealot hashing (--verify-only, no stamp, page-cached): $(awk '{ print $1 }' "$TMP/h" | range) MiB/s (read + SHA-256, wall)"
if command -v openssl >/dev/null; then
	echo "  openssl dgst -sha256, the same file:                   $(awk '{ print $2 }' "$TMP/h" | range) MiB/s"
	echo "  zealot / openssl, per round:                          $(awk '{ printf "%.0f\n", 100 * $1 / $2 }' "$TMP/h" | range) %"
fi
