#!/bin/sh
# heapprof attach to a process in a container whose /dev/shm, /tmp and
# /var/tmp are symbolic links planted to lead a host's write through
# /proc/PID/root out of the container: absolute ones (resolved against
# the host's root by a host path walk) and a relative one climbing out of
# the container's root.  The command writes nothing through them: with
# all three planted it refuses in one line and the process is unchanged;
# with /tmp left real it stages there.  t/container.sh builds the
# containers.
. "$(dirname "$0")/lib.sh"
. "$SRC/t/container.sh"
plan 9


mkdir victim-shm victim-tmp victim-var all one
all=$(cd all && pwd -P)
one=$(cd one && pwd -P)
container_root "$all" full
container_root "$one" full
rmdir "$all/dev/shm" "$all/tmp" "$all/var/tmp" "$one/dev/shm"
ln -s "$T_DIR/victim-shm" "$all/dev/shm"
ln -s "$T_DIR/victim-tmp" "$all/tmp"
ln -s ../../victim-var "$all/var/tmp"
ln -s "$T_DIR/victim-shm" "$one/dev/shm"

(container_run "$all" /tp/attachee 2 3 >all.out 2>all.err; echo $? >all.status.t; mv all.status.t all.status) &
pid=$(container_pid "$all")
wait_ready all.out
ok $([ -d "/proc/$pid/root/tmp/" ] && [ -d "/proc/$pid/root/var/tmp/" ]; echo $?) \
	"through /proc/PID/root, a naive walk would follow them out of the container"
"$BIN" attach "$pid" -c lg_prof_sample:0,prof_prefix:$T_DIR/dumps/c >attach.out 2>attach.err
is "$?:$(cat attach.err)" "1:heapprof attach: process $pid: no place for heapprof's files in the process's filesystem (/dev/shm a symbolic link or no directory; /tmp a symbolic link or no directory; /var/tmp a symbolic link or no directory)" \
	"all three planted: refused in one line naming each"
is "$(grep -c libheapprof "/proc/$pid/maps")" 0 "nothing was loaded"
is "$(find victim-shm victim-tmp victim-var -mindepth 1)" "" \
	"nothing was written through the links"
wait
is "$(cat all.out | tail -n 1) $(cat all.status)" "attachee: 2 threads, ok 7" "the process went on as bare"

(container_run "$one" /tp/attachee 2 3 >one.out 2>one.err; echo $? >one.status.t; mv one.status.t one.status) &
pid=$(container_pid "$one")
wait_ready one.out
"$BIN" attach "$pid" -c lg_prof_sample:0,prof_prefix:$T_DIR/dumps/c >attach.out 2>attach.err
is "$?:$(cat attach.err)" "0:" "/dev/shm planted, /tmp real: attach"
like "$(grep libheapprof "/proc/$pid/maps")" '/tmp/\.heapprof-attach\.[0-9a-f]{12}/libheapprof\.so \(deleted\)$' \
	"staged in the container's /tmp instead"
is "$(ls -A victim-shm)" "" "and nothing went through /dev/shm's link"
"$BIN" detach "$pid" >/dev/null
wait
is "$(cat one.status)" 7 "the process ends as bare (7)"

done_testing
