#!/bin/sh
# heapprof report sums the dumps of one process; dumps of several (by the
# pid in their names, <prefix>.<pid>.<seq>...) are refused in one line
# naming the pids, unless --merge, and so does heapprof trend.  Series of
# one process, --base against another run and --leaks keep working.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 18

flat() { awk -v fn="$1" '$6 == fn { print $1; f = 1 } END { if (!f) print 0 }'; }
prof lg_prof_sample:0,prof_final:true,prof_prefix:a "$TP/seed" >/dev/null 2>&1
prof lg_prof_sample:0,prof_final:true,prof_prefix:a "$TP/seed" >/dev/null 2>&1
set -- a.*.f.*.heap
p1=$(echo "$1" | cut -d. -f2)
p2=$(echo "$2" | cut -d. -f2)
ok $([ $# -eq 2 ] && [ "$p1" != "$p2" ]; echo $?) "two runs: two dumps of two processes"

"$BIN" report "$@" >out 2>err
is "$?" 2 "report refuses to sum them"
is "$(cat err)" "heapprof report: the dumps come from 2 processes (pids $p1, $p2): report one process's dumps, or sum them with --merge" \
	"in one line naming the pids"
is "$(cat out)" "" "and writes nothing"
"$BIN" report --merge --show-bytes "$@" >out 2>err
is "$?:$(cat err)" "0:" "--merge sums them"
is "$(flat do_something <out)" 6471680 "twice do_something's 3235840 bytes"

# One process's series: two dumps of one pid.
export HEAPPROF_RUNTIME_DIR=$T_DIR/run
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/s "$BIN" run "$TP/idle" 30 2 >/dev/null 2>&1 &
pid=$!
n=0
while ! grep -qs '^signal_control=' "run/$pid" && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
"$BIN" dump $pid >/dev/null
"$BIN" dump $pid >/dev/null
kill -TERM $pid
wait $pid 2>/dev/null
set -- s.$pid.*.heap
is "$#" 2 "one process, two dumps"
"$BIN" report "$@" >out 2>err
is "$?:$(cat err)" "0:" "one process's dumps are summed without --merge"
"$BIN" report --base "$1" "$2" >out 2>err
is "$?:$(cat err)" "0:" "--base with one process's dumps"
"$BIN" report --base "$(one_file "a.$p1.*.heap")" "$2" >out 2>err
is "$?:$(cat err)" "0:" "--base from another run: one dump on each side, nothing summed"
"$BIN" report --base a.$p1.*.heap --base a.$p2.*.heap "$2" >out 2>err
like "$?:$(cat err)" "^2:heapprof report: the --base dumps come from 2 processes \\(pids $p1, $p2\\)" \
	"two bases of two processes are refused too"
"$BIN" trend a.*.f.*.heap >out 2>err
is "$?:$(cat err)" "2:heapprof trend: the dumps come from 2 processes (pids $p1, $p2): give one process's dumps, or follow them as one series with --merge" \
	"trend refuses two processes' dumps too, in one line naming the pids"
is "$(cat out)" "" "and writes nothing"
"$BIN" trend --merge a.*.f.*.heap >out 2>err
is "$?:$(cat err)" "0:" "trend --merge follows stacks across runs"
like "$(cat out)" "^Trend of inuse_space over 2 dumps" "as one series of two dumps"
"$BIN" trend s.$pid.*.heap >out 2>err
is "$?:$(cat err)" "0:" "trend of one process's dumps needs no --merge"
cp "$1" renamed.heap
"$BIN" report renamed.heap "$2" >out 2>err
is "$?:$(cat err)" "0:" "a dump named otherwise is nobody's: summed with one process's"
prof lg_prof_sample:0,prof_leak:true,prof_final:true,prof_prefix:l "$TP/seed" >/dev/null 2>&1
prof lg_prof_sample:0,prof_leak:true,prof_final:true,prof_prefix:l "$TP/seed" >/dev/null 2>&1
"$BIN" report --leaks l.*.f.*.heap >out 2>err
like "$?:$(cat err)" '^2:heapprof report: the dumps come from 2 processes' "--leaks of two processes: refused too"
done_testing
