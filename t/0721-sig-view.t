#!/bin/sh
# The program's view of the signals heapprof handles is the bare one:
# sigaction, signal, bsd_signal, sysv_signal, sigset, sigignore and
# siginterrupt return what they would without heapprof (SIG_DFL, not
# heapprof's handler), so a program that saves and restores a handler
# restores SIG_DFL; the program's own handlers run; and once it restores
# SIG_DFL heapprof's handler is back (SIGUSR1 dumps again).
. "$(dirname "$0")/lib.sh"
plan 12

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
conf=prof_prefix:$T_DIR/p

# Python's signal module: save, install, restore (the issue's case).
py='import signal
o = signal.signal(signal.SIGUSR1, lambda *a: None)
signal.signal(signal.SIGUSR1, o)
print(repr(o), repr(signal.getsignal(signal.SIGUSR2)), repr(signal.getsignal(signal.SIGRTMAX - 1)))'
timeout 20 python3 -c "$py" >bare.out 2>bare.err
is "$?:$(cat bare.err)" "0:" "bare: python saves and restores a SIGUSR1 handler"
timeout 20 env HEAPPROF_CONF=$conf LD_PRELOAD=$LIB python3 -c "$py" >pre.out 2>pre.err
is "$?:$(cat pre.err)" "0:" "preloaded: the same, no TypeError"
is "$(cat pre.out)" "$(cat bare.out)" "and it sees the same handlers: $(cat bare.out)"

# Every interface, with the flags and masks glibc reports.
for what in show saverestore; do
	timeout 20 "$TP/sigview" $what >bare.$what 2>&1
	timeout 20 env HEAPPROF_CONF=$conf LD_PRELOAD=$LIB "$TP/sigview" $what >pre.$what 2>pre.err
	is "$?:$(cat pre.err)" "0:" "sigview $what: exits 0, nothing on stderr"
	is "$(diff bare.$what pre.$what)" "" "sigview $what: the same lines as bare"
done
like "$(cat pre.saverestore)" '^own handler ran 1 times$' "the program's handlers run (raise)"

# After a save and restore, SIGUSR1 belongs to heapprof again.
cat >restore.py <<'EOF'
import signal, sys, time
o = signal.signal(signal.SIGUSR1, lambda *a: print("python handler", flush=True))
print("ready", flush=True)
sys.stdin.readline()
signal.signal(signal.SIGUSR1, o)
print("restored", flush=True)
time.sleep(20)
EOF
mkfifo in
env HEAPPROF_CONF=$conf LD_PRELOAD=$LIB python3 restore.py <in >out 2>err &
pid=$!
exec 3>in
n=0
while ! grep -q ready out && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
kill -USR1 $pid
while ! grep -q 'python handler' out && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
like "$(cat out)" '^python handler$' "while python's handler is in place, it gets SIGUSR1"
is "$(ls p.*.heap 2>/dev/null | wc -l)" 0 "and heapprof writes no dump"
echo >&3
while ! grep -q restored out && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
kill -USR1 $pid
while ! ls p.$pid.*.heap >/dev/null 2>&1 && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
ok $([ -e "$(one_file "p.$pid.0.s0.*.heap")" ]; echo $?) "restored to SIG_DFL, SIGUSR1 dumps again"
ok $(kill -0 $pid 2>/dev/null; echo $?) "and python is still running"
exec 3>&-
kill -TERM $pid
wait $pid 2>/dev/null
done_testing
