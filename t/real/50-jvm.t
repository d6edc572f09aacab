#!/bin/sh
# A JVM (Debian's default-jdk-headless, from make deps): java -version, and
# t/prog/JThreads.java starting REAL_JVM_THREADS threads (default 5,000)
# one after another, each allocating -- every HotSpot thread asks glibc
# for its own stack before it allocates, where heapprof once deadlocked
# (issue 18).  Each runs bare, at the default rate, in exact mode and
# under heapprof check, and must give the bare run's status, standard
# output and standard error (heapprof's own lines aside).  The JVM, under
# /usr/lib/jvm, is not a process heapprof check counts: its status is the
# program's, and the check shows the gate runs a JVM to its end.
#
# Every run is under timeout -s KILL (REAL_JVM_TIMEOUT seconds, default
# 300; the whole process group goes): a hang is a status of 137 that
# differs from bare, never a suite that hangs.
. "$(dirname "$0")/driver.sh"

JAVA=/usr/bin/java
JAVAC=/usr/bin/javac
[ -x "$JAVA" ] && [ -x "$JAVAC" ] ||
	{ echo "Bail out! $JAVA or $JAVAC is missing: run make deps"; exit 1; }
NT=${REAL_JVM_THREADS:-5000}
TMO=${REAL_JVM_TIMEOUT:-300}
plan 9

mkdir -p "$T_DIR/classes"
"$JAVAC" -d "$T_DIR/classes" "$SRC/t/prog/JThreads.java" 2>"$REAL_OUT/javac.err"
ok $? "javac builds t/prog/JThreads.java"


real_run_all java-version $TMO "$JAVA" -version
real_run_all jthreads-$NT $TMO "$JAVA" -cp "$T_DIR/classes" JThreads "$NT"

# The bare runs themselves: what the others are held to.
like "$(cat "$REAL_OUT/java-version.bare.rc") $(cat "$REAL_OUT/java-version.bare.err")" \
	'^0 openjdk version' "bare: java -version exits 0 and names OpenJDK"
is "$(cat "$REAL_OUT/jthreads-$NT.bare.rc") $(cat "$REAL_OUT/jthreads-$NT.bare.out")" \
	"0 threads $NT" "bare: JThreads exits 0 after $NT threads"

real_compare java-version "status, stdout, stderr" "default exact check"
real_compare jthreads-$NT "status, stdout ('threads $NT'), stderr" "default exact check"

real_fact "java: $(head -n 1 "$REAL_OUT/java-version.bare.err"); JThreads: $NT threads per run"
for m in default exact check; do
	real_fact "$m: statuses java -version $(cat "$REAL_OUT/java-version.$m.rc"), JThreads" \
		"$(cat "$REAL_OUT/jthreads-$NT.$m.rc"); heapprof's lines:$(cat "$REAL_OUT"/*."$m".err |
		grep -e '^<heapprof>: ' -e '^heapprof check: ' | sed -E 's/pid [0-9]+/pid N/' |
		sort | uniq -c | awk '{ $1 = $1; printf " [%s]", $0 }')"
done
real_summary
done_testing
