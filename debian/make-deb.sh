#!/bin/sh
# debian/make-deb.sh OUT VERSION -- make deb's steps: the tree's files
# (those git knows or does not ignore; every file but build*/ outside a
# git checkout) copied to OUT/src/heapprof-VERSION, debian/changelog
# generated there from VERSION (src/version.h's, with make deb's
# DEB_VERSION_SUFFIX, which the copy's src/version.h then says too),
# dpkg-buildpackage -b -us -uc run in it, the
# packages moved to OUT and checked by lintian: an error or a warning
# that debian/*.lintian-overrides does not explain fails the build.
set -eu
out=$1 version=$2
case $version in '' | *[!0-9A-Za-z.+~]*)
	echo "make deb: bad version '$version' (src/version.h's HEAPPROF_VERSION, then DEB_VERSION_SUFFIX)" >&2
	exit 1 ;;
esac
src=$out/src/heapprof-$version
rm -rf "$out"
mkdir -p "$src"
# A git checkout's top (not a copy inside another checkout's build/).
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
	git ls-files -z -co --exclude-standard | grep -zv '^build' |
		tar -cf - --null -T - | tar -xf - -C "$src"
	date=$(date -R -d "@$(git log -1 --format=%ct)")
else
	tar -cf - --exclude='./build*' . | tar -xf - -C "$src"
	date=$(date -R)
fi
# A suffixed version (a test's newer build) is the copy's version.h too,
# so that heapprof --version and the library's start-up line say it.
sed -i "s/^#define HEAPPROF_VERSION \".*\"/#define HEAPPROF_VERSION \"$version\"/" "$src/src/version.h"
maint=$(sed -n 's/^Maintainer: //p' debian/control)
cat >"$src/debian/changelog" <<CHLOG
heapprof ($version) unstable; urgency=medium

  * Built from the heapprof tree by make deb (the version is
    src/version.h's); what changed is in CHANGES.gz beside this file.

 -- $maint  $date
CHLOG
echo "make deb: dpkg-buildpackage -b -us -uc in $src (log: $out/build.log)"
# The copy's build is its own: none of make deb's variables (B=...,
# which its make clean would remove) reaches it through MAKEFLAGS.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
export DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=$(nproc)}"
if ! (cd "$src" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "make deb: dpkg-buildpackage failed: $out/build.log" >&2
	exit 1
fi
mv "$out"/src/*.deb "$out"/src/*.buildinfo "$out"/src/*.changes "$out"/
ls "$out"/*.deb
echo "make deb: lintian"
lintian --fail-on error,warning --info "$out"/*.changes
