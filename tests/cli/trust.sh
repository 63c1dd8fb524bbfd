# What zealot trusts (docs/hardening.md): a pin stamp holds ctime, so a
# payload rewritten in place with its mtime put back is hashed again; a
# download never writes through a symbolic link or into another user's file
# at FILE.part, FILE.part.state or FILE.part.lock, and root refuses a
# directory others can change; the state directory is root's
# /var/lib/zealot without HOME (never /tmp), and one that is not this
# user's own (or whose pins/ is not) is refused or not believed. Run as
# root and as a second user (zealot-tu, made here), with another user
# (nobody) planting.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/nginx.sh"
trap 'nginx_stop; rm -rf "$TMP"' EXIT
if [ "$(id -u)" != 0 ] || ! command -v runuser >/dev/null || ! command -v nginx >/dev/null; then
	echo "ok - # SKIP needs root, runuser and nginx"
	exit 0
fi
U=zealot-tu
id -u "$U" >/dev/null 2>&1 ||
	useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$U" 2>/dev/null
if ! id -u "$U" >/dev/null 2>&1; then
	echo "not ok - the second user $U can be made (useradd)"
	exit 0
fi
cd "$TMP" || exit 1
chmod 711 "$TMP" # the second user and nobody reach their own directories below
# the binary where the second user can run it: a clone may sit in a
# directory only root can enter (CI's mktemp -d under /tmp is 0700)
mkdir -p "$TMP/bin" && cp "$ZEALOT" "$TMP/bin/zealot" && chmod 755 "$TMP/bin" "$TMP/bin/zealot" && ZEALOT=$TMP/bin/zealot
# as_u CMD...: CMD as the second user, HOME unset unless given
as_u() { runuser -u "$U" -- env -u HOME "$@"; }

www=$TMP/www
mkdir -p "$www" ep
must "$ZEALOT" synth qwen35 -o "$www/m.gguf" || exit 1
size=$(stat -c %s "$www/m.gguf")
sha=$(sha256sum "$www/m.gguf" | cut -d' ' -f1)
chmod 755 "$www" && chmod 644 "$www/m.gguf"
nginx_start "$www" || { echo "not ok - nginx starts"; exit 0; }
URL=http://127.0.0.1:$NGINX_PORT/m.gguf
printf '#!/bin/sh\nexit 0\n' >stub.sh
chmod 755 stub.sh
# endpoint DIR FILE SHA: an endpoint file in DIR for DIR/FILE, pinned to SHA
endpoint() {
	cat >"$1/e.env" <<EOF
RUNTIME=$TMP/stub.sh
MODEL_FILE=$1/$2
MODEL_URL=$URL
MODEL_BYTES=$size
MODEL_SHA256=$3
CTX_SIZE=4096
EOF
}

# --- 8: a stamp holds ctime: rewritten in place, mtime put back, hashed again
mkdir -p p8
cp "$www/m.gguf" p8/m.gguf
endpoint "$TMP/p8" m.gguf "$sha"
run "$ZEALOT" serve --dry-run p8/e.env
check "8: the first serve hashes the payload" test "$rc" -eq 0 -a -n "$(grep -F 'SHA-256 verified' "$TMP/err")"
run "$ZEALOT" serve --dry-run p8/e.env
check "8: the second serve reuses its stamp" err_has "(stamp: file unchanged since it was hashed)"
touch -r p8/m.gguf p8/ref
printf 'X' | dd of=p8/m.gguf bs=1 seek=$((size - 1)) conv=notrunc status=none
touch -m -r p8/ref p8/m.gguf
check "8: control: size and mtime are what the stamp saw" \
	test "$(stat -c '%s %y' p8/m.gguf)" = "$(stat -c '%s %y' p8/ref | sed "s/^[0-9]*/$size/")"
run "$ZEALOT" serve --dry-run p8/e.env
check "8: rewritten in place with its mtime put back: serve hashes it and refuses (78)" \
	test "$rc" -eq 78 -a -n "$(grep -F 'has SHA-256' "$TMP/err")"
check "8: ... and never says verified" test -z "$(grep -F 'verified' "$TMP/err")"
run "$ZEALOT" fetch --verify-only p8/e.env
check "8: fetch --verify-only says the file does not verify (1)" rc_is 1

# --- 9: fetch as root: planted links at FILE.part and FILE.part.state
victims() { printf 'root file one\n' >v1 && printf 'root file two\n' >v2 && printf 'root file three\n' >v3; }
intact() { [ "$(cat v1)" = "root file one" ] && [ "$(cat v2)" = "root file two" ] && [ "$(cat v3)" = "root file three" ]; }
victims
mkdir shared && chown "$U" shared && chmod 755 shared
as_u ln -s "$TMP/v1" shared/m.gguf.part
as_u ln -s "$TMP/v2" shared/m.gguf.part.state
endpoint "$TMP/shared" m.gguf "$sha"
run "$ZEALOT" fetch shared/e.env
check "9 root: links planted by another user in its directory: both root files intact" intact
check "9 root: ... the fetch is refused (3), naming the directory others can change" \
	test "$rc" -eq 3 -a -n "$(grep -F 'refusing to download' "$TMP/err")"
check "9 root: ... and nothing lands" test ! -e shared/m.gguf
mkdir rootdir && chmod 755 rootdir
ln -s "$TMP/v3" rootdir/m.gguf.part
endpoint "$TMP/rootdir" m.gguf "$sha"
run "$ZEALOT" fetch rootdir/e.env
check "9 root: a link at FILE.part in root's own directory: not written through" intact
check "9 root: ... refused (3), named a symbolic link" test "$rc" -eq 3 -a -n "$(grep -F 'is a symbolic link' "$TMP/err")"
rm rootdir/m.gguf.part
ln -s "$TMP/v3" rootdir/m.gguf.part.state
run "$ZEALOT" fetch rootdir/e.env
check "9 root: a link at FILE.part.state: not written through, refused (3)" test "$rc" -eq 3 && intact
rm rootdir/m.gguf.part.state
run "$ZEALOT" fetch rootdir/e.env
check "9 root: root's own directory, nothing planted: downloaded and verified" \
	test "$rc" -eq 0 && cmp -s rootdir/m.gguf "$www/m.gguf"
run "$ZEALOT" fetch --verify-only shared/e.env
check "9 root: --verify-only writes nothing and is not refused" test "$rc" -eq 1 -a -z "$(grep -F refusing "$TMP/err")"

# --- 9: fetch as the second user: nobody plants in a directory all can write
mkdir -p u/pub && chown -R "$U" u && chmod 755 u && chmod 777 u/pub
as_u sh -c "printf 'my own file\n' >'$TMP/u/mine'"
runuser -u nobody -- ln -s "$TMP/u/mine" u/pub/m.gguf.part
endpoint "$TMP/u/pub" m.gguf "$sha"
chmod 644 u/pub/e.env
run as_u ZEALOT_STATE_DIR="$TMP/u/state" "$ZEALOT" fetch u/pub/e.env
check "9 user: a link nobody planted at FILE.part: the user's own file intact" \
	test "$(cat u/mine)" = "my own file"
check "9 user: ... refused (3), named a symbolic link" test "$rc" -eq 3 -a -n "$(grep -F 'is a symbolic link' "$TMP/err")"
rm -f u/pub/m.gguf.part
runuser -u nobody -- sh -c "umask 0; printf 'nobody\n' >'$TMP/u/pub/m.gguf.part.state'"
run as_u ZEALOT_STATE_DIR="$TMP/u/state" "$ZEALOT" fetch u/pub/e.env
check "9 user: nobody's file at FILE.part.state: not written, refused (3)" \
	test "$rc" -eq 3 -a "$(cat u/pub/m.gguf.part.state)" = nobody -a -n "$(grep -F 'belongs to another user' "$TMP/err")"
rm -f u/pub/m.gguf.part.state
runuser -u nobody -- ln -s "$TMP/u/mine" u/pub/m.gguf.part.lock
run as_u ZEALOT_STATE_DIR="$TMP/u/state" "$ZEALOT" fetch u/pub/e.env
check "9 user: a link at FILE.part.lock: refused (3), the file intact" \
	test "$rc" -eq 3 -a "$(cat u/mine)" = "my own file"
rm -f u/pub/m.gguf.part.lock
run as_u ZEALOT_STATE_DIR="$TMP/u/state" "$ZEALOT" fetch u/pub/e.env
check "9 user: nothing planted: downloaded (a user may fetch into a shared directory)" \
	test "$rc" -eq 0 && cmp -s u/pub/m.gguf "$www/m.gguf"
check "9 user: no sanitizer report" no_sanitizer

# --- 10: a state directory not this user's own is refused
# (an empty zealot.db is a store history opens: SQLite makes it one)
mkdir evil && : >evil/zealot.db && chown -R "$U" evil && chmod 700 evil
run env ZEALOT_STATE_DIR="$TMP/evil" "$ZEALOT" history
check "10 root: a state directory of another user's: refused (3), naming its owner" \
	test "$rc" -eq 3 -a -n "$(grep -F 'belongs to uid' "$TMP/err")"
mkdir open && chmod 1777 open && : >open/zealot.db
run env ZEALOT_STATE_DIR="$TMP/open" "$ZEALOT" history
check "10 root: a state directory others can write: refused (3)" \
	test "$rc" -eq 3 -a -n "$(grep -F 'writable by others' "$TMP/err")"
check "10 root: ... and nothing written in it" test "$(ls -A open)" = zealot.db -a ! -s open/zealot.db
mkdir -p own && : >own/zealot.db && chown -R "$U" own && chmod 700 own
run as_u ZEALOT_STATE_DIR="$TMP/own" "$ZEALOT" history
check "10 user: the user's own state directory: history runs" rc_is 0
mkdir -p evil2 && chmod 755 evil2 && : >evil2/zealot.db
run as_u ZEALOT_STATE_DIR="$TMP/evil2" "$ZEALOT" history
check "10 user: a state directory of root's: refused (3)" test "$rc" -eq 3 -a -n "$(grep -F 'belongs to uid 0' "$TMP/err")"

# a forged stamp in pins/ another user owns: not believed, the file hashed
wrong=$(printf '%064d' 0 | tr 0 a)
mkdir -p f10 && cp "$www/m.gguf" f10/m.gguf
endpoint "$TMP/f10" m.gguf "$sha"
ZEALOT_STATE_DIR=$TMP/st-real "$ZEALOT" serve --dry-run f10/e.env 2>/dev/null
stamp=$(ls st-real/pins/)
endpoint "$TMP/f10" m.gguf "$wrong"
# forge DIR: DIR/pins/STAMP owned by the second user, saying the file hashes to $wrong
forge() {
	mkdir -p "$1/pins" && sed "2s/.*/$wrong/" "st-real/pins/$stamp" >"$1/pins/$stamp" && chown -R "$U" "$1/pins"
}
check "10: control: the real stamp was written" test -n "$stamp"
mkdir -p st-forged && chmod 700 st-forged && forge st-forged
run env ZEALOT_STATE_DIR="$TMP/st-forged" "$ZEALOT" serve --dry-run f10/e.env
check "10 root: a forged stamp in a pins/ of another user's: the pin fails (78)" \
	test "$rc" -eq 78 -a -n "$(grep -F "has SHA-256 $sha" "$TMP/err")"

# HOME unset (a root service without User=): never /tmp, where another user
# made the state directory first. In a mount namespace of its own: /tmp
# and /var/lib are empty tmpfs there, the test's files are bound at /mnt.
if unshare -m --propagation private true 2>/dev/null; then
	cat >ns.sh <<'EOF'
set -u
T=$1 U=$2 Z=$3 wrong=$4 stamp=$5
mount --bind "$T" /mnt && mount -t tmpfs -o mode=1777 tmpfs /tmp && mount -t tmpfs tmpfs /var/lib || exit 9
cd /mnt || exit 9
# the binary is the test's copy under $T (a clone under /tmp is hidden now)
case $Z in "$T"/*) Z=/mnt${Z#"$T"} ;; esac
sed "s|$T|/mnt|g" f10/e.env >f10/ns.env
# the real stamp of /mnt/f10/m.gguf, made in the namespace, then forged
ZEALOT_STATE_DIR=/mnt/st-ns "$Z" serve --dry-run f10/ns.env 2>/dev/null
s=$(ls st-ns/pins/ 2>/dev/null)
: >/mnt/victim
mkdir -p /tmp/.local/state/zealot/pins
sed "2s/.*/$wrong/" "st-ns/pins/$s" >"/tmp/.local/state/zealot/pins/$s"
ln -s /mnt/victim /tmp/.local/state/zealot/zealot.db
chown -R "$U" /tmp/.local
chmod -R 777 /tmp/.local
env -u HOME -u ZEALOT_STATE_DIR -u XDG_STATE_HOME "$Z" serve --dry-run f10/ns.env 2>ns-root-serve.err
echo "root-serve $?"
env -u HOME -u ZEALOT_STATE_DIR -u XDG_STATE_HOME "$Z" history >/dev/null 2>ns-root-history.err
echo "root-history $? $(stat -c %s /mnt/victim) $(test -e "/var/lib/zealot/pins/$s" && echo varlib)"
chown -R nobody /tmp/.local
runuser -u "$U" -- env -u HOME -u ZEALOT_STATE_DIR -u XDG_STATE_HOME "$Z" serve --dry-run f10/ns.env 2>ns-user-serve.err
echo "user-serve $?"
runuser -u "$U" -- env -u HOME -u ZEALOT_STATE_DIR -u XDG_STATE_HOME "$Z" history >/dev/null 2>ns-user-history.err
echo "user-history $? $(stat -c %s /mnt/victim)"
EOF
	unshare -m --propagation private bash ns.sh "$TMP" "$U" "$ZEALOT" "$wrong" "$stamp" >ns.out 2>&1
	check "10 ns: the namespace was set up" test -n "$(grep -F root-serve ns.out)"
	check "10 root, HOME unset: another user's forged stamp in /tmp does not pass the pin (78)" \
		grep -qx 'root-serve 78' ns.out
	check "10 root, HOME unset: a zealot.db link planted in /tmp: the root file untouched; stamps in /var/lib/zealot" \
		grep -qx 'root-history 0 0 varlib' ns.out
	check "10 user, HOME unset: a forged stamp in /tmp does not pass the pin (78)" grep -qx 'user-serve 78' ns.out
	check "10 user, HOME unset: the store in /tmp is not opened (the passwd home's is: none yet)" \
		grep -qx 'user-history 0 0' ns.out
	[ -n "$(grep -x 'root-history 0 0 varlib' ns.out)" ] || sed 's/^/#   /' ns.out ns-*.err
else
	echo "ok - # SKIP unshare -m is not allowed here"
fi
# --- 12: MODEL_URL_FILE: the URL (and its password) kept out of the endpoint file
mkdir -p p12 && chmod 700 p12
printf '%s\n' "$URL" >p12/url.txt
chmod 600 p12/url.txt
cat >p12/e.env <<EOF
MODEL_FILE=m.gguf
MODEL_URL_FILE=url.txt
MODEL_BYTES=$size
MODEL_SHA256=$sha
CTX_SIZE=4096
EOF
run "$ZEALOT" fetch p12/e.env
check "12: MODEL_URL_FILE (relative to the endpoint file): fetched and verified" \
	test "$rc" -eq 0 && cmp -s p12/m.gguf "$www/m.gguf"
run "$ZEALOT" check p12/e.env
check "12: check knows MODEL_URL_FILE (no unknown key)" test -z "$(grep -F 'unknown key' "$TMP/err" "$TMP/out")"
echo "MODEL_URL=$URL" >>p12/e.env
rm p12/m.gguf
run "$ZEALOT" fetch p12/e.env
check "12: MODEL_URL and MODEL_URL_FILE both: refused, nothing fetched" \
	test "$rc" -ne 0 -a ! -e p12/m.gguf -a -n "$(grep -F 'both set' "$TMP/err")"
check "no sanitizer report" no_sanitizer
