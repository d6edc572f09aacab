#!/bin/sh
# debian/check-deb.sh -- make check-deb: the packages make deb builds,
# installed with apt on a clean Debian 12 and used there.  The base is the
# debootstrap'ed bookworm (minbase) that make check-docker keeps in
# build/docker; a copy of it gets the packages with apt-get install
# ./heapprof_*.deb (their Depends from Debian's mirror), runs the seeds'
# story from the installed paths (a leaky program under heapprof run, a
# dump on kill -USR1, heapprof report, heapprof check's 23), then, with
# /etc/heapprof/profiler.ini edited, is upgraded to a newer build of the
# same tree (VERSION+test1, its sample changed: the edit stays, under
# dpkg's --force-confold, which a noninteractive upgrade wants; the new
# sample lands beside it as .dpkg-dist), then removed and purged:
# nothing of the packages stays behind.  As root; not part of make check
# (minutes, a network), like make check-docker.  Prints TAP.
#
#     sh debian/check-deb.sh [WORKDIR]         (make check-deb)
set -u
cd "$(dirname "$0")/.." || exit 1
top=$PWD
me=debian/check-deb.sh
. "$top/contrib/docker/chroot-tap.sh"
echo "1..23"
mkdir -p "$work"
root=$work/stage-deb
mounted=
cleanup() {
	for m in $mounted; do umount -l "$m" 2>/dev/null; done
	rm -rf --one-file-system "$root"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

base=$work/base-bookworm
if [ ! -e "$base/.done" ]; then
	rm -rf "$base"
	debootstrap --variant=minbase bookworm "$base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
		{ echo "Bail out! debootstrap failed: $work/debootstrap.log"; tail -n 20 "$work/debootstrap.log"; exit 1; }
	touch "$base/.done"
fi

# The two builds: this tree's version, and a newer one of the same tree.
version=$(sed -n 's/^#define HEAPPROF_VERSION "\(.*\)"/\1/p' src/version.h)
newer=$version+test1
arch=$(dpkg --print-architecture)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
sh debian/make-deb.sh "$work/deb-old" "$version" >"$work/deb-old.log" 2>&1
ok $? "make deb's build of $version (dpkg-buildpackage, lintian clean)"
# The newer build's sample profiler.ini differs, as a release's may: the
# upgrade must keep the edited one all the same.
rm -rf "$work/tree-new" && mkdir -p "$work/tree-new" &&
	git ls-files -z -co --exclude-standard | grep -zv '^build' | tar -cf - --null -T - | tar -xf - -C "$work/tree-new" &&
	echo '; (the sample of a newer build)' >>"$work/tree-new/conf/profiler.ini" &&
	(cd "$work/tree-new" && sh debian/make-deb.sh "$work/deb-new" "$newer") >"$work/deb-new.log" 2>&1
ok $? "and of $newer, whose sample profiler.ini has one line more"
rm -rf "$work/tree-new"

rm -rf --one-file-system "$root" && cp -a "$base" "$root" || { echo "Bail out! cannot copy $base"; exit 1; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc" && mounted="$root/proc"
mount --bind /dev "$root/dev" && mounted="$root/dev $mounted"
# A leaky program for the story (the demo's, built here; bookworm's libc).
make --no-print-directory build/demo/leaky >/dev/null 2>&1 || { echo "Bail out! make build/demo/leaky failed"; exit 1; }
mkdir -p "$root/pkgs/old" "$root/pkgs/new" "$root/story"
cp "$work"/deb-old/*.deb "$root/pkgs/old/" && cp "$work"/deb-new/*.deb "$root/pkgs/new/" &&
	cp build/demo/leaky "$root/story/leaky"

# in_root CMD...: CMD in the chroot, in /story.
in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		DEBIAN_FRONTEND=noninteractive /bin/sh -c "cd /story && $*"
}
# What is on the system, but for apt's and dpkg's own state, logs and
# scratch: compared before the install and after the purge.
files() {
	(cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./sys -o -path ./tmp \
		-o -path ./story -o -path ./pkgs -o -path ./var/lib/apt -o -path ./var/cache \
		-o -path ./var/lib/dpkg -o -path ./var/log \) -prune -o -print) | sort
}

in_root apt-get update >"$work/apt.log" 2>&1
files >"$work/files.before"
in_root "apt-get install -y --no-install-recommends /pkgs/old/heapprof_${version}_$arch.deb \
	/pkgs/old/heapprof-dev_${version}_$arch.deb" >>"$work/apt.log" 2>&1
ok $? "apt-get install ./heapprof_${version}_$arch.deb ./heapprof-dev_... on a clean Debian 12"
[ $? -eq 0 ] || tail -n 20 "$work/apt.log" | diag
for p in libunwind8 libinih1 libdw1 zlib1g; do
	in_root dpkg-query -W -f='\${Status}' $p 2>/dev/null | grep -q 'ok installed' || echo "$p"
done >"$work/missing"
[ ! -s "$work/missing" ]
ok $? "apt brought the computed Depends: libunwind8 libinih1 libdw1 zlib1g"
[ -s "$work/missing" ] && diag <"$work/missing"
in_root "dpkg -L heapprof heapprof-dev" >"$work/dpkg-L" 2>&1
r=0
for f in /usr/bin/heapprof /usr/lib/heapprof/libheapprof.so /usr/lib/$triplet/heapprof/libheapprof.so \
	/etc/heapprof/profiler.ini /usr/share/heapprof/profiler.ini /usr/share/bash-completion/completions/heapprof \
	/usr/share/man/man1/heapprof.1.gz /usr/share/man/man7/heapprof.7.gz /usr/share/man/man5/profiler.ini.5.gz \
	/usr/include/heapprof.h /usr/lib/$triplet/pkgconfig/heapprof.pc /usr/share/man/man3/heapprof.3.gz; do
	grep -qx "$f" "$work/dpkg-L" && [ -e "$root$(grep -x "$f" "$work/dpkg-L" | head -n 1)" ] ||
		{ echo "missing: $f"; r=1; }
done >"$work/missing"
ok $r "dpkg -L: the command, the library and its LD_PRELOAD link, profiler.ini, man pages, completion, header, .pc"
[ $r -eq 0 ] || diag <"$work/missing"

v_pkg=$(in_root "dpkg-query -W -f='\${Version}' heapprof")
v_cmd=$(in_root heapprof --version)
v_lib=$(in_root "MALLOC_CONF=log_level:debug LD_PRELOAD=/usr/lib/heapprof/libheapprof.so ls / >/dev/null" 2>&1 |
	sed -n 's/^<heapprof>: heapprof \([^:]*\): sampling.*/\1/p')
[ "$v_pkg" = "$version" ] && [ "$v_cmd" = "heapprof $version" ] && [ "$v_lib" = "$version" ]
ok $? "one version: the package's '$v_pkg', heapprof --version's '$v_cmd', the library's start-up line's '$v_lib'"

# The story, from the installed paths.
in_root "heapprof run -c lg_prof_sample:0,prof_leak:true,prof_prefix:/story/run ./leaky" >"$work/run.out" 2>&1
grep -q '^<heapprof>: Run /usr/bin/heapprof report /story/run\.' "$work/run.out"
ok $? "heapprof run ./leaky: the leak summary names /usr/bin/heapprof report and the dump"
[ $? -eq 0 ] || diag <"$work/run.out"
dump=$(sed -n 's|^<heapprof>: Run /usr/bin/heapprof report \(/story/[^ ]*\.heap\).*|\1|p' "$work/run.out" | head -n 1)
in_root "heapprof report $dump" >"$work/report.out" 2>&1
grep -q '^Total: ' "$work/report.out" && grep -q 'format_error\|parse_request' "$work/report.out"
ok $? "heapprof report on it names the leaking functions"
[ $? -eq 0 ] || head -n 20 "$work/report.out" | diag
in_root "LD_PRELOAD=/usr/lib/heapprof/libheapprof.so HEAPPROF_CONF=prof_prefix:/story/usr1 sleep 30 & \
	pid=\$!; sleep 1; kill -USR1 \$pid; for i in 1 2 3 4 5 6 7 8 9 10; do \
	ls /story/usr1.\$pid.*.heap >/dev/null 2>&1 && break; sleep 0.5; done; kill \$pid; \
	heapprof report /story/usr1.\$pid.*.heap" >"$work/usr1.out" 2>&1
grep -q '^Total: ' "$work/usr1.out"
ok $? "kill -USR1 on a program preloaded with /usr/lib/heapprof/libheapprof.so: a dump heapprof report reads"
[ $? -eq 0 ] || head -n 20 "$work/usr1.out" | diag
in_root "heapprof check -- ./leaky" >"$work/check.out" 2>&1
r=$?
[ $r -eq 23 ]
ok $? "heapprof check -- ./leaky exits with 23 (got $r)"
[ $r -eq 23 ] || tail -n 20 "$work/check.out" | diag

# Upgrade with an edited profiler.ini.
printf '%s\n' '# edited by check-deb' 'lg_prof_sample = 18' >>"$root/etc/heapprof/profiler.ini"
in_root "apt-get install -y --no-install-recommends -o Dpkg::Options::=--force-confold \
	/pkgs/new/heapprof_${newer}_$arch.deb /pkgs/new/heapprof-dev_${newer}_$arch.deb" \
	>"$work/apt-new.log" 2>&1 </dev/null
ok $? "apt-get install the newer build ($newer), --force-confold: an upgrade"
[ $? -eq 0 ] || tail -n 20 "$work/apt-new.log" | diag
[ "$(in_root "dpkg-query -W -f='\${Version}' heapprof")" = "$newer" ] && [ "$(in_root heapprof --version)" = "heapprof $newer" ]
ok $? "the package and heapprof --version say $newer"
tail -n 1 "$root/etc/heapprof/profiler.ini" | grep -qx 'lg_prof_sample = 18'
ok $? "the edited /etc/heapprof/profiler.ini is kept"
tail -n 1 "$root/etc/heapprof/profiler.ini.dpkg-dist" | grep -qx '; (the sample of a newer build)' &&
	tail -n 1 "$root/usr/share/heapprof/profiler.ini" | grep -qx '; (the sample of a newer build)'
ok $? "the newer sample is beside it, as profiler.ini.dpkg-dist, and in /usr/share/heapprof"
in_root "MALLOC_CONF=log_level:debug LD_PRELOAD=/usr/lib/heapprof/libheapprof.so ls / >/dev/null" 2>&1 |
	grep -q "^<heapprof>: heapprof $newer: sampling on, 1 in 2^18 bytes"
ok $? "the upgraded library says $newer and reads the kept edit (2^18)"
in_root "grep -qx /etc/heapprof/profiler.ini /var/lib/dpkg/info/heapprof.conffiles"
ok $? "/etc/heapprof/profiler.ini is a conffile"

# Remove, then purge.
in_root "apt-get remove -y heapprof heapprof-dev" >"$work/apt-rm.log" 2>&1
ok $? "apt-get remove heapprof heapprof-dev"
r=0
for f in /usr/bin/heapprof /usr/lib/heapprof /usr/lib/$triplet/heapprof /usr/share/heapprof /usr/include/heapprof.h \
	/usr/share/bash-completion/completions/heapprof /usr/share/man/man1/heapprof.1.gz /usr/share/doc/heapprof; do
	for g in "$root"$f; do [ ! -e "$g" ] || { echo "left: $g"; r=1; }; done
done >"$work/left"
ok $r "remove: the command, the library, the docs and the completion are gone"
[ $r -eq 0 ] || diag <"$work/left"
[ -f "$root/etc/heapprof/profiler.ini" ] && in_root "dpkg-query -W -f='\${db:Status-Abbrev}' heapprof" | grep -q '^rc'
ok $? "remove keeps the edited conffile (heapprof is rc)"
# heapprof-dev, without conffiles, went with remove: apt knows it no more.
in_root "apt-get purge -y heapprof" >"$work/apt-purge.log" 2>&1
ok $? "apt-get purge heapprof"
[ ! -e "$root/etc/heapprof" ]
ok $? "purge: /etc/heapprof is gone"
in_root "dpkg -l 2>/dev/null" | grep -E '^[a-z][a-zA-Z] +heapprof' | grep -v '^un' >"$work/known"
[ ! -s "$work/known" ]
ok $? "dpkg knows no heapprof package any more"
[ -s "$work/known" ] && diag <"$work/known"
in_root "apt-get autoremove --purge -y" >"$work/apt-auto.log" 2>&1
files >"$work/files.after"
diff "$work/files.before" "$work/files.after" >"$work/files.diff"
ok $? "after purge (and autoremove of its Depends) the system has the files it had before the install"
[ -s "$work/files.diff" ] && head -n 30 "$work/files.diff" | diag
exit $((failed > 0))
