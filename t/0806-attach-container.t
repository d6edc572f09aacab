#!/bin/sh
# heapprof attach from the host to a process in a container: its own mount
# and pid namespaces, chrooted into a root with the host's /usr and its own
# /tmp and /dev/shm, where build/ is not visible (t/container.sh).  The
# library is staged in the container's /dev/shm, loaded and unlinked; the
# dumps land in the host's directory that -c prof_prefix names; dump, ps,
# pause, resume, serve and detach work from the host, by the host's pid; the
# program's output and exit status are a bare container run's, and nothing
# of heapprof's is left in the container.  Then a process started in a
# container under LD_PRELOAD is found and dumped from the host, its dump
# read through /proc/PID/root.
. "$(dirname "$0")/lib.sh"
. "$SRC/t/container.sh"
plan 30

export HEAPPROF_RUNTIME_DIR=$T_DIR/run


# Only what heapprof left behind: the library's runtime directory, empty.
leftovers() {
	(cd "/proc/$1/root" && find tmp dev/shm var/tmp -mindepth 1 \( -path tmp/heapprof-0 -prune -o -print \);
	 find tmp/heapprof-0 -mindepth 1 2>/dev/null)
}

container_pair full /tp/attachee 4 6
ok $([ ! -e "/proc/$pid/root$LIB" ]; echo $?) "the container does not see $LIB"
is "$(sed -n 's/^NSpid:.*[[:space:]]//p' "/proc/$pid/status")" 1 "the program is its pid namespace's process 1"

"$BIN" attach "$pid" -c lg_prof_sample:0,prof_prefix:$T_DIR/dumps/c >attach.out 2>attach.err
is $? 0 "attach: exit 0"
like "$(cat attach.out)" "^heapprof: attached to process $pid: [0-9]+ GOT entries" "attach says so"
is "$(cat attach.err)" "" "and nothing on stderr"
like "$(grep libheapprof "/proc/$pid/maps")" '/dev/shm/\.heapprof-attach\.[0-9a-f]{12}/libheapprof\.so \(deleted\)$' \
	"the library was loaded from a copy staged in the container's /dev/shm, unlinked since"
is "$(leftovers "$pid" | grep -v '^tmp/heapprof-0/')" "" "nothing staged is left in the container"
like "$("$BIN" ps)" "^$pid +active +0 .* /tp/attachee +$T_DIR/dumps/c +attached [0-9]{8}T[0-9]{6}Z\$" \
	"ps on the host lists it by its host pid, with the host's prefix"
sleep 1
dump=$("$BIN" dump "$pid")
is $? 0 "dump: exit 0"
like "$dump" "^$T_DIR/dumps/c\\.1\\.0\\.s0\\..*\\.heap\$" \
	"dump prints the host's path (the name carries the container's pid, 1)"
ok $([ -s "$dump" ]; echo $?) "and the dump is there, on the host"
like "$("$BIN" report --binary "$root/tp/attachee" "$dump" | sed -n 4p)" ' keep_growing$' \
	"report (with --binary: the program's path is the container's) names the growing stack"
timeout --foreground 60 "$BIN" serve --listen 127.0.0.1:0 >serve.out 2>serve.err &
srv=$!
n=0
while ! grep -q listening serve.out 2>/dev/null && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
url=$(sed -n 's|^heapprof serve: listening on \(http://.*\)/$|\1|p' serve.out)
code=$(curl -s -D served.head -o served.pb.gz -w '%{http_code}' "$url/debug/pprof/heap?pid=$pid")
is "$code" 200 "serve answers the container's process by its host pid"
like "$(tr -d '\r' <served.head)" "^X-Heapprof-Dump: $T_DIR/dumps/c\\.1\\.1\\.s1\\..*\\.heap\$" \
	"with a fresh dump in the host's directory"
ok $(gzip -t served.pb.gz; echo $?) "a gzipped profile"
kill $srv
wait $srv 2>/dev/null
is "$("$BIN" pause "$pid")" "$pid: sampling paused" "pause works on it"
is "$("$BIN" resume "$pid")" "$pid: sampling active" "resume too"
"$BIN" detach "$pid" >detach.out 2>detach.err
is $? 0 "detach: exit 0"
unlike "$("$BIN" ps -q)" "^$pid\$" "detached, it leaves ps"
is "$(ls -l "/proc/$pid/fd" | grep -c "$T_DIR/dumps")" 0 "and it holds the host's directory no more"
"$BIN" attach "$pid" -c lg_prof_sample:0,prof_prefix:$T_DIR/again/c >/dev/null 2>attach2.err
is $? 0 "attached again (the inert copy is used again)"
dump2=$("$BIN" dump "$pid")
like "$dump2" "^$T_DIR/again/c\\.1\\." "its dump lands in the new host directory"
"$BIN" detach "$pid" >/dev/null 2>&1
is "$(leftovers "$pid")" "" "detached: nothing of heapprof's is left in the container"
wait
is "$(cat att.out)" "$(cat bare.out)" "the program's output is the bare container run's"
is "$(cat att.status)" "$(cat bare.status)" "and its exit status ($(cat bare.status))"
is "$(grep -v '^<heapprof>: \(attached:\|dump \|detached:\|sampling \)' att.err)" "" \
	"its stderr has heapprof's attached, dump, sampling and detached lines, nothing else"

# Started in a container under LD_PRELOAD (the library bound in at /hp):
# found by the host's ps and dump, its files under /proc/PID/root.
mkdir pre
pre=$(cd pre && pwd -P)
container_root "$pre" full
(CONTAINER_BIND=$(dirname "$LIB"):/hp container_run "$pre" /usr/bin/env LD_PRELOAD=/hp/libheapprof.so \
	HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:/tmp/pre /tp/attachee 2 4 >pre.out 2>pre.err
 echo $? >pre.status.t; mv pre.status.t pre.status) &
ppid=$(container_pid "$pre")
wait_ready pre.out
like "$("$BIN" ps)" "^$ppid +active .* /proc/$ppid/root/tmp/pre\$" \
	"a preloaded process in a container: ps lists it, its prefix read through /proc/PID/root"
sleep 0.5
pdump=$("$BIN" dump "$ppid")
like "$pdump" "^/proc/$ppid/root/tmp/pre\\.1\\.0\\.s0\\..*\\.heap\$" "dump prints its dump's path here"
like "$("$BIN" report --binary "$pre/tp/attachee" "$pdump" | sed -n 3p)" ' keep_growing$' \
	"and report reads it"
wait
is "$(cat pre.status)" 7 "the preloaded program ends as bare (7)"

done_testing
