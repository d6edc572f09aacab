# container.sh -- a small container for heapprof attach's tests
# (t/0806-t/0808): a new mount and pid namespace, chrooted into a root of
# the test's own, where the host's build/ directory is not visible.
# Sourced after lib.sh; needs root (unshare, mount, chroot).
#
#   container_root DIR [full|bare]   makes DIR a root: full binds the host's /usr
#                                    read-only (lib, lib64 and bin link into
#                                    it, as on this merged-/usr host); bare
#                                    holds only the C library and the loader.
#                                    Both get /tp (the test programs copied in)
#                                    and mount points for their own /tmp and
#                                    /dev/shm (tmpfs) and /proc.
#   container_run DIR CMD...         runs CMD there as the namespace's pid 1:
#                                    unshare's status is CMD's.
#   container_pid DIR                the host pid of the process container_run
#                                    started in DIR (waits for it).
#   CONTAINER_BIND=HOSTDIR:INSIDE    one more bind for container_run.
#   CONTAINER_USER=UID               container_run in a user namespace too,
#                                    whose root is UID here (and GID UID);
#                                    the root's path must be open to UID.

if [ "$(id -u)" != 0 ]; then
	echo "Bail out! $(basename "$0") builds containers: it needs root (unshare, mount, chroot)"
	exit 1
fi
command -v unshare >/dev/null || { echo "Bail out! unshare (util-linux) is missing"; exit 1; }

container_root() {
	_r=$1
	mkdir -p "$_r/tmp" "$_r/dev/shm" "$_r/proc" "$_r/tp" "$_r/var/tmp"
	if [ "${2:-full}" = full ]; then
		mkdir -p "$_r/usr"
		ln -s usr/lib "$_r/lib"
		ln -s usr/lib64 "$_r/lib64"
		ln -s usr/bin "$_r/bin"
	else
		mkdir -p "$_r/lib/x86_64-linux-gnu" "$_r/lib64"
		cp /lib/x86_64-linux-gnu/libc.so.6 "$_r/lib/x86_64-linux-gnu/"
		cp /lib64/ld-linux-x86-64.so.2 "$_r/lib64/"
	fi
	cp "$TP/attachee" "$_r/tp/"
}

container_run() {
	_r=$1
	shift
	# In the namespaces: the mounts, then CMD chrooted.
	_setup='
		r=$1; b=$2; shift 2
		if [ -d "$r/usr" ]; then
			mount --bind /usr "$r/usr" && mount -o remount,bind,ro "$r/usr" || exit 99
		fi
		if [ -n "$b" ]; then
			mkdir -p "$r${b#*:}" && mount --bind "${b%%:*}" "$r${b#*:}" || exit 99
		fi
		[ -L "$r/tmp" ] || mount -t tmpfs -o mode=1777 tmpfs "$r/tmp" || exit 99
		[ -L "$r/dev/shm" ] || [ -L "$r/dev" ] || mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm" || exit 99
		mount -t proc proc "$r/proc" || exit 99
		exec chroot "$r" "$@"'
	# The host's runtime directory is not the container's.
	if [ -n "${CONTAINER_USER:-}" ]; then
		# An ordinary user here makes the user namespace, mapped to its
		# root (no newuidmap needed).
		env -u HEAPPROF_RUNTIME_DIR setpriv --reuid="$CONTAINER_USER" --regid="$CONTAINER_USER" \
			--clear-groups unshare --user --map-root-user --mount --pid --fork --propagation private \
			sh -c "$_setup" sh "$_r" "${CONTAINER_BIND:-}" "$@"
	else
		env -u HEAPPROF_RUNTIME_DIR unshare --mount --pid --fork --propagation private \
			sh -c "$_setup" sh "$_r" "${CONTAINER_BIND:-}" "$@"
	fi
}

container_pid() {
	_n=0
	while [ $_n -lt 500 ]; do
		for _u in $(pgrep -x unshare); do
			for _c in $(pgrep -P "$_u"); do
				if [ "$(readlink "/proc/$_c/root" 2>/dev/null)" = "$1" ]; then
					echo "$_c"
					return 0
				fi
			done
		done
		sleep 0.02
		_n=$((_n + 1))
	done
	return 1
}

# container_pair KIND ARGS...: two containers of KIND (container_root), a
# bare one (bare/, its output in bare.out, bare.err, bare.status) and one
# to attach to (root/: att.out, att.err, att.status), each running
# /tp/ARGS in the background; $bare, $root and the attached one's host
# $pid set, once it printed "ready".
container_pair() {
	_kind=$1
	shift
	mkdir bare root
	bare=$(cd bare && pwd -P)
	root=$(cd root && pwd -P)
	container_root "$bare" "$_kind"
	container_root "$root" "$_kind"
	(container_run "$bare" "$@" >bare.out 2>bare.err; echo $? >bare.status.t; mv bare.status.t bare.status) &
	(container_run "$root" "$@" >att.out 2>att.err; echo $? >att.status.t; mv att.status.t att.status) &
	pid=$(container_pid "$root")
	wait_ready att.out
}
