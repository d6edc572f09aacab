#!/bin/sh
# No helper thread a program can see, and requests only heapprof sees
# (issue 18).  A single-threaded program stays single-threaded under the
# library (unshare --user, fork from a signal handler, a siglongjmp out of
# a stack overflow inside malloc: glibc's allocator takes no lock in a
# single-threaded process); heapprof dump,
# pause and resume reach a program with threads through its bell and the
# helper thread, with no signal to any of its threads (no EINTR, nothing
# for a thread waiting in sigtimedwait); the runtime directory is found
# from the process's memory map when the program wrote over its
# environment; a dump that fails says why at once.
. "$(dirname "$0")/lib.sh"
. "$SRC/t/bare.sh"
plan 54

export HEAPPROF_RUNTIME_DIR=$T_DIR/run

for conf in "" lg_prof_sample:0; do
	rate=${conf:-default rate}
	same_as_bare "single-threaded: one thread, glibc's single-threaded mode ($rate)" "$TP/hostsafe" tasks
	same_as_bare "unshare --user in a single-threaded program ($rate)" unshare --user --map-root-user id -u
	same_as_bare "fork from a signal handler, 300 times ($rate)" "$TP/hostsafe" sigfork
	same_as_bare "siglongjmp out of a stack overflow in malloc, 10 times ($rate)" "$TP/hostsafe" overflow 10
done
conf=dump_interval_s:3600
run_one pre 1 "$TP/hostsafe" tasks
is "$(cat pre.out)" "tasks 2 single 0" "a timed dump configured: the helper thread runs from the start"
conf=

# ask TAG CASE CONF: starts hostsafe CASE under the library; asks it for a
# dump, a pause and a resume; waits for it.  TAG.{out,st,dump,ask}
ask() {
	HEAPPROF_CONF=prof_prefix:$T_DIR/d,$3 LD_PRELOAD=$LIB timeout -s KILL 20 \
		"$TP/hostsafe" $2 2 >$1.out 2>$1.err &
	_job=$!
	wait_for $1.out '^ready [0-9]+$' 10
	_pid=$(sed -n 's/^ready //p' $1.out)
	timeout 10 "$BIN" dump $_pid >$1.dump 2>$1.ask
	echo "dump $?" >>$1.ask
	timeout 10 "$BIN" pause $_pid >>$1.ask 2>&1
	timeout 10 "$BIN" resume $_pid >>$1.ask 2>&1
	wait $_job
	echo $? >$1.st
}

ask mt eintr ""
is "$(cat mt.st) $(sed -n 2p mt.out)" "0 eintr none" \
	"threads in nanosleep, poll, sem_timedwait and select: no EINTR from dump, pause, resume"
ok $([ -s "$(cat mt.dump)" ]; echo $?) "and the dump was written ($(cat mt.dump))"
like "$(cat mt.ask)" "sampling paused" "heapprof pause answered"
like "$(cat mt.ask)" "sampling active" "heapprof resume answered"
like "$(cat mt.err)" "\\(heapprof dump\\)" "the log names the dump heapprof dump asked for"

ask st eintr1 helper_thread:start
is "$(cat st.st) $(sed -n 2p st.out)" "0 eintr none" \
	"single-threaded, helper_thread:start: no EINTR in nanosleep"
ok $([ -s "$(cat st.dump)" ]; echo $?) "and the dump was written"

# Without a helper thread, an idle single-threaded program can only be
# woken by a signal (heapprof(7)): the dump is still written.
ask idle eintr1 ""
ok $([ -s "$(cat idle.dump)" ]; echo $?) "single-threaded and idle, no helper thread: heapprof dump still dumps"

# A thread that takes every signal with sigtimedwait is handed none.
ask sw sigwait ""
is "$(grep -c '^got signal' sw.out)" 0 "a thread waiting in sigtimedwait for any signal gets none"
ok $([ -s "$(cat sw.dump)" ]; echo $?) "and the dump was written"

# A process title written over the environment (nginx, redis-server), with
# a runtime directory only the environment named.
export HEAPPROF_RUNTIME_DIR=$T_DIR/elsewhere
ask title title ""
unset HEAPPROF_RUNTIME_DIR
ok $([ -s "$(cat title.dump)" ]; echo $?) \
	"environment written over: heapprof dump finds the runtime directory from the memory map"
unlike "$(cat title.ask)" "publishes no state" "and never says it publishes no state"
export HEAPPROF_RUNTIME_DIR=$T_DIR/run

# RLIMIT_NPROC, which counts threads: a user's program starts as many as
# bare (root is not held to the limit, so the run is nobody's).
chmod 711 "$T_DIR"
mkdir nob && chown 65534:65534 nob
nob() {
	setpriv --reuid=65534 --regid=65534 --clear-groups prlimit --nproc=30 \
		env HEAPPROF_RUNTIME_DIR=$T_DIR/nob/rt "$@"
}
bare=$(nob "$TP/hostsafe" nproc)
pre=$(nob env LD_PRELOAD=$LIB "$TP/hostsafe" nproc 2>nob.err)
like "$bare" "^threads [0-9]+$" "as nobody under RLIMIT_NPROC 30: $bare bare"
is "$pre" "$bare" "and as many under the library, which starts no helper thread there"

# io_uring's kernel workers are tasks of the process that take no signal:
# the exit's leak scan waited its whole timeout (a second) for them.
for a in "" sqpoll; do
	conf=lg_prof_sample:0,prof_leak:true
	run_one pre 1 "$TP/uring" $a
	ms=$(cat pre.ms)
	is "$(cat pre.st)" 0 "io_uring${a:+ with SQPOLL}: the leak check at exit runs, status 0"
	ok $([ "$ms" -lt 700 ]; echo $?) "without waiting for the kernel's workers to stop ($ms ms)"
done
conf=

# A dump that fails says why, at once.
HEAPPROF_CONF=prof_prefix:/proc/nonexistent/d LD_PRELOAD=$LIB timeout -s KILL 20 \
	"$TP/hostsafe" eintr 3 >fail.out 2>fail.err &
job=$!
wait_for fail.out '^ready [0-9]+$' 10
pid=$(sed -n 's/^ready //p' fail.out)
t0=$(date +%s%N)
timeout 20 "$BIN" dump $pid >fail.dump 2>fail.ask
st=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
is "$st" 1 "a dump that cannot be written: heapprof dump fails"
like "$(cat fail.ask)" "could not dump: dump failed .*/proc/nonexistent/d.*" "with the library's reason"
ok $([ $ms -lt 3000 ]; echo $?) "at once ($ms ms), not after its timeout"
wait $job
