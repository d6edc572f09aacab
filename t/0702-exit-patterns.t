#!/bin/sh
# Threads and exit, every pattern (issue 12): each run bare and under the
# library, at the default rate and in exact mode, with the same exit
# status, output and time.  exit and _exit from a thread other than main,
# _exit from main while a thread runs, exec from a thread, vfork + exec,
# daemon(), clone(2) without CLONE_THREAD (returning, or calling exit),
# and a program that blocks every signal in every thread (which heapprof
# dump still dumps).  (pthread_exit from main and fork from a thread:
# t/0700; descriptors closed, reused and counted: t/0701; setuid and
# chroot: t/0703.)
. "$(dirname "$0")/lib.sh"
. "$SRC/t/bare.sh"
plan 83

# daemon_run TAG PRELOAD: the parent returns at once; the daemon writes
# on to TAG.raw.  Waits for the daemon to be gone; TAG.ms runs until then.
daemon_run() {
	_t0=$(date +%s%N)
	run_one "$1" "$2" "$TP/patterns" daemon
	wait_for "$1.raw" '^daemon [0-9]+$' 10
	_d=$(sed -n 's/^daemon //p' "$1.raw")
	_n=0
	while kill -0 "$_d" 2>/dev/null && [ $_n -lt 1000 ]; do sleep 0.01; _n=$((_n + 1)); done
	echo $(( ($(date +%s%N) - _t0) / 1000000 )) >"$1.ms"
	normalize <"$1.raw" >"$1.out"
}

# blocked_run TAG PRELOAD: every signal blocked in every thread; SIGTERM,
# SIGUSR1 and SIGUSR2 sent to the process stay pending, as bare.
blocked_run() {
	rm -f "$1.raw"
	_t0=$(date +%s%N)
	if [ "$2" = 1 ]; then
		MALLOC_CONF=$conf,prof_prefix:$1 timeout -s KILL 20 env LD_PRELOAD="$LIB" "$TP/patterns" blockall 1 >"$1.raw" 2>"$1.rawerr" &
	else
		MALLOC_CONF=$conf timeout -s KILL 20 "$TP/patterns" blockall 1 >"$1.raw" 2>"$1.rawerr" &
	fi
	_job=$!
	wait_for "$1.raw" '^ready [0-9]+$' 10
	_pid=$(sed -n 's/^ready //p' "$1.raw")
	kill -TERM "$_pid"
	kill -USR1 "$_pid"
	kill -USR2 "$_pid"
	wait $_job 2>/dev/null
	echo $? >"$1.st"
	echo $(( ($(date +%s%N) - _t0) / 1000000 )) >"$1.ms"
	normalize <"$1.raw" >"$1.out"
	grep -v '^<heapprof>: ' "$1.rawerr" >"$1.err"
}

for conf in "" lg_prof_sample:0; do
	rate=${conf:-default rate}
	same_as_bare "exit(3) from a thread other than main ($rate)" "$TP/patterns" thread_exit
	same_as_bare "_exit(5) from a thread other than main ($rate)" "$TP/patterns" thread__exit
	same_as_bare "_exit(4) from main while a thread sleeps ($rate)" "$TP/patterns" main__exit
	same_as_bare "exec from a thread other than main ($rate)" "$TP/patterns" thread_exec
	same_as_bare "vfork, then exec in the child ($rate)" "$TP/patterns" vfork_exec
	same_as_bare "clone(2) without CLONE_THREAD, the child returns ($rate)" "$TP/patterns" clone
	same_as_bare "clone(2) without CLONE_THREAD, the child calls exit ($rate)" "$TP/patterns" clone_exit
	# For 1.5 s: across the helper thread's rewrite of the state file,
	# whose lock a child would copy held (it spun in its exit handler).
	same_as_bare "clone(2) children calling exit one after the other for 1.5 s ($rate)" \
		"$TP/patterns" clone_storm

	daemon_run bare 0
	daemon_run pre 1
	is "$(cat pre.st)" "$(cat bare.st)" "daemon(): the parent's status as bare ($rate)"
	is "$(cat pre.out)" "$(cat bare.out)" "daemon(): the daemon's output as bare ($rate)"
	ok $([ "$(cat pre.ms)" -le $(( $(cat bare.ms) + 1000 )) ]; echo $?) \
		"daemon(): the daemon ends as quickly as bare ($(cat pre.ms) ms; bare $(cat bare.ms) ms)"

	blocked_run bare 0
	blocked_run pre 1
	compare "every signal blocked in every thread; TERM, USR1 and USR2 sent ($rate)"
	# What happens: the dump signal stays pending like the others (the
	# helper thread blocks every signal too), so no dump; nothing else
	# changes.  heapprof dump (below), prof_final, the API or a program
	# that unblocks it later still dump.
	ok $(! ls pre.*.heap >/dev/null 2>&1; echo $?) "and no dump: SIGUSR1 stayed pending, as the program had it ($rate)"
done

# Every signal blocked everywhere, and still dumpable: heapprof dump's
# control file is found at the helper thread's once-a-second look.
export HEAPPROF_RUNTIME_DIR=$T_DIR/run
rm -f bd.raw
HEAPPROF_CONF=prof_prefix:$T_DIR/bd timeout -s KILL 20 env LD_PRELOAD="$LIB" "$TP/patterns" blockall 4 >bd.raw 2>bd.err &
job=$!
wait_for bd.raw '^ready [0-9]+$' 10
pid=$(sed -n 's/^ready //p' bd.raw)
wait_for "run/$pid" '^signal_control=' 5
path=$(timeout 10 "$BIN" dump $pid 2>dump.err)
ok $([ -s "$path" ]; echo $?) "heapprof dump still dumps a process that blocks every signal$(sed 's/^/: /' dump.err)"
like "$path" "^$T_DIR/bd\.$pid\.0\.s0\." "its first dump, under its pid"
wait $job
is $? 0 "and it ends as bare"
done_testing
