#!/bin/sh
# A program under a seccomp allowlist of its own needs (t/prog/sandboxed,
# libseccomp from make deps), in each of its modes: the filter kills or
# returns EPERM, with and without TSYNC, with a second thread, ending with
# exit or _exit, or inherited through exec.  Each runs bare, at the default
# rate, in exact mode and under heapprof check, and must give the bare
# run's status, standard output and standard error (heapprof's own lines
# aside): heapprof's system calls once died of SIGSYS (issue 18).  Every
# run is under timeout -s KILL.
. "$(dirname "$0")/driver.sh"

PROG=$HP_BUILD/t/sandboxed
[ -x "$PROG" ] || { echo "Bail out! $PROG is missing: run make tprogs"; exit 1; }
plan 24

n=0
for mode in "kill" "kill tsync linger" "kill tsync thread" "kill thread _exit" \
	    "errno" "errno tsync thread linger _exit" "kill exec" "errno exec _exit"; do
	name=$(echo "$mode" | tr ' ' '-')
	# shellcheck disable=SC2086
	real_run_all "$name" 60 "$PROG" $mode
	# Its "ready PID" line: the pid differs from run to run.
	for m in $REAL_MODES check; do
		sed -i -E 's/^ready [0-9]+$/ready PID/' "$REAL_OUT/$name.$m.res"
	done
	real_compare "$name" "status, stdout, stderr" "default exact check"
	n=$((n + 1))
done
for m in default exact check; do
	real_fact "$m: heapprof's lines:$(cat "$REAL_OUT"/*."$m".err |
		grep -e '^<heapprof>: ' -e '^heapprof check: ' | sed -E 's/pid [0-9]+/pid N/; s/[0-9]+ bytes/N bytes/' |
		sort | uniq -c | awk '{ $1 = $1; printf " [%s]", $0 }')"
done
real_summary
