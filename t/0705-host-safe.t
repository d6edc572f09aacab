#!/bin/sh
# Safe in every host (issue 18): programs whose threads ask glibc for their
# own stack before they allocate -- every HotSpot thread, every Rust
# std::thread -- run as bare at the default rate, in exact mode and under
# heapprof check.  glibc's pthread_getattr_np allocates while it holds the
# thread's lock; heapprof's first look at a new thread asked for the same
# lock and waited for ever (a hang in exact mode at once, at the default
# rate after a few hundred threads).  Each run is killed after 20 s, so a
# hang fails the run's status instead of hanging the suite.
. "$(dirname "$0")/lib.sh"
. "$SRC/t/bare.sh"
plan 58

# A Rust and a Java program, built with Debian's compilers (make deps).
PATH=/usr/bin:$PATH
rustc -O -o rs_threads "$SRC/t/prog/rs_threads.rs" 2>rustc.err
ok $? "rustc builds rs_threads (Debian's rustc, from make deps)"
javac -d . "$SRC/t/prog/JThreads.java" 2>javac.err
ok $? "javac builds JThreads (Debian's JDK, from make deps)"

for conf in "" lg_prof_sample:0; do
	rate=${conf:-default rate}
	same_as_bare "2,000 C threads asking for their stack first ($rate)" "$TP/hostsafe" getattr 2000
	same_as_bare "the main thread's first call asks for its stack ($rate)" "$TP/hostsafe" getattr_main
	same_as_bare "Rust: 1,000 std::threads ($rate)" ./rs_threads 1000
	same_as_bare "Java: java -version ($rate)" java -version
done
# The JVM's 500 threads, in exact mode only (about a second each way).
conf=lg_prof_sample:0
same_as_bare "Java: 500 threads (exact mode)" java -Xshare:auto -cp . JThreads 500
conf=

# A thread cancelled while it allocates: malloc has no cancellation point,
# but libunwind's walk had (its pipe's read and close); the thread died
# inside malloc holding the pipe's lock.
for conf in lg_prof_sample:0,prof_unwinder:libunwind lg_prof_sample:0,prof_unwinder:check; do
	same_as_bare "pthread_cancel while allocating ($conf)" "$TP/hostsafe" cancel
done
conf=

# heapprof check: the gate's run of each (exact mode and the leak scan).
timeout -s KILL 60 "$BIN" check -- ./rs_threads 2000 >chk.out 2>chk.err
is "$? $(cat chk.out)" "0 threads 2000" "heapprof check on the Rust program: status 0, its output"
timeout -s KILL 60 "$BIN" check -- java -cp . JThreads 300 >chk.out 2>chk.err
is "$? $(cat chk.out)" "0 threads 300" "heapprof check on the Java program: status 0, its output"

# The leak report at exit symbolizes in the process (leak_report, and
# suppressions, which match names and files): libdw, dlopened then,
# allocates megabytes.  From glibc's heap, its first request of 1 KiB
# consolidated every fast-bin chunk the program had freed, and the heap
# grew: perl's 300,000-entry hash spent some 60 ms there.  It now comes
# from heapprof's private heap.  libexitheap.so, preloaded after the
# library, compares glibc's figures at the program's exit() with those
# after heapprof's exit handler; the bare runs show that it sees no
# change when there is none.
gate=lg_prof_sample:0,prof_leak:true,leak_check:reachable,leak_report:true,prof_leak_error:false
heap_at_exit() {
	_name=$1 _want=$2
	shift 2
	timeout -s KILL 60 env "$@" >he.out 2>he.err
	_st=$?
	is "$_st $(grep '^heap at exit' he.out)" "0 heap at exit: as the program left it" "$_name"
	if [ -z "$_want" ]; then
		is "$(cat he.err)" "" "$_name: nothing on standard error"
	elif grep -qF "$_want" he.err; then
		ok 0 "$_name: $_want"
	else
		ok 1 "$_name: $_want"
		diag "$(tail -5 he.err)"
	fi
}
OBS=$TP/libexitheap.so
heap_at_exit "bare, the observer alone: the heap at exit as the program left it" "" \
	LD_PRELOAD="$OBS" "$TP/hostsafe" exitheap
heap_at_exit "the leak report at exit (exact mode, leak_report:true) leaves glibc's heap as the program left it" \
	"in exitheap " MALLOC_CONF=$gate LD_PRELOAD="$LIB $OBS" "$TP/hostsafe" exitheap
printf 'leak:exitheap\n' >eh.supp
heap_at_exit "heapprof check --suppressions (matched in the process): the heap as the program left it" \
	"1        100 exitheap" LD_PRELOAD="$OBS" "$BIN" check --suppressions eh.supp -- "$TP/hostsafe" exitheap
perlhash='my %h; $h{$_} = "x" x 20 for 1..30000'
heap_at_exit "perl, bare, the observer alone" "" LD_PRELOAD="$OBS" perl -e "$perlhash"
heap_at_exit "perl under the leak report at exit: glibc's heap as perl left it (60,000 fast-bin blocks kept)" \
	"SUMMARY: heapprof: " MALLOC_CONF=$gate LD_PRELOAD="$LIB $OBS" perl -e "$perlhash"
