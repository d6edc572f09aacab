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
plan 48

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
