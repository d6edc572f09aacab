#!/bin/sh
# signal_dump and signal_toggle: a dump within 100 ms of the signal, idle
# or busy; pause and resume; a real-time signal and none; signals whose
# sender or default action matters refused; a storm of 1000 signals; the
# program's own handler wins.
. "$(dirname "$0")/lib.sh"
plan 22

state() { cat "${HEAPPROF_RUNTIME_DIR:-/tmp/heapprof-$(id -u)}/$1" 2>/dev/null; }
# active_is PID N: the state file says active=N within 5 s (the helper
# logs the switch, then publishes the file).  Prints active=...
active_is() {
	_n=0
	while [ "$(state $1 | grep '^active=')" != "active=$2" ] && [ $_n -lt 500 ]; do
		sleep 0.01
		_n=$((_n + 1))
	done
	state $1 | grep '^active='
}
# start PROGRAM ARGS...: runs it under heapprof (conf in $conf), waits for
# "ready", sets $pid.
start() {
	rm -f out err   # a previous run's "ready" must not be mistaken for this one's
	HEAPPROF_CONF=$conf LD_PRELOAD=$LIB "$@" >out 2>err &
	pid=$!
	while ! grep -q ready out 2>/dev/null; do sleep 0.01; done
	# the helper publishes its state once it runs
	while ! state $pid | grep -q '^signal_dump='; do sleep 0.01; done
}
# latency LETTER: signal, wait for the next dump file, print milliseconds.
latency() {
	before=$(ls p.$pid.*.heap 2>/dev/null | wc -l)
	t0=$(date +%s%N)
	kill -USR1 $pid
	while [ "$(ls p.$pid.*.heap 2>/dev/null | wc -l)" -le "$before" ]; do sleep 0.001; done
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}

conf=prof_prefix:p,lg_prof_sample:0
start "$TP/idle" 30 8
best=100000
for i in 1 2 3; do ms=$(latency); [ "$ms" -lt "$best" ] && best=$ms; done
ok $([ "$best" -lt 100 ]; echo $?) "idle process: a dump within 100 ms of SIGUSR1 (best of 3: $best ms)"
dump=$(ls p.$pid.*.s0.*.heap)
like "$dump" "^p\\.$pid\\.0\\.s0\\.[0-9]{8}T[0-9]{6}Z\\.heap\$" "named <prefix>.<pid>.<seq>.s<n>.<UTC>.heap"
is "$(jeprof_bytes "$TP/idle" "$dump" leak_some)" 8388608 "and holds the heap (8 MiB from leak_some)"
like "$(cat err)" "^<heapprof>: dump $dump \\(signal\\): ~8\\.0 MiB live in 9 objects, 2 contexts, first dump\$" \
	"the log names the dump, its trigger and the heap"

kill -USR2 $pid
while ! grep -q 'sampling paused (SIGUSR2)' err; do sleep 0.01; done
is "$(active_is $pid 0)" active=0 "SIGUSR2 pauses sampling, and the log says so"
kill -USR2 $pid
while ! grep -q 'sampling resumed (SIGUSR2)' err; do sleep 0.01; done
is "$(active_is $pid 1)" active=1 "a second SIGUSR2 resumes it"
kill -TERM $pid
wait $pid 2>/dev/null
rm -f p.*.heap

# A busy process: threads allocating without pause.
start "$TP/busy" 30 4
best=100000
for i in 1 2 3; do ms=$(latency); [ "$ms" -lt "$best" ] && best=$ms; done
# (100 ms is the promise for an idle process; a busy one competes with its
# own threads for 2 cores, so only arrival is asserted: within a second.)
ok $([ "$best" -lt 1000 ]; echo $?) "busy process (4 allocating threads): dumps too (best of 3: $best ms)"

# A storm: 1000 signals as fast as kill can send them.  They take 15-30 ms
# to send, less than a dump of the busy process may take to start on 2
# cores: wait (up to 5 s) for the first dump they ask for, then stop it.
for i in $(seq 1000); do kill -USR1 $pid 2>/dev/null; done
i=0
while [ "$(ls p.$pid.*.s*.heap | wc -l)" -lt 4 ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
kill -TERM $pid
wait $pid 2>/dev/null
is $? 143 "after a storm of 1000 SIGUSR1 the process is alive until told to stop"
n=$(ls p.$pid.*.s*.heap | wc -l)
ok $([ "$n" -ge 4 ] && [ "$n" -lt 200 ]; echo $?) "the storm coalesced into $n dumps"
bad=0
for f in p.$pid.*.s*.heap; do
	tail -n 1 "$f" | grep -Eq '^[0-9a-f]+-[0-9a-f]+ ' || bad=$((bad + 1))
	head -n 1 "$f" | grep -q '^heap profile: ' || bad=$((bad + 1))
done
is $bad 0 "every dump of the storm is complete"
is "$(ls -A | grep -c '\.tmp$')" 0 "no temporary file is left"
rm -f p.*.heap

# Other signals, and none.
conf=prof_prefix:p,signal_dump:RTMIN+5,signal_toggle:none
start "$TP/idle" 30 1
kill -s RTMIN+5 $pid
while ! ls p.$pid.*.s0.*.heap >/dev/null 2>&1; do sleep 0.01; done
ok 0 "signal_dump:RTMIN+5 dumps on SIGRTMIN+5"
kill -USR2 $pid
wait $pid 2>/dev/null
is $? 140 "signal_toggle:none leaves SIGUSR2 its default action (terminate)"
rm -f p.*.heap

# A signal whose sender or default action the program relies on is
# refused, with one line naming the key, and the key keeps its default:
# with signal_dump:PIPE, yes | head -1 ended yes with status 1 instead of
# SIGPIPE's 141.
{ HEAPPROF_CONF=signal_dump:PIPE LD_PRELOAD=$LIB yes 2>pipe.err; echo $? >pipe.st; } | head -n 1 >/dev/null
is "$(cat pipe.st)" 141 "signal_dump:PIPE: yes | head -1 still dies of SIGPIPE (141)"
like "$(cat pipe.err)" '^<heapprof>: Refused conf value: signal_dump:PIPE \(HEAPPROF_CONF\): SIGPIPE: the kernel sends it on a write to a closed pipe, which ends the program \(yes \| head -1\); signal_dump takes USR1, USR2, RTMIN\+0 to RTMIN\+[0-9]+, or none$' \
	"one line says why, naming the key and what it takes"
is "$(wc -l <pipe.err)" 1 "and only one"
conf=prof_prefix:p,signal_dump:TERM,signal_toggle:INT
start "$TP/idle" 30 1
is "$(grep -c -e '^<heapprof>: Refused conf value: signal_dump:TERM (HEAPPROF_CONF): SIGTERM: it is how kill, systemd and docker stop the program; ' \
	-e '^<heapprof>: Refused conf value: signal_toggle:INT (HEAPPROF_CONF): SIGINT: the terminal sends it on Ctrl-C, to end the program; ' err)" 2 \
	"signal_dump:TERM and signal_toggle:INT: refused, one line each"
kill -USR1 $pid
i=0
while ! ls p.$pid.*.s0.*.heap >/dev/null 2>&1 && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
ok $([ $i -lt 500 ]; echo $?) "signal_dump keeps its default: SIGUSR1 dumps"
kill -TERM $pid
wait $pid 2>/dev/null
is $? 143 "and SIGTERM still ends the process (143)"
rm -f p.*.heap

# The program's own handler wins, and the log says so.
conf=prof_prefix:p
start "$TP/idle" 30 1 own
kill -USR1 $pid
while ! grep -q 'own handler' out; do sleep 0.01; done
ok 0 "the program's SIGUSR1 handler runs"
# No helper thread in this single-threaded program: heapprof says so when
# it next answers something, here heapprof dump, which still works.
"$BIN" dump $pid >dump.out 2>&1
_n=0; while ! grep -q "the program installed its own SIGUSR1 handler; the program wins: no dump on SIGUSR1" err && [ $_n -lt 200 ]; do sleep 0.05; _n=$((_n + 1)); done; grep -q "the program installed its own SIGUSR1 handler; the program wins" err
ok $? "the log says the program took SIGUSR1 over"
grep -q "the program wins" err || diag "heapprof dump said: $(cat dump.out); the program's log: $(cat err)"
kill -TERM $pid
wait $pid 2>/dev/null
is "$(ls p.*.heap 2>/dev/null | wc -l)" 1 "and no dump was written on it: only heapprof dump's"
done_testing
