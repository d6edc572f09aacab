#!/bin/sh
# An inherited ignore of SIGUSR1/SIGUSR2 (a shell's trap '' USR1, nohup's
# SIGHUP) stays an ignore: the program sees SIG_IGN, the signal does
# nothing, the program's children inherit SIG_IGN (exec keeps an ignore,
# not a handler), exactly as bare.  heapprof then writes no dump on the
# signal, and heapprof dump still gets one, through the control file.
. "$(dirname "$0")/lib.sh"
plan 14

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
conf=prof_prefix:$T_DIR/p,lg_prof_sample:0

# What the program sees: bare and preloaded, the same lines.
sh -c "trap '' USR1 USR2; exec \"$TP/sigview\" show" >bare.out
sh -c "trap '' USR1 USR2; exec env HEAPPROF_CONF=$conf LD_PRELOAD=$LIB \"$TP/sigview\" show" >pre.out 2>pre.err
like "$(cat bare.out)" '^action 10: SIG_IGN' "bare: SIGUSR1 inherited as ignored"
is "$(diff bare.out pre.out)" "" "preloaded, the program sees the same actions (SIG_IGN for USR1 and USR2)"
is "$(cat pre.err)" "" "and nothing on stderr"

# What its children inherit: a child exec'd without heapprof.
sh -c "trap '' USR1 USR2; exec \"$TP/sigview\" exec env -u LD_PRELOAD \"$TP/sigview\" show" >bare.out
sh -c "trap '' USR1 USR2; exec env HEAPPROF_CONF=$conf LD_PRELOAD=$LIB \"$TP/sigview\" exec env -u LD_PRELOAD \"$TP/sigview\" show" >pre.out 2>pre.err
is "$(diff bare.out pre.out)" "" "a child it execs inherits SIG_IGN, as bare"

# The issue's case: a program exec'd from such a shell, which execs a
# child that is sent SIGUSR1.  Bare it lives; status 0.
run_child() {   # PRELOAD (yes/no): starts the chain, signals the child, prints its status
	if [ "$1" = yes ]; then
		sh -c "trap '' USR1; exec env HEAPPROF_CONF=$conf LD_PRELOAD=$LIB env -u LD_PRELOAD sleep 1" &
	else
		sh -c "trap '' USR1; exec env env -u LD_PRELOAD sleep 1" &
	fi
	cpid=$!
	n=0
	while [ "$(readlink /proc/$cpid/exe)" != "$(readlink -f "$(command -v sleep)")" ] && [ $n -lt 500 ]; do
		sleep 0.01
		n=$((n + 1))
	done
	kill -USR1 $cpid
	wait $cpid
	echo $?
}
is "$(run_child no)" 0 "bare: the child ignores SIGUSR1 and exits 0"
is "$(run_child yes)" 0 "preloaded: the same (it was killed: status 138)"

# The preloaded program itself: SIGUSR1 does nothing, dumps still work.
sh -c "trap '' USR1 USR2; exec env HEAPPROF_CONF=$conf,log_level:debug LD_PRELOAD=$LIB \"$TP/sigowner\" 20 none" >out 2>err &
pid=$!
n=0
while ! grep -q ready out 2>/dev/null && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
while ! grep -q '^signal_control=' "run/$pid" 2>/dev/null && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
like "$(cat "run/$pid")" '^signal_dump=0$' "the state file says SIGUSR1 does not dump"
like "$(cat "run/$pid")" '^signal_toggle=0$' "nor SIGUSR2 toggle"
kill -USR1 $pid
kill -USR2 $pid
sleep 0.3
ok $(kill -0 $pid 2>/dev/null; echo $?) "SIGUSR1 and SIGUSR2 leave it alive"
is "$(ls p.*.heap 2>/dev/null | wc -l)" 0 "and write no dump"
like "$(cat "run/$pid")" '^active=1$' "nor change sampling"
path=$(timeout 20 "$BIN" dump $pid)
like "$path" "^$T_DIR/p\\.$pid\\.0\\.s0\\..*\\.heap\$" "heapprof dump still gets a dump: $path"
kill -TERM $pid
wait $pid
like "$(cat out)" '^total usr1=0 usr2=0 rt=0 stray=0$' "the program saw no signal it did not ask for"
like "$(cat err)" '<heapprof>: SIGUSR1 is ignored \(inherited\) and stays ignored: no dump on SIGUSR1' \
	"the debug log says what became of SIGUSR1"
done_testing
