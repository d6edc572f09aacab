#!/bin/sh
# kill -9 of heapprof attach into a container at each of its steps
# (HEAPPROF_ATTACH_PAUSE holds it there), with a host's dump directory to
# pass: the process is let go, untraced; the next attach removes the
# private directory the killed one left in the container, closes the
# socket or directory it left in the process, and its dumps land in the
# host's directory; the program's output and exit status are its own.
# The load's steps come in a first attach only (each in a container of
# its own); the library loaded, the calls are 1 and 2 heapprof_attach_fd
# (connect, take the directory) and 3 heapprof_attach.  t/container.sh
# builds the containers.
. "$(dirname "$0")/lib.sh"
. "$SRC/t/container.sh"
first="before-stop stopped before-dlopen in-call after-dlopen"
later="before-stop stopped before-call in-call after-call in-call:2 after-call:2 before-call:3 released"
plan $(( $(echo $first | wc -w) * 4 + $(echo $later | wc -w) * 2 + 6))

# start NAME: attachee in a container of its own until NAME's stop file,
# its host pid in $pid.
start() {
	mkdir "$1"
	_root=$(cd "$1" && pwd -P)
	container_root "$_root" full
	(container_run "$_root" /tp/attachee 3 60 /tmp/stop >"$1.out" 2>"$1.err"; echo $? >"$1.status.t"; mv "$1.status.t" "$1.status") &
	pid=$(container_pid "$_root")
	n=0
	while ! grep -q '^ready ' "$1.out" 2>/dev/null && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
}

# kill_at STEP: attach held at STEP, killed there.
kill_at() {
	name=$(echo "$1" | tr : _)
	HEAPPROF_ATTACH_PAUSE=$1 "$BIN" attach "$pid" -c prof_prefix:$T_DIR/d/c >"$name.cmd" 2>"$name.cmderr" &
	cmd=$!
	n=0
	while ! grep -q "paused at $1" "$name.cmderr" 2>/dev/null && kill -0 $cmd 2>/dev/null &&
	      [ $n -lt 3000 ]; do
		sleep 0.01
		n=$((n + 1))
	done
	kill -9 $cmd
	wait $cmd 2>/dev/null
	is "$(grep -c "paused at $1" "$name.cmderr") $(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$pid/status")" "1 0" \
		"$2$1: killed there, the process is let go"
	grep -q "paused at $1" "$name.cmderr" || diag "the command said: '$(cat "$name.cmderr")' after $n waits"
	# Killed once released, it was attached: detached first.
	[ "$1" != released ] || "$BIN" detach "$pid" >/dev/null
	"$BIN" attach "$pid" -c prof_prefix:$T_DIR/d/c >"$name.again" 2>&1 &&
		"$BIN" detach "$pid" >>"$name.again" 2>&1
	like "$(cat "$name.again")" "^heapprof: detached from process $pid" "$2$1: then attach and detach work"
}

# stop NAME: ends NAME's program and checks its end.
stop() {
	touch "/proc/$pid/root/tmp/stop"
	while [ ! -e "$1.status" ]; do sleep 0.05; done
	is "$(cat "$1.status") $(sed 1d "$1.out")" "7 attachee: 3 threads, ok" "$2: the process ends with its own status and output"
}

for step in $first; do
	start "first-$(echo "$step" | tr : _)"
	kill_at "$step" "first attach: "
	is "$(cd "/proc/$pid/root" && find dev/shm tmp -name '.heapprof-attach.*')" "" \
		"first attach: $step: the next attach removed the directory the killed one left"
	stop "first-$(echo "$step" | tr : _)" "first attach: $step"
done

start later
"$BIN" attach "$pid" >/dev/null && "$BIN" detach "$pid" >/dev/null
is "$?" 0 "loaded by a first attach and detach"
for step in $later; do
	kill_at "$step" "loaded: "
done
is "$(cd "/proc/$pid/root" && find dev/shm tmp -name '.heapprof-attach.*')" "" \
	"the private directories killed attaches left were removed by the next"
# (libunwind's validation pipe is not looked at here: t/0803's.)
is "$(ls -l "/proc/$pid/fd" | grep -c "socket:\|$T_DIR/d")" 0 \
	"no socket or directory of heapprof's is left in the process"
"$BIN" attach "$pid" -c lg_prof_sample:0,prof_prefix:$T_DIR/d/c >/dev/null 2>&1
sleep 0.3
dump=$("$BIN" dump "$pid")
like "$dump" "^$T_DIR/d/c\\.1\\." "a last attach's dump lands in the host's directory"
"$BIN" detach "$pid" >/dev/null
stop later "after the kills"
is "$(grep -c 'dlopen\|Segmentation' later.err)" 0 "nothing said about a failed load"

done_testing
