#!/bin/sh
# heapprof attach to a process in a container that lacks the libraries
# libheapprof.so needs (a root holding only the C library and the loader):
# each is staged beside the library, loaded first by absolute path, and
# unlinked.  Then a container in a user namespace (its root is uid 100000
# here): the staged files and the dumps are that user's, a dump directory
# it cannot write is refused with a clear line, and the program ends as
# bare.  t/container.sh builds the containers.
. "$(dirname "$0")/lib.sh"
. "$SRC/t/container.sh"
plan 19


container_pair bare /tp/attachee 4 5
is "$(cd "/proc/$pid/root" && find . -name '*.so*' | sort | tr '\n' ' ')" \
	"./lib/x86_64-linux-gnu/libc.so.6 ./lib64/ld-linux-x86-64.so.2 " \
	"the container holds the C library and the loader, nothing else"
"$BIN" attach "$pid" -c lg_prof_sample:0,prof_prefix:$T_DIR/dumps/c >attach.out 2>attach.err
is $? 0 "attach: exit 0"
is "$(cat attach.err)" "" "nothing on stderr"
staged=$(sed -n 's|.*/dev/shm/\.heapprof-attach\.[0-9a-f]*/\([^ ]*\) (deleted)$|\1|p' "/proc/$pid/maps" | sort -u | tr '\n' ' ')
for so in libunwind.so.8 libinih.so.1 liblzma.so.5 libgcc_s.so.1 libheapprof.so; do
	like "$staged" "(^| )$so " "$so staged, loaded and unlinked"
done
is "$(cd "/proc/$pid/root" && find dev/shm tmp -name '.heapprof-attach.*')" "" "nothing staged is left"
sleep 0.5
dump=$("$BIN" dump "$pid")
like "$dump" "^$T_DIR/dumps/c\\.1\\.0\\.s0\\..*\\.heap\$" "dump: in the host's directory"
like "$("$BIN" report --binary "$root/tp/attachee" "$dump" | sed -n 4p)" ' keep_growing$' \
	"report names the growing stack (libunwind's walks work from the staged copy)"
"$BIN" detach "$pid" >/dev/null
is $? 0 "detach"
wait
is "$(cat att.out) $(cat att.status)" "$(cat bare.out) $(cat bare.status)" \
	"the program's output and exit status are the bare container run's"

# A user namespace: the container's root is uid 100000 here.
chmod 755 "$T_DIR"
mkdir user closed
user=$(cd user && pwd -P)
container_root "$user" full
(CONTAINER_USER=100000 container_run "$user" /tp/attachee 2 4 >u.out 2>u.err; echo $? >u.status.t; mv u.status.t u.status) &
upid=$(container_pid "$user")
wait_ready u.out
is "$(awk '/^Uid:/ { print $3 }' "/proc/$upid/status")" 100000 "in a user namespace, its root is uid 100000 here"
"$BIN" attach "$upid" -c prof_prefix:$T_DIR/closed/c >closed.out 2>closed.err
is "$?:$(cat closed.err)" "1:heapprof attach: prof_prefix $T_DIR/closed/c: process $upid (uid 100000 on this host, in a user namespace) cannot write in $T_DIR/closed: give it that user, or choose another directory" \
	"a dump directory it cannot write is refused in one line"
is "$(grep -c libheapprof "/proc/$upid/maps")" 0 "and nothing was loaded"
"$BIN" attach "$upid" -c lg_prof_sample:0,prof_prefix:$T_DIR/udumps/c >/dev/null 2>uattach.err
is "$?:$(cat uattach.err)" "0:" "attach with a new directory: made for uid 100000"
sleep 0.5
udump=$("$BIN" dump "$upid")
is "$(stat -c '%u %g %a' "$udump" "$T_DIR/udumps")" "100000 100000 600
100000 100000 700" "the dump and its directory are the container's user's"
"$BIN" detach "$upid" >/dev/null
wait
is "$(cat u.status)" 7 "the program in the user namespace ends as bare (7)"

done_testing
