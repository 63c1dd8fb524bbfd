#!/bin/sh
# Build the Debian package out of tree: the checkout's files (tracked and
# new, not ignored) are copied to build/deb/zealot and
# `dpkg-buildpackage -b -us -uc` runs there, so the .deb (and its
# .changes, .buildinfo) land in build/deb/, never beside the checkout.
# REUSE=1 copies the -O2 objects too and passes -nc (no clean): the same
# package from what `make` already built, in seconds.
set -eu
cd "$(dirname "$0")/.."
out=build/deb
rm -rf "$out"
mkdir -p "$out/zealot"
git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$out/zealot"
nc=
if [ "${REUSE:-0}" = 1 ] && [ -x zealot ]; then
	mkdir -p "$out/zealot/build"
	cp -a build/obj "$out/zealot/build/"
	cp -a zealot "$out/zealot/"
	nc=-nc
fi
cd "$out/zealot"
DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=2} dpkg-buildpackage -b -us -uc $nc
ls "$PWD"/../*.deb
