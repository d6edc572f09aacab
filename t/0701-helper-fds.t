#!/bin/sh
# heapprof's descriptors never meet the program's (issue 12, defects 2 and
# 6).  The helper thread sleeps on a futex and looks at profiler.ini with
# stat(2), and libunwind's validation pipe is open only while libunwind
# walks a stack, at the top of the range: so a program starts with only
# its own descriptors, can open as many as bare under a tight limit, gets
# fd 2 back when it starts with fd 2 closed, and can close every
# descriptor (close-from-3, as daemons do; 0 to 2 too) or dup2 over any
# number and keep every byte it sends itself.  At the default rate, in
# exact mode, and in exact mode with every stack walked by libunwind.
. "$(dirname "$0")/lib.sh"
. "$SRC/t/bare.sh"
plan 54

for conf in "" lg_prof_sample:0 lg_prof_sample:0,prof_unwinder:libunwind; do
	rate=${conf:-default rate}
	same_as_bare "the descriptors a program starts with ($rate)" "$TP/patterns" fds
	same_as_bare "close-from-3, then its own pipes, with new threads allocating ($rate)" \
		"$TP/patterns" closefrom
	same_as_bare "dup2 over fds 3 to 20 ($rate)" "$TP/patterns" dup2
	# Every descriptor closed, 0 to 2 too: the report goes to a file.
	run_one bare 0 "$TP/patterns" closeall "$T_DIR/bare.cl"
	run_one pre 1 "$TP/patterns" closeall "$T_DIR/pre.cl"
	is "$(cat pre.st)" "$(cat bare.st)" "every descriptor closed ($rate): exit status as bare"
	is "$(normalize <pre.cl)" "$(normalize <bare.cl)" "every descriptor closed ($rate): its pipes as bare"
	# ulimit -n 5: 0 to 2 and two more.  (The shell itself needs fds
	# above 5 to redirect inside the subshell: redirect outside it.)
	(ulimit -n 5 && MALLOC_CONF=$conf exec "$TP/patterns" nofile) >bare.out 2>bare.err
	(ulimit -n 5 && MALLOC_CONF=$conf LD_PRELOAD=$LIB exec "$TP/patterns" nofile) >pre.out 2>pre.err
	like "$(cat bare.out)" '^opened 2 ' "under ulimit -n 5, bare, the program opens two files ($rate)"
	is "$(cat pre.out)" "$(cat bare.out)" "and as many under the library ($rate)"
	# fd 2 closed at start: it stays the program's to reuse.
	MALLOC_CONF=$conf "$TP/patterns" fd2 >bare.out 2>&-
	MALLOC_CONF=$conf LD_PRELOAD=$LIB "$TP/patterns" fd2 >pre.out 2>&-
	is "$(cat pre.out)" "$(cat bare.out)" "started with fd 2 closed, fd 2 stays closed ($rate)"
done

# With its descriptors closed and reused by the program, heapprof still
# wakes for a signal (no descriptor involved), and the program's pipes
# keep exactly its bytes: no wake-up byte lands in them.
rm -f out err
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:cf timeout -s KILL 20 env LD_PRELOAD="$LIB" "$TP/patterns" closefrom >out 2>err &
job=$!
wait_for out '^ready [0-9]+$' 10
pid=$(sed -n 's/^ready //p' out)
kill -USR1 "$pid"
wait_for err "dump cf\\.$pid\\.[0-9]+\\.s0\\." 5
ok $? "after close-from-3, SIGUSR1 still gets a dump"
wait $job
is $? 0 "the program ends as bare"
like "$(cat out)" '^closefrom: read 4000 of 4000 bytes sent through fds 5,6, 0 not sent$' \
	"and its pipe held exactly its 4000 bytes"
done_testing
