# contrib/docker/chroot-tap.sh -- what the chroot checks share
# (contrib/docker/nodaemon.sh for make check-docker, debian/check-deb.sh
# for make check-deb): TAP's ok and diag, root and debootstrap checked,
# and $work (the first argument, or build/docker) and $mirror.  Sourced
# from the top of the tree with the script's name in $me.
work=${1:-$top/build/docker}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
diag() { sed 's/^/# /'; }

if [ "$(id -u)" != 0 ]; then
	echo "Bail out! $me needs root (debootstrap, chroot, mount)"
	exit 1
fi
command -v debootstrap >/dev/null || { echo "Bail out! debootstrap is missing: make deps-docker"; exit 1; }
