#!/bin/sh
# kill -9 of heapprof attach (or detach) at a random moment, HP_ATTACH_KILLS
# times (default 20; make it 100 by hand): the process lives on and ends
# with its own output and status every time.  The moments are spread
# over the command's whole run, 0 to 40 ms after it starts.
. "$(dirname "$0")/lib.sh"
kills=${HP_ATTACH_KILLS:-20}
plan 3

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
bad=0 lived=0 i=0
while [ $i -lt "$kills" ]; do
	i=$((i + 1))
	rm -f out status
	("$TP/attachee" 3 1.5 >out 2>err; echo $? >status.t; mv status.t status) &
	n=0
	while ! grep -q '^ready ' out 2>/dev/null && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
	pid=$(sed -n 's/^ready //p' out)
	# Every other run a detach is killed, after an attach that was not.
	if [ $((i % 2)) -eq 0 ]; then
		"$BIN" attach "$pid" >/dev/null 2>&1
		"$BIN" detach "$pid" >/dev/null 2>&1 &
	else
		"$BIN" attach "$pid" >/dev/null 2>&1 &
	fi
	cmd=$!
	# 0 to 40 ms: awk's rand, seeded with the run's number.
	sleep "$(awk -v s=$i 'BEGIN { srand(s); printf "%.3f", rand() * 0.04 }')"
	kill -9 $cmd 2>/dev/null
	wait $cmd 2>/dev/null
	kill -0 "$pid" 2>/dev/null && lived=$((lived + 1))
	while [ ! -e status ]; do sleep 0.05; done
	if [ "$(cat status)" != 7 ] || [ "$(sed 1d out)" != "attachee: 3 threads, ok" ]; then
		bad=$((bad + 1))
		diag "run $i: status $(cat status), output $(sed 1d out)"
	fi
done
is "$lived" "$kills" "the process was alive after each of the $kills kills"
is "$bad" 0 "and ended with its own status and output every time"
ok $([ "$(grep -c 'Segmentation\|Aborted' err)" -eq 0 ]; echo $?) "no crash message"

done_testing
