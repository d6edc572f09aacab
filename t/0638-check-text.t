#!/bin/sh
# The CI text of the gate: what heapprof check and the library gate write.
# heapprof check writes nothing into the checked tree's standard error
# (the library's warnings go to the run directory's log and are said once
# by check after the run); an unreadable --suppressions file is a usage
# error (2) that leaves no directory behind.  The library gate's own
# report names the program by its full path and gives file:line and the
# functions inlined at each frame, as check's report of the same leak.
# A library-gate run leaves no file in the working directory unless
# prof_prefix or prof_final is given.  A daemon still running when check
# ends is named "still running" and, when it ends, writes no verdict into
# a directory nobody removes.
. "$(dirname "$0")/lib.sh"
plan 26

mkdir tmp
export TMPDIR=$T_DIR/tmp
G=$TP/gate

# ---- nothing in the tree's standard error --------------------------------------
# A threaded program that takes SIGUSR1 (heapprof's dump signal) and the
# real-time signals (the control signal's candidates) and lives over a
# second: the helper thread's once-a-second look used to print "the
# program installed its own SIGUSR1 handler" into its standard error.
cat >owner.c <<'EOF'
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static void on(int s) { (void)s; }
static void *idle(void *a) { usleep(1500000); return a; }
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, idle, NULL);
	signal(SIGUSR1, on);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		signal(s, on);
	pthread_join(t, NULL);
	fputs("owner done\n", stderr);
	return 0;
}
EOF
cc -pthread -o owner owner.c || { echo "Bail out! cannot build owner.c"; exit 1; }
"$BIN" check -- ./owner >out 2>err
is "$?:$(grep -v '^heapprof check: ' err)" "0:owner done" \
	"a program that takes heapprof's signals: its standard error is its own"
unlike "$(cat err)" 'SIGUSR1' "and check does not repeat an info line"

# make -j2 over a second, running bash, python3 and perl.
cat >Makefile <<'EOF'
all: a b
a:
	@sleep 1.2; echo a >&2
b:
	@bash -c 'sleep 1.1; echo b >&2'; python3 -c 'import sys; sys.stderr.write("py\n")'; perl -e 'print STDERR "pl\n"'
EOF
"$BIN" check -- make -j2 >out 2>err
st=$?
is "$st:$(grep -v '^heapprof check: ' err | sort | tr '\n' ' ')" "0:a b pl py " \
	"make -j2 with bash, python3 and perl: nothing but their own lines on standard error"

# The library's warnings: said once by check, after the run, not by every
# process in the tree's standard error.
HEAPPROF_CONF=lg_prof_sampl:0 "$BIN" check -- sh -c "'$G' clean; '$G' clean" >out 2>err
is "$(grep -c 'Invalid conf pair' err)" 1 "a warning of every process is said once"
like "$(cat err)" "^heapprof check: (sh|dash|bash) \\(pid [0-9]+\\) said: Invalid conf pair: lg_prof_sampl:0 \\(HEAPPROF_CONF; did you mean 'lg_prof_sample'\\?\\) \\(and 2 other processes\\)\$" \
	"by check, naming the first process and counting the others"
unlike "$(cat err)" '<heapprof>' "no <heapprof> line reaches the tree's standard error"

# ---- an unreadable --suppressions file -------------------------------------------
"$BIN" check --suppressions "$T_DIR/none.supp" -- "$G" leak >out 2>err
is "$?:$(cat err)" "2:heapprof check: --suppressions: cannot read '$T_DIR/none.supp': No such file or directory" \
	"a missing --suppressions file: exit 2 (a usage error), one line naming it"
is "$(cat out)" "" "nothing run"
mkdir adir
"$BIN" check --suppressions adir -- "$G" leak >out 2>err
is "$?:$(wc -l <err)" "2:1" "a directory: exit 2, one line"
is "$(ls tmp)" "" "no heapprof-check.* directory left behind"

# ---- the library gate's report: full path, file:line, inlined functions ----------
# format_error is static and called once: -O2 inlines it into main.
cat >leaky.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>

static char *format_error(int code)
{
	char *m = malloc(64);
	snprintf(m, 64, "error %d", code);
	return m;
}

int main(int argc, char **argv)
{
	char *e = format_error(argc);
	if (argc > 5)
		puts(e);
	(void)argv;
	return 0;
}
EOF
cc -O2 -g -o leaky leaky.c || { echo "Bail out! cannot build leaky.c"; exit 1; }
is "$(nm leaky | grep -c format_error)" 0 "format_error is inlined into main (no symbol of its own)"
HEAPPROF_CONF=prof_leak_error:true,prof_prefix:$T_DIR/r LD_PRELOAD=$LIB ./leaky >out 2>err
is $? 1 "the library gate fails the leaking program"
sed -n 's/^<heapprof>:     #\([0-9]*\) 0x[0-9a-f]* /#\1 /p' err >lib.frames
like "$(sed -n 1p lib.frames)" "^#0 in format_error $T_DIR/leaky.c:6\$" \
	"frame 0: the inlined function the leak is in, with its file and line"
like "$(sed -n 2p lib.frames)" "^#1 in main $T_DIR/leaky.c:13\$" "frame 1: where it was inlined, in main"
like "$(cat lib.frames)" "in _start \\($T_DIR/leaky\\+0x[0-9a-f]+\\)" \
	"a frame without line information names the program by its full path"
"$BIN" check -- ./leaky >out 2>err
sed -n 's/^    #\([0-9]*\) 0x[0-9a-f]* /#\1 /p' err >check.frames
is "$(cat lib.frames)" "$(cat check.frames)" "the library's frames read as heapprof check's"

# ---- the library gate leaves the working directory alone ---------------------------
mkdir wd
(cd wd && HEAPPROF_CONF=prof_leak_error:true LD_PRELOAD=$LIB ../leaky >out 2>err; echo $? >st)
is "$(cat wd/st):$(ls wd | tr '\n' ' ')" "1:err out st " \
	"a leaking gate run without prof_prefix: status 1, and no dump, verdict or registration left"
like "$(cat wd/err)" '^<heapprof>:     #0 0x[0-9a-f]+ in format_error ' "the report is the detail"
unlike "$(cat wd/err)" 'for leak detail' "no dump is named"
(cd wd && rm -f * && HEAPPROF_CONF=prof_leak_error:true LD_PRELOAD=$LIB "$G" clean >out 2>err; echo $? >st)
is "$(cat wd/st):$(ls wd | tr '\n' ' ')" "0:err out st " "a clean gate run: nothing either"
(cd wd && rm -f * && HEAPPROF_CONF=prof_leak_error:true,prof_prefix:here LD_PRELOAD=$LIB ../leaky >out 2>err)
is "$(cd wd && ls here.*.verdict here.*.l0.*.heap 2>/dev/null | wc -l)" 2 \
	"with prof_prefix given: the verdict file and the leak dump, as before"
like "$(cat wd/err)" "Run .*heapprof report $T_DIR/wd/here\\.[0-9]+\\.[0-9]+\\.l0\\..*\\.heap for leak detail" \
	"and the summary names the dump"

# ---- a daemon still running when check ends ------------------------------------------
# check waits up to 10 s for what the command left running, or until a
# signal: SIGTERM once the command has ended.
rm -rf tmp/* daemon.out
"$BIN" check --json d.json -- sh -c "'$TP/idle' 3 1 >daemon.out & while ! [ -s daemon.out ]; do sleep 0.05; done" \
	>out 2>err &
chk=$!
n=0
while ! [ -s daemon.out ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
sleep 0.5
kill -TERM $chk
wait $chk
is $? 23 "a counted daemon still running when check ends fails the run"
dpid=$(sed -n 's/^ready //p' daemon.out)
like "$(cat err)" "^heapprof check: not checked: idle \\(pid $dpid\\): no leak verdict: still running when heapprof check ended\$" \
	"and is named, still running"
like "$(cat d.json)" '"missing": true, "error": "still running when heapprof check ended"' "in the JSON too"
n=0
while kill -0 "$dpid" 2>/dev/null && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
is "$(ls -A tmp)" "" "once it ends, it writes no verdict into a directory nobody removes"
