#!/bin/sh
# The helper thread never keeps a process alive (issue 12, defect 1).  A
# process whose main calls pthread_exit ends when its last thread does,
# exactly as bare, and SIGTERM still ends it meanwhile; a child forked
# from a thread other than main ends when that thread does (CPython's
# test_3_join_in_forked_from_thread hung), after its own helper thread
# has written a dump on SIGUSR1; the final dump, written by the last
# thread, still lists the mappings.  At the default rate and in exact mode.
. "$(dirname "$0")/lib.sh"
. "$SRC/t/bare.sh"
plan 35

PY=/usr/bin/python3
# CPython's test_3_join_in_forked_from_thread, reduced: fork from a
# thread; in the child that thread ends, which ends the child.
py_fork_from_thread='
import os, threading
def worker():
    pid = os.fork()
    if pid:
        _, st = os.waitpid(pid, 0)
        print("child exit status", os.waitstatus_to_exitcode(st), flush=True)
        return
    print("child: the forking thread ends", flush=True)
t = threading.Thread(target=worker)
t.start()
t.join()
print("parent done", flush=True)
'

# term_waiting PRELOAD: main has called pthread_exit, a worker sleeps;
# SIGTERM the process; TAG t.st and t.ms (from the signal to the end).
term_waiting() {
	rm -f t.out
	if [ "$1" = 1 ]; then
		MALLOC_CONF=$conf timeout -s KILL 20 env LD_PRELOAD="$LIB" "$TP/patterns" pthread_exit_wait >t.out 2>t.err &
	else
		MALLOC_CONF=$conf timeout -s KILL 20 "$TP/patterns" pthread_exit_wait >t.out 2>t.err &
	fi
	_job=$!
	wait_for t.out '^ready [0-9]+$' 10
	_t0=$(date +%s%N)
	kill -TERM "$(sed -n 's/^ready //p' t.out)"
	wait $_job 2>/dev/null
	echo $? >t.st
	echo $(( ($(date +%s%N) - _t0) / 1000000 )) >t.ms
}

for conf in "" lg_prof_sample:0; do
	rate=${conf:-default rate}
	same_as_bare "main calls pthread_exit, a 200 ms worker ends the process ($rate)" \
		"$TP/patterns" pthread_exit

	term_waiting 0
	bare_st=$(cat t.st)
	term_waiting 1
	is "$(cat t.st)" "$bare_st" "after main's pthread_exit, SIGTERM ends the process as bare ($rate)"
	ok $([ "$(cat t.ms)" -lt 1000 ]; echo $?) "at once ($(cat t.ms) ms)"

	same_as_bare "fork from a thread other than main: the child ends with that thread ($rate)" \
		"$TP/patterns" thread_fork
	same_as_bare "python3: fork from a thread, test_3_join_in_forked_from_thread's way ($rate)" \
		"$PY" -c "$py_fork_from_thread"
done

# The forked child's own helper thread: a dump on SIGUSR1, the toggle on
# SIGUSR2, then the child ends when its thread does.
rm -f out err
t0=$(date +%s%N)
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:ch timeout -s KILL 20 env LD_PRELOAD="$LIB" "$TP/patterns" thread_fork 2 >out 2>err &
job=$!
wait_for out '^child ready [0-9]+$' 10
child=$(sed -n 's/^child ready //p' out)
kill -USR1 "$child"
wait_for err "dump ch\\.$child\\.[0-9]+\\.s0\\." 5
ok $? "the child forked from a thread dumps on SIGUSR1, under its own pid"
ok $(ls ch.$child.*.s0.*.heap >/dev/null 2>&1; echo $?) "the dump is there"
kill -USR2 "$child"
wait_for err "sampling paused \\(SIGUSR2\\)" 5
ok $? "and pauses on SIGUSR2: its helper thread works"
wait $job
is $? 0 "then the child ends when its thread does, and the parent with it"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
ok $([ $ms -lt 3500 ]; echo $?) "in the child's own 2 s, not more ($ms ms)"

# The final dump of a process whose main called pthread_exit is written
# by its last thread; /proc/self/maps, main's, reads empty by then.
HEAPPROF_CONF=lg_prof_sample:0,prof_final:true,prof_prefix:pe timeout -s KILL 20 env LD_PRELOAD="$LIB" "$TP/patterns" pthread_exit >out 2>err
dump=$(one_file 'pe.*.f.*.heap')
ok $(sed -n '/^MAPPED_LIBRARIES:/,$p' "$dump" | grep -q "^[0-9a-f]*-[0-9a-f]* .* $TP/patterns\$"; echo $?) \
	"after main's pthread_exit the final dump still lists the mappings"
like "$("$BIN" report --text "$dump" 2>&1)" ' worker_runs$' "and names its functions (worker_runs)"
done_testing
