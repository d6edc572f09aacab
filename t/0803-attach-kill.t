#!/bin/sh
# kill -9 of heapprof attach at each of its steps (HEAPPROF_ATTACH_PAUSE
# holds it there): the process lives on and ends as a bare run does, its
# output and exit status its own.  Killed during a call, the thread
# finishes the call and restores itself (the signal frame under it);
# killed between dlopen and heapprof_attach, the library stays loaded,
# inert, and a later attach goes on from there.  A whole attach leaves
# no descriptor of heapprof's in the process.
. "$(dirname "$0")/lib.sh"
steps="before-stop stopped before-dlopen before-call in-call after-call after-dlopen before-call:2 in-call:2 after-call:2 released"
nsteps=$(echo $steps | wc -w)
plan $((nsteps * 3 + 4))

export HEAPPROF_RUNTIME_DIR=$T_DIR/run

# start NAME: attachee with 3 threads for 2 s, its pid in $pid.
start() {
	("$TP/attachee" 3 2 >"$1.out" 2>"$1.err"; echo $? >"$1.status.t"; mv "$1.status.t" "$1.status") &
	n=0
	while ! grep -q '^ready ' "$1.out" 2>/dev/null && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
	pid=$(sed -n 's/^ready //p' "$1.out")
}

for step in $steps; do
	name=$(echo "$step" | tr : _)
	start "$name"
	HEAPPROF_ATTACH_PAUSE=$step "$BIN" attach "$pid" -c prof_prefix:$T_DIR/d >"$name.cmd" 2>"$name.cmderr" &
	cmd=$!
	n=0
	while ! grep -q "paused at $step" "$name.cmderr" 2>/dev/null && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
	like "$(cat "$name.cmderr")" "^heapprof: paused at $step\$" "$step: the command waits there"
	kill -9 $cmd
	wait $cmd 2>/dev/null
	while [ ! -e "$name.status" ]; do sleep 0.05; done
	is "$(cat "$name.status")" 7 "$step: killed there, the process ends with its own status"
	is "$(sed 1d "$name.out")" "attachee: 3 threads, ok" "$step: and its own output"
done

# Killed after dlopen, before heapprof_attach: loaded, inert; attach
# again takes it from there.
start again
HEAPPROF_ATTACH_PAUSE=after-dlopen "$BIN" attach "$pid" 2>again.cmderr &
cmd=$!
while ! grep -q "paused at" again.cmderr 2>/dev/null; do sleep 0.01; done
kill -9 $cmd
wait $cmd 2>/dev/null
fds=$(ls /proc/$pid/fd | sort)
"$BIN" attach "$pid" -c prof_prefix:$T_DIR/d >again.cmd 2>&1
like "$(cat again.cmd)" "^heapprof: attached to process $pid: " "attach after a killed one: the library already loaded is used"
# A descriptor left for good stays; one in use for a moment (libunwind's
# validation pipe, held while a walk runs) goes: up to 3 s for that.
n=0
while [ "$(ls /proc/$pid/fd | sort)" != "$fds" ] && [ $n -lt 30 ]; do sleep 0.1; n=$((n + 1)); done
is "$(ls /proc/$pid/fd | sort)" "$fds" "an attach leaves no descriptor of heapprof's in the process"
[ "$(ls /proc/$pid/fd | sort)" = "$fds" ] || diag "before: $(echo $fds); now: $(ls -l /proc/$pid/fd | tail -n +2)"
"$BIN" detach "$pid" >/dev/null
while [ ! -e again.status ]; do sleep 0.05; done
is "$(cat again.status)" 7 "and the process ends with its own status"
is "$(grep -c 'dlopen\|Segmentation' again.err)" 0 "nothing said about a failed load"

done_testing
