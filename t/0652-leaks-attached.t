#!/bin/sh
# heapprof leaks on a process heapprof attach brought the library into:
# the check covers the blocks allocated since the attach (those from
# before are unknown to heapprof, and taken for roots), and says so.
. "$(dirname "$0")/lib.sh"
plan 6

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
mkdir -p run s
(cd s && "$TP/leaksvc" -b -L 7 >out 2>err; echo $? >status.t; mv status.t status) &
n=0
while [ ! -s s/pid ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
pid=$(cat s/pid)
"$BIN" attach "$pid" -c lg_prof_sample:0 >/dev/null
is $? 0 "attach"
touch s/lose
n=0
while [ ! -e s/lost ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
"$BIN" leaks "$pid" >l.out 2>l.err
is $? 23 "the sessions lost after the attach: 23"
like "$(cat l.out)" "^heapprof was attached at [0-9T:-]+Z: only blocks allocated since are checked$" \
	"the report says what it covers"
like "$(cat l.out)" "^SUMMARY: heapprof: ~?336 byte\\(s\\) leaked in ~?7 allocation\\(s\\)" \
	"exactly the 7 sessions lost since (not the 100 from before)"
like "$(cat l.out)" "^    #0 0x[0-9a-f]+ in lose_session " "named"
touch s/go
n=0
while [ ! -e s/status ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
is "$(cat s/status)" 0 "the process goes on and ends normally"
done_testing
