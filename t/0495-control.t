#!/bin/sh
# heapprof ps, dump, toggle, pause, resume: listing profiled processes and
# asking them for a dump or a change of sampling; refusing processes
# without heapprof, which the signal would kill, and zombies.
. "$(dirname "$0")/lib.sh"
plan 23

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/d "$BIN" run "$TP/idle" 30 3 >out 2>err &
pid=$!
while [ ! -s "run/$pid" ]; do sleep 0.01; done

ps_out=$("$BIN" ps)
like "$ps_out" '^PID +SAMPLING +DUMPS +LIVE +PROGRAM +PREFIX$' "ps: a header"
like "$ps_out" "^$pid +active +0 +[0-9.]+ [KMG]?i?B +$TP/idle +$T_DIR/d\$" "ps lists the process: pid, state, dumps, program, prefix"
# Other tests' processes may be listed too (ps also finds the library in
# /proc/*/maps): ours is one line, every line a pid alone.
q=$("$BIN" ps -q)
like "$q" "^$pid\$" "ps -q lists the process"
unlike "$q" '[^0-9]' "ps -q: just pids"

path=$("$BIN" dump $pid)
is $? 0 "dump: exit 0"
like "$path" "^$T_DIR/d\\.$pid\\.0\\.s0\\.[0-9]{8}T[0-9]{6}Z\\.heap\$" "dump prints the new dump's path"
is "$(jeprof_bytes "$TP/idle" "$path" leak_some)" 3145728 "a complete dump (3 MiB from leak_some)"
like "$(cat err)" "^<heapprof>: dump $path \\(heapprof dump\\): ~3\\.0 MiB live in " \
	"the process's log says who asked for the dump: heapprof dump (not a signal)"
is "$("$BIN" pause $pid)" "$pid: sampling paused" "pause"
is "$("$BIN" pause $pid)" "$pid: sampling already paused" "pause again: nothing to do"
like "$("$BIN" ps)" "^$pid +paused +1 " "ps shows it paused, with one dump"
is "$("$BIN" resume $pid)" "$pid: sampling active" "resume"
is "$("$BIN" toggle $pid)" "$pid: sampling paused" "toggle flips it"
kill -TERM $pid
wait $pid 2>/dev/null

# A process without heapprof: refused, and left alive.
sleep 30 &
victim=$!
# Until it has exec'd, the child is a copy of this shell.
n=0
while [ "$(readlink /proc/$victim/exe)" != "$(command -v sleep)" ] && [ $n -lt 500 ]; do
	sleep 0.01
	n=$((n + 1))
done
"$BIN" dump $victim >out 2>err
is $? 1 "dump refuses a process without heapprof"
like "$(cat err)" "^heapprof: process $victim \\(.*sleep\\) does not have heapprof loaded; not signalling it" "and says why"
ok $(kill -0 $victim 2>/dev/null; echo $?) "which is still alive"
kill $victim
wait $victim 2>/dev/null

# A zombie: a profiled process that exited, whose parent (sleep, which
# never waits) has not reaped it.  It was said not to have heapprof.
sh -c 'HEAPPROF_CONF=prof_prefix:$1/z LD_PRELOAD=$2 "$3/idle" 0 >/dev/null 2>&1 & echo $! >zombie; exec sleep 30' \
	sh "$T_DIR" "$LIB" "$TP" &
parent=$!
n=0
while [ "$(cut -d' ' -f3 "/proc/$(cat zombie 2>/dev/null)/stat" 2>/dev/null)" != Z ] && [ $n -lt 500 ]; do
	sleep 0.01
	n=$((n + 1))
done
zombie=$(cat zombie)
"$BIN" dump $zombie >out 2>err
is $? 1 "dump refuses a zombie"
is "$(cat err)" "heapprof: process $zombie (idle) is a zombie: it has exited, and its parent ($parent) has not reaped it; there is nothing to ask" \
	"and says it is one, and whose"
"$BIN" toggle $zombie >out 2>err
like "$? $(cat err)" "^1 heapprof: process $zombie \\(idle\\) is a zombie: " "so does toggle"
kill $parent
wait $parent 2>/dev/null

"$BIN" dump 999999999 >/dev/null 2>err
is $? 1 "no such process: exit 1"
is "$(cat err)" "heapprof: no process 999999999" "and a message"
"$BIN" dump 12abc >/dev/null 2>&1
is $? 2 "a pid that is no number: usage error"
"$BIN" dump 2>/dev/null
is $? 2 "no pid: usage error"
done_testing
