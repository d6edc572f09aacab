#!/bin/sh
# The state file heapprof publishes for the heapprof command: what it
# says, when it changes, its removal at exit, where it lives.
. "$(dirname "$0")/lib.sh"
plan 10

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
HEAPPROF_CONF=prof_prefix:$T_DIR/dumps/%e LD_PRELOAD=$LIB "$TP/idle" 30 1 >out 2>err &
pid=$!
while [ ! -s "run/$pid" ]; do sleep 0.01; done
st=$(cat "run/$pid")
like "$st" "^pid=$pid\$" "pid"
like "$st" "^program=$TP/idle\$" "program"
like "$st" "^prefix=$T_DIR/dumps/idle\$" "the prefix, expanded"
like "$st" '^active=1$' "sampling on"
like "$st" '^signal_dump=10$' "the dump signal (SIGUSR1)"
is "$(stat -c %a run) $(stat -c %a run/$pid)" "700 600" "private directory and file"
kill -USR1 $pid
while ! grep -q '^dumps=1$' "run/$pid"; do sleep 0.01; done
like "$(cat run/$pid)" "^last_dump=$T_DIR/dumps/idle\\.$pid\\.0\\.s0\\.[0-9TZ]+\\.heap\$" "updated after a dump"
kill -TERM $pid
wait $pid 2>/dev/null
# Death by a signal runs no exit handler: the file stays, stale, and
# heapprof ps recognises it by its dead pid.
rm -f "run/$pid"
HEAPPROF_CONF=prof_prefix:x LD_PRELOAD=$LIB "$TP/idle" 0.3 1 >/dev/null 2>&1 &
pid=$!
while [ ! -s "run/$pid" ]; do sleep 0.01; done
wait $pid 2>/dev/null
is "$(ls run)" "" "removed when the program exits"

# A directory others could write to is not used.
mkdir open && chmod 777 open
rm -f out err   # the first run's "ready" must not be mistaken for this one's
HEAPPROF_RUNTIME_DIR=$T_DIR/open HEAPPROF_CONF=prof_prefix:x LD_PRELOAD=$LIB "$TP/idle" 30 1 >out 2>err &
pid=$!
while ! grep -q ready out 2>/dev/null; do sleep 0.01; done
sleep 0.3
is "$(ls open)" "" "a world-writable runtime directory is refused"
kill -TERM $pid
wait $pid 2>/dev/null
like "$(cat err)" "^<heapprof>: runtime directory $T_DIR/open can be written by others \\(mode 777\\): not used; heapprof ps finds this process by its memory map only\$" \
	"one line says why (the command falls back to /proc)"
done_testing
