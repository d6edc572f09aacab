#!/bin/sh
# heapprof attach and detach on programs started without heapprof: a
# multi-threaded churn program and python3.  Attached, dump and report
# work as on a preloaded process and name the growing stack; ps says the
# process is attached; detached, it leaves ps and dump; the program's
# output and exit status are those of a run without heapprof.
. "$(dirname "$0")/lib.sh"
plan 32

export HEAPPROF_RUNTIME_DIR=$T_DIR/run


# The bare run, beside: the same output and status are wanted.
("$TP/attachee" 4 4 >bare.out 2>bare.err; echo $? >bare.status.t; mv bare.status.t bare.status) &
bare=$!

("$TP/attachee" 4 4 >att.out 2>att.err; echo $? >att.status.t; mv att.status.t att.status) &
pid=$(ready_pid att.out)
"$BIN" attach "$pid" -c lg_prof_sample:0,prof_prefix:$T_DIR/d >attach.out 2>attach.err
is $? 0 "attach: exit 0"
like "$(cat attach.out)" "^heapprof: attached to process $pid: [0-9]+ GOT entries in [0-9]+ objects routed to heapprof; thread [0-9]+ paused [0-9.]+ ms\$" \
	"attach says what it rewrote and how long the thread was held"
diag "$(cat attach.out)"
is "$(cat attach.err)" "" "and nothing on stderr"
like "$("$BIN" ps)" "^$pid +active +0 .* $TP/attachee +$T_DIR/d +attached [0-9]{8}T[0-9]{6}Z\$" \
	"ps lists it, attached, with the time"
like "$("$BIN" ps --json)" "\"pid\": $pid, .*\"attached\": true" "ps --json: attached"
sleep 1
dump=$("$BIN" dump "$pid")
is $? 0 "dump: exit 0"
like "$dump" "^$T_DIR/d\\.$pid\\.0\\.s0\\..*\\.heap\$" "dump prints the path"
like "$(sed -n 1,8p "$dump")" '^# heapprof attached: [0-9-]+T[0-9:.]+Z: allocations since then only$' \
	"the dump's header says its figures start at the attach"
report=$("$BIN" report "$dump")
like "$(echo "$report" | sed -n 2p)" '^Since heapprof attach at [0-9-]+T[0-9:.]+Z: blocks allocated before it are not counted$' \
	"the report's headline says so too"
like "$(echo "$report" | sed -n 4p)" ' keep_growing$' "the report's top function is the growing stack"
kept=$(jeprof_bytes "$TP/attachee" "$dump" keep_growing)
ok $([ "$kept" -gt 0 ] && [ $((kept % 1024)) -eq 0 ]; echo $?) \
	"jeprof reads it: keep_growing holds whole 1024-byte blocks ($kept bytes)"
is "$("$BIN" pause "$pid")" "$pid: sampling paused" "pause works on it"
is "$("$BIN" resume "$pid")" "$pid: sampling active" "resume too"
"$BIN" detach "$pid" >detach.out 2>detach.err
is $? 0 "detach: exit 0"
like "$(cat detach.out)" "^heapprof: detached from process $pid: [0-9]+ GOT entries restored; thread [0-9]+ paused [0-9.]+ ms\$" \
	"detach says what it restored"
unlike "$("$BIN" ps -q)" "^$pid\$" "detached, it leaves ps"
"$BIN" dump "$pid" >/dev/null 2>&1
is $? 1 "and dump refuses it"
"$BIN" detach "$pid" >/dev/null 2>detach2.err
like "$(cat detach2.err)" "no heapprof attached" "a second detach is refused"
# Attached again: as many entries rewritten as the first time, so detach
# had put every one back (an entry still heapprof's is not counted).
"$BIN" attach "$pid" >attach2.out 2>&1
is "$(sed -n 's/.*: \([0-9]*\) GOT entries in \([0-9]*\) objects.*/\1 \2/p' attach2.out)" \
	"$(sed -n 's/.*: \([0-9]*\) GOT entries in \([0-9]*\) objects.*/\1 \2/p' attach.out)" \
	"attached again: the same GOT entries rewritten, so detach had restored them all"
"$BIN" detach "$pid" >/dev/null 2>&1
wait $bare
while [ ! -e att.status ]; do sleep 0.05; done
is "$(cat att.out)" "$(cat bare.out | sed "s/^ready [0-9]*/ready $pid/")" "the program's output is the bare run's"
is "$(cat att.status)" "$(cat bare.status)" "and its exit status (7)"
is "$(grep -v '^<heapprof>: \(attached:\|dump \|detached:\|sampling \)' att.err)" "" \
	"its stderr has heapprof's attached, dump, sampling and detached lines, nothing else"

# python3: its allocations through libpython's own GOT entries.
cat >grow.py <<'PY'
import sys, time
keep = []
def grow_python_heap():
    keep.append(bytearray(100000))
print("ready", flush=True)
end = time.time() + float(sys.argv[1])
while time.time() < end:
    grow_python_heap()
    time.sleep(0.002)
print("python kept", len(keep) > 0)
PY
(python3 grow.py 3 >py.out 2>py.err; echo $? >py.status.t; mv py.status.t py.status) &
n=0
while ! grep -q '^ready' py.out 2>/dev/null && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
ppid=$(pgrep -n -f 'grow.py 3')
"$BIN" attach "$ppid" -c lg_prof_sample:0,prof_prefix:$T_DIR/py >/dev/null
is $? 0 "python3: attach"
sleep 0.5
pdump=$("$BIN" dump "$ppid")
like "$("$BIN" report --collapsed "$pdump" | sort -t' ' -k2 -n | tail -n 1)" 'bytearray.*_PyObject_Malloc [0-9]+$' \
	"python3: the biggest stack is the bytearrays' (through PyObject_Malloc)"
"$BIN" detach "$ppid" >/dev/null
is $? 0 "python3: detach"
while [ ! -e py.status ]; do sleep 0.05; done
is "$(cat py.out)" "ready
python kept True" "python3: its output"
is "$(cat py.status)" 0 "python3: its exit status"

# A program's own signals (SIGALRM every 300 us, its handler) arriving
# during the calls made on its only thread: 10 cycles, then it ends as
# bare.
("$TP/sigbusy" 4 >s.out 2>s.err; echo $? >s.status.t; mv s.status.t s.status) &
spid=$(ready_pid s.out)
cycles=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$BIN" attach "$spid" >/dev/null 2>>s.cmd && "$BIN" detach "$spid" >/dev/null 2>>s.cmd && cycles=$((cycles + 1))
done
is "$cycles" 10 "a program taking signals throughout: 10 attach and detach cycles"
while [ ! -e s.status ]; do sleep 0.05; done
is "$(cat s.status) $(sed 1d s.out)" "5 done signals" "and it ends with its own status and output"

# Every thread in a futex wait (a condition variable, pthread_join): a
# safe point too, the words being no lock of glibc's.
("$TP/waiters" 4 >w.out 2>w.err; echo $? >w.status.t; mv w.status.t w.status) &
wpid=$(ready_pid w.out)
"$BIN" attach "$wpid" >w.attach 2>&1
is $? 0 "threads all in futex waits: attach"
"$BIN" detach "$wpid" >/dev/null 2>&1
is $? 0 "and detach"
kill -TERM "$wpid"
while [ ! -e w.status ]; do sleep 0.05; done
is "$(cat w.status)" 143 "it lived on until SIGTERM (143, as bare)"

done_testing
