#!/bin/sh
# fork: the child keeps profiling under its own pid, inherits the parent's
# counts (as jemalloc's profiler does) and writes its own final dump.
# exec: the preload follows through the environment.
. "$(dirname "$0")/lib.sh"
plan 8

prof lg_prof_sample:0,prof_leak:true "$TP/forker" >out 2>err
is $? 0 "exit status unchanged"
parent=$(sed -n 's/^parent \([0-9]*\),.*/\1/p' out)
child=$(sed -n 's/^child \([0-9]*\)$/\1/p' out)
pdump=$(one_file "heapprof.$parent.*.f.*heap")
cdump=$(one_file "heapprof.$child.*.f.*heap")
ok $([ -n "$pdump" ] && [ -n "$cdump" ]; echo $?) "parent and child each write a final dump named by their pid"
is "$(jeprof_bytes "$TP/forker" "$pdump" parent_alloc)" 3000 "parent: its own 3000 bytes"
is "$(jeprof_bytes "$TP/forker" "$cdump" child_alloc)" 4000 "child: its own 4000 bytes"
is "$(jeprof_bytes "$TP/forker" "$cdump" parent_alloc)" 1000 "child: inherits the 1000 bytes live at fork"
is "$(grep -c 'Leak approximation summary' err)" 2 "one summary per process"
rm -f *.heap

prof lg_prof_sample:0,prof_leak:true "$TP/forker" exec "$TP/seed" >out 2>err
like "$(cat err)" "~6270976 bytes, ~119 objects, >= 2 contexts" "an exec'd program is profiled too"
is "$(ls heapprof.*.f.*heap | wc -l)" 2 "forker and the exec'd seed each leave a dump"
done_testing
