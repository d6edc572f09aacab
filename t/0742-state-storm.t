#!/bin/sh
# State files of processes that died without their exit handler: a storm
# of children that _exit, exit, or are SIGKILLed (often while their helper
# thread rewrites the file) left about 100 files in the runtime directory.
# The next profiled program's start-up removes them, and so does
# heapprof ps; _exit removes the process's own file; heapprof ps tells a
# file whose pid was reused by a later process by its start time.
. "$(dirname "$0")/lib.sh"
plan 9

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
storm() {
	timeout 60 env HEAPPROF_CONF=prof_prefix:x LD_PRELOAD=$LIB "$TP/kidstorm" "$@" >/dev/null 2>&1
}
count() { ls -A run | wc -l; }

# 300 children that _exit or exit: each removes its own file.
storm 300 -1
is "$(count)" 0 "children that _exit or exit leave nothing behind"

# The storm: 300 children, a third SIGKILLed after 0 to 2 ms.
storm 150 0
storm 150 2000
# And a request the heapprof command left for a process that died.
true &
gone=$!
wait $gone
: >run/ctl.$gone.dump
before=$(count)
diag "after the storm: $before files in the runtime directory"
ok $([ "$before" -gt 0 ]; echo $?) "killed children leave files behind ($before)"
timeout 20 env HEAPPROF_CONF=prof_prefix:x LD_PRELOAD=$LIB "$TP/gate" clean >/dev/null 2>err
is "$(count)" 0 "the next profiled program's start-up removes every one of them, control files included"
is "$(cat err)" "" "silently"

storm 150 1000
# And what a process killed in the middle of rewriting its file leaves.
true &
dead=$!
wait $dead
echo partial >run/.$dead.$dead.7.tmp
before=$(count)
ok $([ "$before" -gt 1 ]; echo $?) "another storm leaves $before files"
"$BIN" ps >ps.out 2>&1
is "$(count)" 0 "heapprof ps removes them too, temporaries included"
is "$(grep -c kidstorm ps.out)" 0 "and lists none of them"

# A file naming a live profiled pid that started later than its writer:
# heapprof ps tells them apart by the start time.
timeout 60 env HEAPPROF_RUNTIME_DIR=$T_DIR/elsewhere HEAPPROF_CONF=prof_prefix:x LD_PRELOAD=$LIB \
	"$TP/idle" 30 >idle.out 2>&1 &
for i in $(seq 1 500); do grep -q ready idle.out 2>/dev/null && break; sleep 0.01; done
live=$(sed -n 's/^ready //p' idle.out)
printf 'version=0.1.0\npid=%d\nstarttime=1\nprogram=/gone\n' $live >run/$live
"$BIN" ps >/dev/null 2>&1
ok $([ ! -e run/$live ]; echo $?) "heapprof ps: a file whose pid now belongs to a later process is removed"
printf 'version=0.1.0\npid=%d\nprogram=%s\n' $live "$TP/idle" >run/$live
"$BIN" ps >/dev/null 2>&1
ok $([ -e run/$live ]; echo $?) "a file of that live pid without a start time (an older writer's) is kept"
kill $live 2>/dev/null
wait
done_testing
