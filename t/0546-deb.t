#!/bin/sh
# make deb, into this test's scratch build directory: dpkg-buildpackage
# on a copy of the tree gives heapprof, heapprof-dev and heapprof-dbgsym
# at src/version.h's version, lintian finds nothing to say, and the
# packages hold what debian/README.source promises: the library in its
# private directory with the LD_PRELOAD link to it, the command built to
# preload that link, profiler.ini as a conffile, Depends computed by
# dh_shlibdeps, the header and the pkg-config file in -dev, the debug
# information by build-id.  Installing them is make check-deb's
# (debian/check-deb.sh: a clean Debian 12 in a chroot, as root).
. "$(dirname "$0")/lib.sh"
plan 13

for t in dpkg-buildpackage dh lintian fakeroot; do
	command -v $t >/dev/null || { echo "Bail out! $t is missing: make deps"; exit 1; }
done
version=$(sed -n 's/^#define HEAPPROF_VERSION "\(.*\)"/\1/p' "$SRC/src/version.h")
arch=$(dpkg --print-architecture)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
make -C "$SRC" --no-print-directory B="$T_DIR/b" deb >deb.out 2>&1
r=$?
is "$r" 0 "make deb"
[ "$r" -eq 0 ] || diag "$(tail -n 30 deb.out)"
D=$T_DIR/b/deb
ok $([ -f "$D/heapprof_${version}_$arch.deb" ] && [ -f "$D/heapprof-dev_${version}_$arch.deb" ] &&
	[ -f "$D/heapprof-dbgsym_${version}_$arch.deb" ]; echo $?) \
	"heapprof, heapprof-dev and heapprof-dbgsym, $version for $arch, in build/deb"
grep -E '^[EW]: ' deb.out >lintian.out
is "$(cat lintian.out)" "" "lintian: no error, no warning"
ok $(grep -q '^make deb: lintian' deb.out; echo $?) "(lintian did run)"

dpkg-deb -c "$D/heapprof_${version}_$arch.deb" | awk '{ print $6 ($7 ? " " $7 " " $8 : "") }' | sed 's|^\./|/|' >files
want="/usr/bin/heapprof
/usr/lib/$triplet/heapprof/libheapprof.so
/usr/lib/heapprof/libheapprof.so -> ../$triplet/heapprof/libheapprof.so
/etc/heapprof/profiler.ini
/usr/share/heapprof/profiler.ini
/usr/share/bash-completion/completions/heapprof
/usr/share/man/man1/heapprof.1.gz
/usr/share/man/man5/profiler.ini.5.gz
/usr/share/man/man7/heapprof.7.gz
/usr/share/doc/heapprof/copyright
/usr/share/doc/heapprof/changelog.gz
/usr/share/lintian/overrides/heapprof"
is "$(printf '%s\n' "$want" | grep -vxFf files)" "" "heapprof's files: the command, the library and its LD_PRELOAD link, profiler.ini, completion, man pages"
is "$(grep -v '/$' files | grep -vxF "$want" | grep -v '^/usr/share/doc/heapprof/')" "" "and nothing else outside its docs"
dpkg-deb -c "$D/heapprof-dev_${version}_$arch.deb" | awk '{ print $6 }' | sed 's|^\./|/|' | grep -v '/$' >devfiles
is "$(grep -v '^/usr/share/doc/' devfiles | sort | tr '\n' ' ')" \
	"/usr/include/heapprof.h /usr/lib/$triplet/pkgconfig/heapprof.pc /usr/share/man/man3/heapprof.3.gz " \
	"heapprof-dev: the header, the pkg-config file in the triplet's directory, heapprof(3)"

depends=$(dpkg-deb -f "$D/heapprof_${version}_$arch.deb" Depends)
r=0
for p in libunwind8 libinih1 libdw1 zlib1g; do
	case ", $depends," in *", $p "* | *", $p,"*) ;; *) r=1 ;; esac
done
ok $r "Depends, computed by dh_shlibdeps, holds libunwind8, libinih1, libdw1 and zlib1g ($depends)"
dpkg-deb --ctrl-tarfile "$D/heapprof_${version}_$arch.deb" | tar -xOf - ./conffiles >conffiles
is "$(cat conffiles)" "/etc/heapprof/profiler.ini" "conffiles: /etc/heapprof/profiler.ini"

dpkg-deb -x "$D/heapprof_${version}_$arch.deb" x
dpkg-deb -x "$D/heapprof-dev_${version}_$arch.deb" x
grep -aq '/usr/lib/heapprof' x/usr/bin/heapprof
ok $? "the command preloads /usr/lib/heapprof/libheapprof.so (HEAPPROF_LIBDIR)"
is "$(x/usr/bin/heapprof --version)" "heapprof $version" "the packaged command says $version"
is "$(PKG_CONFIG_PATH=x/usr/lib/$triplet/pkgconfig pkg-config --variable=preload heapprof) $(PKG_CONFIG_PATH=x/usr/lib/$triplet/pkgconfig pkg-config --modversion heapprof)" \
	"/usr/lib/heapprof/libheapprof.so $version" "heapprof.pc: preload=/usr/lib/heapprof/libheapprof.so, version $version"
id=$(readelf -n "x/usr/lib/$triplet/heapprof/libheapprof.so" | sed -n 's/.*Build ID: //p')
dpkg-deb -c "$D/heapprof-dbgsym_${version}_$arch.deb" | grep -q "/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
ok $? "heapprof-dbgsym holds the library's debug information by its build-id ($id)"
done_testing
