#!/bin/sh
# Programs that own SIGUSR1 and SIGUSR2 (dd, nginx, many daemons): the
# program's handlers see every signal sent to them, and heapprof dump,
# toggle, pause and resume still work, through the control files and
# heapprof's own real-time signal, which never reaches the program: not
# when it handles SIGUSR1/SIGUSR2 itself, not when every thread blocks
# every signal and one takes them with sigwaitinfo, not when it handles
# every real-time signal too.
. "$(dirname "$0")/lib.sh"
plan 31

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
conf=prof_prefix:$T_DIR/p,lg_prof_sample:0

# wait_for FILE ERE: up to 10 s for a line of FILE to match.
# start MODE: runs sigowner under heapprof, sets $pid once it is ready and
# its state file is published.
start() {
	rm -f out err
	HEAPPROF_CONF=$conf LD_PRELOAD=$LIB "$TP/sigowner" 60 "$1" >out 2>err &
	pid=$!
	wait_for out '^ready' && wait_for "run/$pid" '^signal_control='
}
pending() { sed -n 's/^ShdPnd:[[:space:]]*//p' /proc/$1/status; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# A: its own SIGUSR1 and SIGUSR2 handlers.
start own
wait_for "run/$pid" '^signal_dump=0$'
like "$(cat "run/$pid")" '^signal_dump=0$' "own: the state file says SIGUSR1 is the program's"
like "$(cat "run/$pid")" '^signal_control=[1-9][0-9]*$' "and names heapprof's control signal"
dumps_ok=0 seen_ok=0
t0=$(now_ms)
for i in $(seq 20); do
	kill -USR1 $pid
	wait_for out "^usr1 $i\$" && seen_ok=$((seen_ok + 1))
	path=$(timeout 20 "$BIN" dump $pid) && [ -s "$path" ] && dumps_ok=$((dumps_ok + 1))
done
ms=$(($(now_ms) - t0))
is $seen_ok 20 "own: the program's handler saw each of 20 SIGUSR1"
is $dumps_ok 20 "and each of 20 heapprof dump between them got a dump"
ok $([ $ms -lt 8000 ]; echo $?) "woken by the control signal, not the once-a-second look ($ms ms for 20 rounds)"
is "$(ls p.$pid.*.s*.heap | wc -l)" 20 "20 dump files, no more (SIGUSR1 wrote none)"
is "$(timeout 20 "$BIN" pause $pid)" "$pid: sampling paused" "heapprof pause"
like "$(cat "run/$pid")" '^active=0$' "the state file agrees"
is "$(timeout 20 "$BIN" toggle $pid)" "$pid: sampling active" "heapprof toggle"
is "$(timeout 20 "$BIN" pause $pid)" "$pid: sampling paused" "heapprof pause again"
is "$(timeout 20 "$BIN" resume $pid)" "$pid: sampling active" "heapprof resume"
kill -USR2 $pid
wait_for out '^usr2 1$'
like "$(cat "run/$pid")" '^active=1$' "SIGUSR2 goes to the program's handler, sampling unchanged"
kill -TERM $pid
wait $pid
is $? 0 "own: exits 0"
like "$(cat out)" '^total usr1=20 usr2=1 rt=0 stray=0$' "it saw exactly the signals sent to it"
like "$(cat err)" 'the program installed its own SIGUSR1 handler; the program wins: no dump on SIGUSR1 \(heapprof dump PID still works\)' \
	"the log says SIGUSR1 is the program's"
like "$(cat err)" 'sampling paused \(heapprof pause\)' "and names heapprof pause"
is "$(ls run | grep -c '^ctl\.')" 0 "no control file is left"

# B: dd, which prints its statistics on SIGUSR1.
rm -f out err
HEAPPROF_CONF=$conf LD_PRELOAD=$LIB timeout 60 dd if=/dev/zero of=/dev/null bs=512 2>err &
tpid=$!
n=0
while [ -z "$(pgrep -P $tpid -x dd)" ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
pid=$(pgrep -P $tpid -x dd)
wait_for "run/$pid" '^signal_dump=0$'
stats=0 dumps_ok=0
for i in $(seq 5); do
	kill -USR1 $pid
	# This signal's statistics: the i-th "records in" line (up to 10 s).
	n=0
	while [ "$(grep -c 'records in' err)" -lt $i ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
	stats=$(grep -c 'records in' err)
	path=$(timeout 20 "$BIN" dump $pid) && [ -s "$path" ] && dumps_ok=$((dumps_ok + 1))
done
is $stats 5 "dd printed its statistics for each of 5 SIGUSR1"
is $dumps_ok 5 "and heapprof dump got 5 dumps between them"
kill -TERM $pid
wait $tpid 2>/dev/null
is "$(grep -c 'records in' err)" 5 "dd's statistics: one per SIGUSR1, no more"

# C: every thread blocks every signal; one takes them with sigwaitinfo.
start block
t0=$(now_ms)
path=$(timeout 20 "$BIN" dump $pid)
is $? 0 "block: heapprof dump gets a dump ($(($(now_ms) - t0)) ms, by the once-a-second look)"
ok $([ -s "$path" ]; echo $?) "and the file is there"
is "$(pending $pid)" 0000000000000000 "no signal was sent that would wait for a sigwait"
is "$(timeout 20 "$BIN" pause $pid)" "$pid: sampling paused" "block: heapprof pause"
kill -USR1 $pid
wait_for out '^usr1 1$'
kill -TERM $pid
wait $pid
like "$(cat out)" '^total usr1=1 usr2=0 rt=0 stray=0$' "block: the program took its one SIGUSR1 and nothing else"

# D: its own handlers on every real-time signal, heapprof's control
# signal among them.  Single-threaded and idle, without a helper thread it
# could only answer at its next sampled allocation: so with one.
conf=$conf,helper_thread:start
start rt
wait_for "run/$pid" '^signal_control=0$'
like "$(cat "run/$pid")" '^signal_control=0$' "rt: the program took the control signal; the state file says so"
path=$(timeout 20 "$BIN" dump $pid)
is $? 0 "rt: heapprof dump still gets a dump"
ok $([ -s "$path" ]; echo $?) "and the file is there"
is "$(timeout 20 "$BIN" toggle $pid)" "$pid: sampling paused" "rt: heapprof toggle"
kill -TERM $pid
wait $pid
like "$(cat out)" '^total usr1=0 usr2=0 rt=0 stray=0$' "the program's real-time handlers never ran"
like "$(cat err)" "the program took SIGRTMAX-1, heapprof's control signal; heapprof dump and toggle now answer within a second|the program took SIG.*control signal" \
	"the log says so"
done_testing
