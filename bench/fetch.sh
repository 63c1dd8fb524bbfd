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
best() { sort -n | tail -1; }
runs=3
echo "== fetch: $size bytes from nginx on loopback (best of $runs; a shared host: figures move with its load)"
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
c=$(for _ in $(seq $runs); do wall curl -s -o "$TMP/dl/c.gguf" "$U"; done | best)
cs=$(for _ in $(seq $runs); do wall sh -c "curl -s -o '$TMP/dl/c.gguf' '$U' && sync '$TMP/dl/c.gguf'"; done | best)
css=$(for _ in $(seq $runs); do wall sh -c "curl -s -o '$TMP/dl/c.gguf' '$U' && sync '$TMP/dl/c.gguf' && sha256sum '$TMP/dl/c.gguf'"; done | best)
echo "  curl -o:                          $c MiB/s (no hash; the bytes may still be only in the page cache)"
echo "  curl -o && sync:                  $cs MiB/s (on disk, like fetch)"
echo "  curl -o && sync && sha256sum:     $css MiB/s (the seeds' fetch scripts)"
for n in 1 4; do
	z=$(for _ in $(seq $runs); do wall env ZEALOT_STATE_DIR="$TMP/state" "$Z" fetch --connections $n "$TMP/dl/e.env"; done | best)
	awk -v z="$z" -v c="$c" -v cs="$cs" -v n="$n" 'BEGIN { printf "  zealot fetch --connections %d:     %d MiB/s (hashed, fsynced, renamed): %.0f %% of curl -o, %.0f %% of curl -o && sync\n", n, z, 100 * z / c, 100 * z / cs }'
done
ZEALOT_STATE_DIR=$TMP/state "$Z" fetch "$TMP/dl/e.env" >/dev/null
cmp -s "$TMP/dl/f.gguf" "$TMP/www/f.gguf" && echo "  (the fetched file is byte-identical to the served one)"
h=$(for _ in $(seq $runs); do
	rm -rf "$TMP/state"
	timed env ZEALOT_STATE_DIR="$TMP/state" "$Z" fetch --verify-only "$TMP/dl/e.env"
done | best)
echo "  zealot hashing (--verify-only, no stamp, a page-cached file): $h MiB/s (read + SHA-256, wall)"
if command -v openssl >/dev/null; then
	o=$(openssl speed -evp sha256 -bytes 4194304 -seconds 2 2>/dev/null | awk '/^sha256/ { v = $NF; sub(/k$/, "", v); printf "%.0f", v * 1000 / 1048576 }')
	echo "  libcrypto alone (openssl speed -evp sha256, 4 MiB blocks): $o MiB/s"
fi
