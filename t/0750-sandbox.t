#!/bin/sh
# Programs under a seccomp filter (issue 18).  t/prog/sandboxed installs,
# through libseccomp, an allowlist of what it needs itself (write, memory,
# futex, exit), then allocates on and exits; a call outside the list kills
# it (SIGSYS) or fails with EPERM.  Each mode runs bare, under the library
# as configured by default, with prof_leak at the default rate and in
# exact mode, and under heapprof check: the same exit status, output and
# time as bare, never SIGSYS, and the leak summary still printed (write(2)
# is on every list).  Then what the user asks for while it runs: a dump
# refused by the filter is said once; a filter that allows it gets it,
# with whole stacks.  (heapprof(7), SANDBOXES.)
. "$(dirname "$0")/lib.sh"
. "$SRC/t/bare.sh"
plan 160

# Every mode leaks 3 x 100 bytes, 8 MiB, then 3 x 200 bytes: 7 blocks.
EXACT='Leak approximation summary: ~8389508 bytes, ~7 objects, >= 3 contexts$'
# At the default rate the 8 MiB block is sampled but for e^-16; a small
# block sampled too (1 run in a few hundred) counts ~512 KiB more.
SAMPLED='Leak approximation summary: ~[0-9]+ bytes, ~[0-9]+ objects?, >= [0-9]+ contexts?$'

# sandboxed MODE...: the four runs against one bare run, and heapprof check.
sandboxed() {
	_mode="$*"
	conf=
	run_one bare 0 "$TP/sandboxed" "$@"
	[ "$(cat bare.st)" = 0 ] && grep -q '^exiting with' bare.out ||
		{ echo "Bail out! sandboxed $_mode fails bare: $(cat bare.rawerr)"; exit 1; }
	run_one pre 1 "$TP/sandboxed" "$@"
	compare "$_mode, preloaded"
	like "$(cat pre.rawerr)" '^<heapprof>: the program (installs|starts under) a seccomp filter' \
		"$_mode: one line says heapprof knows"
	for conf in prof_leak:true prof_leak:true,lg_prof_sample:0; do
		run_one pre 1 "$TP/sandboxed" "$@"
		compare "$_mode, $conf"
		if [ "$conf" = prof_leak:true ]; then want=$SAMPLED; else want=$EXACT; fi
		bytes=$(sed -n 's/^<heapprof>: Leak approximation summary: ~\([0-9]*\) bytes.*/\1/p' pre.rawerr)
		if grep -Eq "^<heapprof>: $want" pre.rawerr && [ "${bytes:-0}" -ge 8388608 ]; then
			ok 0 "$_mode, $conf: the leak summary, printed sandboxed (~$bytes bytes)"
		else
			ok 1 "$_mode, $conf: the leak summary, printed sandboxed"
			diag "want: $want, at least 8388608 bytes" "in:" "$(cat pre.rawerr)"
		fi
	done
	conf=
	timeout -s KILL 20 "$BIN" check "$TP/sandboxed" "$@" >chk.raw 2>chk.rawerr
	echo $? >chk.st
	is "$(cat chk.st)" "$(cat bare.st)" "$_mode, heapprof check: exit status as bare ($(cat bare.st))"
	is "$(normalize <chk.raw)" "$(cat bare.out)" "$_mode, heapprof check: standard output as bare"
	is "$(grep -v '^heapprof check: ' chk.rawerr)" "$(cat bare.err)" \
		"$_mode, heapprof check: standard error as bare, check's lines aside"
	like "$(cat chk.rawerr)" \
		'^heapprof check: not checked: sandboxed \(pid [0-9]+\): no leak verdict: the program installed a seccomp filter' \
		"$_mode, heapprof check: says why there is no verdict"
}

# 19 tests a mode.
sandboxed kill                            # at exit: the state file, the leak check
sandboxed kill tsync linger               # the helper thread's once-a-second work
sandboxed kill tsync thread               # a thread's first allocation under the filter
sandboxed kill thread _exit               # _exit's leak check
sandboxed errno                           # EPERM: the leak check ran on, blind
sandboxed errno tsync thread linger _exit
sandboxed kill exec                       # inherited through exec: start-up
sandboxed errno exec _exit

# A dump asked for under a filter that refuses it: one line, said once,
# and the program runs on as it would (the helper thread is under the
# filter: TSYNC).
HEAPPROF_CONF=prof_prefix:$T_DIR/refused timeout -s KILL 20 env LD_PRELOAD="$LIB" \
	"$TP/sandboxed" errno tsync linger >ref.out 2>ref.err &
job=$!
wait_for ref.out '^sandboxed' 10
pid=$(sed -n 's/^ready //p' ref.out)
kill -USR1 $pid
sleep 0.3
kill -USR1 $pid
wait $job
is $? 0 "two dumps asked for under an EPERM filter: the program exits 0"
like "$(cat ref.out)" '^exiting with exit\(0\)$' "and runs to its end"
is "$(grep -c 'dump failed' ref.err)" 1 "one line for the two refused dumps"
like "$(cat ref.err)" '^<heapprof>: dump failed \(signal\): .*: Operation not permitted: refused by the program.s seccomp filter; further refusals are not reported' \
	"which says the filter refused it"
ok $(! ls refused.* >/dev/null 2>&1; echo $?) "and no file is left"

# A filter that allows files (a denylist, as container runtimes install):
# the dumps asked for are written, and a thread seen first under the
# filter has its whole stack (no pthread_getattr_np: from the thread
# pointer up).
HEAPPROF_CONF=prof_prefix:$T_DIR/allowed,lg_prof_sample:0 timeout -s KILL 20 env LD_PRELOAD="$LIB" \
	"$TP/sandboxed" allow tsync thread linger >al.out 2>al.err &
job=$!
wait_for al.out '^sandboxed' 10
pid=$(sed -n 's/^ready //p' al.out)
kill -USR1 $pid
sleep 0.5
kill -USR1 $pid
wait $job
is $? 0 "two dumps asked for under a denylist filter: the program exits 0"
is "$(ls allowed.*.heap 2>/dev/null | wc -l)" 2 "both dumps are written"
set -- allowed.*.s1.*.heap
like "$("$BIN" report --collapsed "$1" 2>&1)" '^clone3?;start_thread;worker 4096$' \
	"the thread first seen sandboxed has its whole stack"
done_testing
