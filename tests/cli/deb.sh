# The Debian package: scripts/build-deb.sh runs dpkg-buildpackage -b -us -uc
# on a copy of the checkout (REUSE=1: from the objects make already built);
# the .deb installs with dpkg into a root of its own (not this machine's),
# its zealot answers --version, its pages are there, and dpkg -r removes
# every file.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
if ! command -v dpkg-buildpackage >/dev/null; then
	echo "not ok - dpkg-buildpackage is not installed (dpkg-dev)"
	exit 0
fi
[ -x "$ROOT/zealot" ] || make -s -C "$ROOT" zealot >/dev/null
REUSE=1 "$ROOT/scripts/build-deb.sh" >build.log 2>&1
rc=$?
deb=$(ls "$ROOT"/build/deb/zealot_*_*.deb 2>/dev/null | head -1)
check "dpkg-buildpackage -b -us -uc: exit 0, a .deb ($(tail -1 build.log))" test "$rc" -eq 0 -a -n "$deb"
run dpkg-deb -f "$deb" Package Version Depends
check "the .deb: package zealot, the version zealot prints, shared-library depends, the dlopen()ed libcurl4 and libssl3" \
	test -n "$(grep -Fx 'Package: zealot' "$TMP/out")" -a \
	-n "$(grep -Fx "Version: $("$ROOT/zealot" --version | cut -d' ' -f2)-1" "$TMP/out")" -a -n "$(grep -F 'libjansson' "$TMP/out")" \
	-a -n "$(grep -E '^Depends: .*libcurl4.*libssl3' "$TMP/out")"
R=$TMP/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
: >"$R/var/lib/dpkg/status"
# this root's dpkg database lists no libraries: the host's serve
run dpkg --root="$R" --force-depends --force-not-root --log=/dev/null -i "$deb"
check "dpkg -i into a root of its own: exit 0" rc_is 0
run "$R/usr/bin/zealot" --version
check "the installed zealot --version" test "$rc" -eq 0 -a -n "$(grep -E '^zealot [0-9]' "$TMP/out")"
check "its man pages, compressed: zealot-plan.1.gz, zealot-laws.7.gz" \
	test -s "$R/usr/share/man/man1/zealot-plan.1.gz" -a -s "$R/usr/share/man/man7/zealot-laws.7.gz"
run man -l "$R/usr/share/man/man1/zealot-plan.1.gz"
check "man -l renders the packaged page" out_has "--cpu-features"
check "bash completion installed" test -s "$R/usr/share/bash-completion/completions/zealot"
run dpkg --root="$R" --force-depends --force-not-root --log=/dev/null -r zealot
check "dpkg -r: exit 0, no file of it left" test "$rc" -eq 0 -a -z "$(find "$R/usr" -type f 2>/dev/null)"
