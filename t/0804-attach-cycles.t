#!/bin/sh
# Attach and detach again and again (100 times; HP_ATTACH_CYCLES) on an
# 8-thread program that churns the heap, a dump in every attached spell:
# no crash, no hang, no corrupted block, the program's own output and
# exit status.  The pause of the borrowed thread is printed (diag), not
# asserted: timings are the benchmarks' business.
. "$(dirname "$0")/lib.sh"
plan 7

cycles=${HP_ATTACH_CYCLES:-100}
export HEAPPROF_RUNTIME_DIR=$T_DIR/run
("$TP/attachee" 8 600 stop >out 2>err; echo $? >status.t; mv status.t status) &
n=0
while ! grep -q '^ready ' out 2>/dev/null && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
pid=$(sed -n 's/^ready //p' out)
# Its descriptors, by number and target (libunwind's validation pipe must
# not outlive a detach: heapprof's walks end before the GOT is restored).
fds() { for f in /proc/"$pid"/fd/*; do echo "${f##*/} $(readlink "$f")"; done | sort -n; }
fds >fds.before

fail=0 dumps=0 i=0
: >pauses
while [ $i -lt "$cycles" ]; do
	i=$((i + 1))
	if ! "$BIN" attach "$pid" -c prof_prefix:$T_DIR/d,dump_keep:3 >a.out 2>a.err; then
		fail=$((fail + 1))
		diag "cycle $i: attach: $(cat a.err)"
		kill -0 "$pid" 2>/dev/null || break
		continue
	fi
	sed -n 's/.* paused \([0-9.]*\) ms$/\1/p' a.out >>pauses
	if [ $((i % 4)) -eq 0 ] && "$BIN" dump "$pid" >/dev/null 2>d.err; then
		dumps=$((dumps + 1))
	fi
	if ! "$BIN" detach "$pid" >a.out 2>a.err; then
		fail=$((fail + 1))
		diag "cycle $i: detach: $(cat a.err)"
		kill -0 "$pid" 2>/dev/null || break
	fi
	sed -n 's/.* paused \([0-9.]*\) ms$/\1/p' a.out >>pauses
done
fds >fds.after
is "$(diff fds.before fds.after)" "" "after the last detach, the program holds the descriptors it held before the first attach"
alive=1
kill -0 "$pid" 2>/dev/null && alive=0
ok $alive "the process lives through $i cycles"
is "$fail" 0 "every attach and detach succeeded"
is "$dumps" $((cycles / 4)) "every dump asked for was written"
sort -n pauses | awk '{ v[NR] = $1 } END { printf "# pause of the borrowed thread over %d calls: median %.1f ms, 90th %.1f ms, max %.1f ms\n", NR, v[int((NR + 1) / 2)], v[int(NR * 0.9)], v[NR] }'
touch stop
n=0
while [ ! -e status ] && [ $n -lt 1000 ]; do sleep 0.05; n=$((n + 1)); done
is "$(cat status)" 7 "the program ends with its own status (7)"
is "$(sed 1d out)" "attachee: 8 threads, ok" "and its own output: every kept block intact"
is "$(grep -v '^<heapprof>: \(attached:\|detached:\|dump \)' err)" "" "nothing on its stderr but heapprof's own lines"

done_testing
