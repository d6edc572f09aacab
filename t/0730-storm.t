#!/bin/sh
# A storm: 8 threads allocating without pause, threads starting and
# ending, a fork every 10 ms, and from outside 1000 SIGUSR1 and 1000
# SIGUSR2 (each delivered before the next is sent, so none coalesces in
# the kernel) while heapprof dump asks through the control files.  No
# crash, no deadlock (everything under timeouts), every dump complete and
# readable by heapprof report, the counts consistent: the dumps on disk
# are those the state file and the log count, numbered without a gap,
# none with a negative count; sampling ends as the parity of the SIGUSR2
# sent says.
. "$(dirname "$0")/lib.sh"
plan 18

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
conf=prof_prefix:$T_DIR/s,dump_keep:0

timeout 120 env HEAPPROF_CONF=$conf LD_PRELOAD=$LIB "$TP/storm" 100 >out 2>err &
tpid=$!
n=0
while ! grep -q '^ready' out && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
pid=$(sed -n 's/^ready //p' out)
while ! grep -q '^signal_control=' "run/$pid" 2>/dev/null && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
state() { sed -n "s/^$1=//p" "run/$pid"; }

# heapprof dump during the storm, one after the other.
(
	for i in $(seq 10); do
		p=$(timeout 30 "$BIN" dump $pid 2>>asked.err) && [ -s "$p" ] && echo "$p"
		sleep 0.5
	done >asked.out
) &
askers=$!
# 1000 of each, 4 ms apart: about ten seconds.
t0=$(date +%s%N)
timeout 60 "$TP/sigsend" $pid 1000 4000 10 12 >sent 2>&1
is "$?" 0 "the sender sent every signal (the process stayed up)"
is "$(cat sent)" "sent 10=1000 12=1000
stuck=0" "1000 SIGUSR1 and 1000 SIGUSR2, each delivered before the next"
storm_ms=$((($(date +%s%N) - t0) / 1000000))
wait $askers
is "$(wc -l <asked.out)" 10 "10 heapprof dump during the storm: 10 dumps$(sed 's/^/; /' asked.err | tr '\n' ' ')"

# The last requests are taken: wait until the dump count holds still.
last=-1 n=0
while [ "$(state dumps)" != "$last" ] && [ $n -lt 50 ]; do
	last=$(state dumps)
	sleep 0.3
	n=$((n + 1))
done
is "$(state active)" 1 "after 1000 SIGUSR2 (even) sampling is on"
kill -USR2 $pid
n=0
while [ "$(state active)" != 0 ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n + 1)); done
is "$(state active)" 0 "one more (1001, odd): paused"
written=$(state dumps)
kill -TERM $pid
wait $tpid
is "$?" 0 "the storm ends at SIGTERM with status 0 (no crash, no deadlock)"
like "$(cat out)" '^done: forks=[0-9]+ failed=0 threads=[0-9]+$' "every fork child exited 0"
forks=$(sed -n 's/^done: forks=\([0-9]*\).*/\1/p' out)
threads=$(sed -n 's/.* threads=\([0-9]*\)$/\1/p' out)
# A fork every 10 ms when the loop has the CPU; how many it gets beside 10
# busy threads and the dumps depends on the machine's load, so only
# progress is asserted (a fork that deadlocked would stop the loop, and
# the status above would not be 0): at least 10 children.  The rate is a
# diagnostic.
ok $([ "${forks:-0}" -ge 10 ]; echo $?) \
	"kept forking through the storm ($forks children in $storm_ms ms, $threads short-lived threads)"

# The dumps.
ls s.$pid.*.heap 2>/dev/null | sort -t. -k3,3n >dumps
files=$(wc -l <dumps)
ok $([ "$files" -ge 10 ]; echo $?) "the storm wrote $files dumps"
is "$files" "$written" "as many files as the state file counted"
is "$(grep -c "^<heapprof>: dump $T_DIR/s\\.$pid\\." err)" "$files" "and as the log"
is "$(sed 's/^s\.[0-9]*\.\([0-9]*\)\..*/\1/' dumps | tr '\n' ' ')" "$(seq 0 $((files - 1)) | tr '\n' ' ')" \
	"numbered 0 to $((files - 1)) without a gap"
is "$(ls -A | grep -c '\.tmp')" 0 "no temporary file is left"
# One pass over every file: the header, the section, the last line, the
# signs of the counts (rows "N: B [N: B] @ ...", above the section).
xargs awk '
	function verdict() {
		if (FILENAME_ == "") return
		if (!head) print "header " FILENAME_
		if (maps != 1 || last !~ /^[0-9a-f]+-[0-9a-f]+ /) print "maps " FILENAME_
		if (neg) print "negative " FILENAME_
	}
	FNR == 1 {
		verdict()
		FILENAME_ = FILENAME; maps = 0; neg = 0
		head = $0 ~ /^heap profile: [0-9]+: [0-9]+ \[[0-9]+: [0-9]+\] @ heap_v2\/[0-9]+$/
	}
	/^MAPPED_LIBRARIES:$/ { maps++ }
	!maps && /^ *-?[0-9]+: -?[0-9]+ \[/ && /(^|[ \[])-[0-9]/ { neg = 1 }
	{ last = $0 }
	END { verdict() }' <dumps >checked
is "$(grep -c '^header ' checked)" 0 "every dump has its full header line"
is "$(grep -c '^maps ' checked)" 0 "and its MAPPED_LIBRARIES section, to the last mapping"
is "$(grep -c '^negative ' checked)" 0 "no count in any dump is negative"
# heapprof report reads them all in one run (it names any file it cannot
# read, and writes nothing then).
timeout 120 xargs "$BIN" report --text <dumps >report.out 2>report.err
is "$?:$(cat report.err)" "0:" "heapprof report reads all $files"
unread=$(grep -c . report.err)
unexpected=$(grep -v -E "^<heapprof>: (dump $T_DIR/s\\.$pid\\.|sampling (paused|resumed) \\((SIGUSR2|heapprof pause|heapprof resume)\\)$)" err)
is "$unexpected" "" "the log says nothing else"
diag "signals sent: 1000 SIGUSR1 + 1001 SIGUSR2; heapprof dump: 10 asked, $(wc -l <asked.out) answered;" \
	"dumps written: $files; parsed by heapprof report: $((files - unread)); forks: $forks"
done_testing
