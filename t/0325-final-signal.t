#!/bin/sh
# A service stopped by SIGTERM (docker stop) or SIGINT (^C) with
# prof_final:true leaves its final dump and still dies by that signal
# (prof_final_signals, on by default); a program with its own handler for
# the signal is untouched; prof_final_signals:false, or no prof_final,
# changes nothing.
. "$(dirname "$0")/lib.sh"
plan 34

# wait_for FILE ERE: up to 10 s for a line of FILE to match.
# stop CONF MODE SIG: runs termed under heapprof (SIGINT at its default
# action: a shell starts background jobs with it ignored), sends SIG once
# it is ready and sets $how to the signal it died by (kill -l) or its exit
# status, $dumps to the number of final dumps left.
stop() {
	rm -f out err p.*
	HEAPPROF_CONF=$1 LD_PRELOAD=$LIB perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
		"$TP/termed" 20 "$2" >out 2>err &
	pid=$!
	wait_for out '^ready$' || diag "termed $2 never got ready"
	kill -"$3" $pid
	wait $pid
	st=$?
	if [ $st -gt 128 ]; then how=$(kill -l $st); else how=$st; fi
	dumps=$(ls p.*.f.*.heap 2>/dev/null | wc -l)
}
conf=prof_prefix:$T_DIR/p,lg_prof_sample:0,prof_final:true

for mode in plain thread; do
	stop "$conf" $mode TERM
	is "$how" TERM "$mode: SIGTERM still kills the program, by SIGTERM"
	is "$dumps" 1 "$mode: it leaves its final dump"
	r=$("$BIN" report p.*.f.*.heap 2>&1)
	like "$r" '^ *3\.0MiB .* keep_me$' "$mode: which holds the program's 3 MiB"
	like "$(cat err)" '^<heapprof>: SIGTERM: the final dump, then the signal.s default action$' \
		"$mode: heapprof says why it dumped"
	unlike "$(cat out)" '^woke$' "$mode: the program never runs on after the signal"
done

stop "$conf" plain INT
is "$how" INT "SIGINT still kills the program, by SIGINT"
is "$dumps" 1 "it leaves its final dump"
like "$("$BIN" report p.*.f.*.heap 2>&1)" '^ *3\.0MiB .* keep_me$' "which holds the program's 3 MiB"

stop "$conf" thread INT
is "$how" INT "with a thread: SIGINT still kills the program, by SIGINT"
is "$dumps" 1 "it leaves its final dump"

# Its handler exits with _exit(7), which writes the final dump as any
# _exit does; heapprof's handler never ran.
for sig in TERM:15 INT:2; do
	stop "$conf" own ${sig%:*}
	is "$how" 7 "own SIG${sig%:*} handler: the program's handler runs (its exit status)"
	like "$(cat out)" "^handled SIG${sig#*:}\$" "own SIG${sig%:*} handler: it saw the signal"
	unlike "$(cat err)" 'SIG[A-Z]+: the final dump' "own SIG${sig%:*} handler: heapprof's never ran"
done

stop "$conf,prof_final_signals:false" plain TERM
is "$how" TERM "prof_final_signals:false: SIGTERM kills"
is "$dumps" 0 "prof_final_signals:false: no final dump"
stop "$conf,prof_final_signals:false" thread INT
is "$how" INT "prof_final_signals:false, with a thread: SIGINT kills"
is "$dumps" 0 "prof_final_signals:false, with a thread: no final dump"

stop prof_prefix:$T_DIR/p,lg_prof_sample:0 plain TERM
is "$how" TERM "no prof_final: SIGTERM kills"
is "$dumps" 0 "no prof_final: no final dump"
stop prof_prefix:$T_DIR/p,lg_prof_sample:0 thread INT
is "$how" INT "no prof_final, with a thread: SIGINT kills"
is "$dumps" 0 "no prof_final, with a thread: no final dump"

# Under a seccomp allowlist that refuses the rest (EPERM): SIGTERM kills
# as it would bare, and no dump is tried (the handler was given back
# before the filter went in: under it, the calls that let the signal kill
# would be refused).
rm -f p.*
HEAPPROF_CONF=$conf timeout -s KILL 20 env LD_PRELOAD="$LIB" "$TP/sandboxed" errno tsync linger >sb.out 2>sb.err &
job=$!
wait_for sb.out '^sandboxed'
kill -TERM "$(sed -n 's/^ready //p' sb.out)"
wait $job
st=$?
is "$(kill -l $st)" TERM "sandboxed: SIGTERM kills the program, by SIGTERM"
is "$(ls p.*.f.*.heap 2>/dev/null | wc -l)" 0 "sandboxed: no final dump"

# Process 1 of a PID namespace (a container's entrypoint without --init):
# the kernel spares it SIGTERM at SIG_DFL, so the signal does nothing,
# bare and under heapprof: no dump, no call of the program's cut short.
rm -f p.* out err
HEAPPROF_CONF=$conf LD_PRELOAD=$LIB unshare --user --map-root-user --pid --fork \
	"$TP/termed" 20 thread >out 2>err &
job=$!
wait_for out '^ready$' || diag "termed as process 1 never got ready"
one=$(pgrep -P $job)
kill -TERM $one
sleep 0.5
ok $(kill -0 $one 2>/dev/null; echo $?) "process 1: SIGTERM does nothing, as bare"
kill -KILL $one
wait $job
unlike "$(cat out)" '^woke$' "process 1: no call of the program's cut short"
unlike "$(cat err)" 'SIGTERM: the final dump' "process 1: no final dump on the signal"
