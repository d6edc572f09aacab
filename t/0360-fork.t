#!/bin/sh
# fork under load: threads allocating in exact mode, a fork every 20 ms,
# dump signals arriving all the while; no deadlock, every child exits
# cleanly.  A forked child has a helper thread of its own: it dumps on
# SIGUSR1 under its own pid.
. "$(dirname "$0")/lib.sh"
plan 6

HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:fk LD_PRELOAD=$LIB timeout 60 "$TP/busy" 3 2 fork >out 2>err &
job=$!
while ! grep -q ready out 2>/dev/null; do sleep 0.01; done
pid=$(sed -n 's/^ready //p' out)
end=$(( $(date +%s) + 3 ))
while [ "$(date +%s)" -lt $end ]; do kill -USR1 $pid 2>/dev/null; sleep 0.002; done
wait $job 2>/dev/null
is $? 0 "the forking, allocating, signalled process finished (no deadlock)"
children=$(sed -n 's/^done: \([0-9]*\) children, \([0-9]*\) failed$/\1 \2/p' out)
ok $(echo "$children" | awk '{exit !($1 >= 20 && $2 == 0)}'; echo $?) "children forked and exited cleanly: $children (forked, failed)"
n=$(ls fk.$pid.*.s*.heap 2>/dev/null | wc -l)
ok $([ "$n" -ge 5 ]; echo $?) "the parent kept dumping meanwhile ($n dumps)"
rm -f fk.*

# The child's own helper thread.
rm -f out err   # the first run's "ready" must not be mistaken for this one's
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:ch LD_PRELOAD=$LIB "$TP/idle" 30 2 fork >out 2>err &
job=$!
while ! grep -q ready out 2>/dev/null; do sleep 0.01; done
child=$(sed -n 's/^ready //p' out)
kill -USR1 $child
n=0
while ! ls ch.$child.*.s0.*.heap >/dev/null 2>&1 && [ $n -lt 500 ]; do sleep 0.01; n=$((n + 1)); done
dump=$(ls ch.$child.*.s0.*.heap 2>/dev/null)
ok $([ -n "$dump" ]; echo $?) "a forked child dumps on SIGUSR1, under its own pid"
is "$(jeprof_bytes "$TP/idle" "$dump" leak_some)" 2097152 "with the heap it inherited"
kill -TERM $child
wait $job 2>/dev/null
is $? 143 "the child ran until told to stop"
done_testing
