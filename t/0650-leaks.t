#!/bin/sh
# heapprof leaks PID: a leak check of a running service (t/prog/leaksvc:
# one request path loses sessions, the other fills a bounded cache).  The
# check names the first and never the second, exactly in exact mode and
# within the sampling bound at the default rate; the service runs on with
# its output unchanged; 23 on leaks, 0 without; --confirm, --json, the
# threads that do not stop, the API, the interval trigger, bad arguments.
. "$(dirname "$0")/lib.sh"
plan 61

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
mkdir -p run
SVC=$TP/leaksvc

# start_svc CONF ARGS...: the service, preloaded with CONF, in ./s (its
# stdout, stderr and exit status there); waits until it is ready.
start_svc() {
	conf=$1
	shift
	rm -rf s
	mkdir s
	(cd s && LD_PRELOAD=$LIB HEAPPROF_CONF=$conf "$SVC" "$@" >out 2>err; echo $? >status.t; mv status.t status) &
	n=0
	while [ ! -s s/pid ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
	pid=$(cat s/pid)
}
stop_svc() {
	touch s/go
	n=0
	while [ ! -s s/status ] && [ $n -lt 3000 ]; do sleep 0.01; n=$((n + 1)); done
	[ -s s/status ] || diag "the service did not end within 30 s of ./go"
}

# The bare run's output, for comparison.
mkdir bare
(cd bare && touch go && "$SVC" -b -y >out 2>err; echo $? >status.t; mv status.t status)

# ---- exact mode, 20 runs ------------------------------------------------
named=0 cache=0 exact=0 st23=0 same=0
for i in $(seq 1 20); do
	start_svc lg_prof_sample:0 -b -y
	"$BIN" leaks "$pid" >leaks.out 2>leaks.err
	[ $? -eq 23 ] && st23=$((st23 + 1))
	grep -q '^    #0 0x[0-9a-f]* in lose_session .*leaksvc.c:[0-9]*$' leaks.out && named=$((named + 1))
	grep -q 'cache_put' leaks.out && cache=$((cache + 1))
	grep -q '^SUMMARY: heapprof: 4800 byte(s) leaked in 100 allocation(s)\.$' leaks.out && exact=$((exact + 1))
	[ $i -eq 1 ] && cp leaks.out first.out
	stop_svc
	if cmp -s s/out bare/out && [ "$(cat s/status)" = 0 ] && [ ! -s s/err ]; then
		same=$((same + 1))
	else
		diag "run $i: status $(cat s/status 2>&1); stderr: $(head -c 2000 s/err); stdout: $(diff s/out bare/out | head -20)"
	fi
done
is "$st23" 20 "exact mode: heapprof leaks exits 23 in each of 20 runs"
is "$named" 20 "it names the lost sessions' path (lose_session, with file:line) every time"
is "$cache" 0 "and never the bounded cache's (cache_put)"
is "$exact" 20 "exactly 4800 bytes in 100 allocations, every time"
is "$same" 20 "the service's output, standard error and exit status are the bare run's"
like "$(sed -n 1p first.out)" "^heapprof leaks: .*/leaksvc \\(pid [0-9]+\\): " "the report names the process"
like "$(sed -n 2p first.out)" "^leak check 1 of the running process: its threads were stopped for [0-9]+\\.[0-9]{3} ms$" \
	"and says how long its threads were stopped"
like "$(cat first.out)" "^Direct leak of 4800 byte\\(s\\) in 100 object\\(s\\) allocated from:$" \
	"in LeakSanitizer's shape"
ok "$([ ! -e "run/leaks.$pid" ]; echo $?)" "the verdict file is removed when the process exits"

# ---- a clean service: 0 ---------------------------------------------------
start_svc lg_prof_sample:0,helper_thread:start -n 0
"$BIN" leaks "$pid" >clean.out 2>clean.err
is $? 0 "a service that loses nothing: exit status 0"
like "$(cat clean.out)" "^no leaks: every block the program holds is reachable$" "and says no leaks"
perm=$(stat -c %a "run/leaks.$pid")
is "$perm" 600 "the verdict file is mode 0600"
like "$(sed -n 1p "run/leaks.$pid")" "^heapprof-verdict 1$" "in the verdict layout"
stop_svc

# ---- several checks, the process unchanged ---------------------------------
start_svc lg_prof_sample:0,prof_leak:true -b
for k in 1 2 3; do "$BIN" leaks "$pid" >multi.out; done
is $? 23 "a third check of the same process"
like "$(sed -n 2p multi.out)" "^leak check 3 " "is numbered 3"
like "$(cat multi.out)" "^SUMMARY: heapprof: 4800 byte\\(s\\) leaked in 100 allocation\\(s\\)\\.$" "and finds the same"
is "$(grep -c '^block ' "run/leaks.$pid")" 0 "a plain check's verdict lists no blocks"
stop_svc
is "$(cat s/status)" 0 "the exit status stays the program's"
[ "$(cat s/status)" = 0 ] || diag "its stderr: $(cat s/err)"
like "$(cat s/err)" "^<heapprof>: SUMMARY: heapprof: 4800 byte\\(s\\) leaked in 100 allocation\\(s\\)\\.$" \
	"and the exit's own leak check agrees"

# ---- leak_suppressions ------------------------------------------------------
printf 'leak:lose_session\nnot a rule\n' >supp
start_svc lg_prof_sample:0,leak_suppressions:$T_DIR/supp -b
"$BIN" leaks --json "$pid" >supp.json
is $? 0 "a leak that leak_suppressions covers: exit 0"
is "$(python3 -c 'import json; d = json.load(open("supp.json")); print(d["leaked_bytes"], d["suppressed_bytes"], d["suppressed_objects"])')" \
	"0 4800 100" "and counted as suppressed"
stop_svc
is "$(cat s/err)" "" "the file's bad line is not warned about in the process (the check prints nothing)"

# ---- threads: blocked in a system call, busy, one that cannot stop ---------
start_svc lg_prof_sample:0 -b -y -u
"$BIN" leaks "$pid" >thr.out
is $? 23 "with a blocked, a busy and an unstoppable thread: the leak is found"
like "$(cat thr.out)" "^note: thread [0-9]+ \\(unstoppable\\) did not stop for the scan: its stack was scanned whole, so a leak may be missed$" \
	"the thread that blocks every signal is named"
unlike "$(cat thr.out)" "\\((blocked|busy)\\) did not stop" "the blocked and the busy ones stopped"
like "$(cat thr.out)" "^SUMMARY: heapprof: 4800 byte\\(s\\) leaked in 100 allocation\\(s\\)\\.$" \
	"and what the threads hold is not a leak (the unstoppable one's 3000 bytes included)"
ms=$(sed -n 's/.*stopped for \([0-9]*\)\.[0-9]* ms$/\1/p' thr.out)
ok "$([ "${ms:-9999}" -lt 1000 ]; echo $?)" "the pause is bounded: the unstoppable thread is waited for 100 ms per round (${ms} ms)"
stop_svc
is "$(cat s/status)" 0 "the threads went on: the service ended normally"
cmp -s s/out bare/out
is $? 0 "with the bare run's output"

# ---- --confirm ---------------------------------------------------------------
start_svc lg_prof_sample:0 -b -t 10
"$BIN" leaks --confirm 3 --interval 0.5 "$pid" >conf.out
is $? 23 "--confirm 3: leaks confirmed exit 23"
like "$(cat conf.out)" "^confirmed: only the blocks unreachable in each of 3 checks 0.5 s apart are reported \\(10 blocks unreachable in some but not all left out: in flight, or freed since\\)$" \
	"the text says the rule, and how many blocks in flight it left out"
like "$(cat conf.out)" "^Direct leak of 4800 byte\\(s\\) in 100 object\\(s\\) \\(confirmed\\) allocated from:$" \
	"the lost sessions, confirmed"
unlike "$(cat conf.out)" "hide_in_flight" "the blocks in flight at the first check (then reached, or freed) are not reported"
is "$(grep -c '^block ' "run/leaks.$pid")" 100 "--confirm's verdicts list each leak's blocks"
stop_svc
start_svc lg_prof_sample:0 -b -t 10
"$BIN" leaks "$pid" >flight.out
like "$(cat flight.out)" "in hide_in_flight " "a single check does report the blocks in flight"
stop_svc

# ---- --json -------------------------------------------------------------------
start_svc lg_prof_sample:0 -b
"$BIN" leaks --json "$pid" >j.json
is $? 23 "--json: exit 23"
got=$(python3 -c '
import json, sys
d = json.load(open("j.json"))
l = d["leaks"][0]
print(d["leaked_bytes"], d["leaked_objects"], d["check"], d["estimated"], l["kind"], l["frames"][0]["function"],
      l["frames"][0]["line"] > 0, type(d["pause_ms"]).__name__, d["pid"] == int(open("s/pid").read()))
')
is "$got" "4800 100 1 False direct lose_session True float True" "the JSON carries the verdict, the frames with lines, the pause"
stop_svc

# ---- the default rate: an estimate within the sampling bound ---------------------
# 1024 sessions of 64 KiB (64 MiB) lost, at one sample per 512 KiB on
# average: each block is sampled with p = 1 - exp(-64/512) = 0.1175, so
# about 120 samples, and the estimate (samples * 64 KiB / p) has a
# relative standard deviation of sqrt((1 - p) / (1024 p)) = 8.6%.  Five
# standard deviations: within 43% of 64 MiB.  The cache's 64 entries
# are reachable: never reported, whatever is sampled.
# Over the 20 runs, their mean is within 5 / sqrt(20) sd (9.6%): a bias
# would show there.
inside=0 cache=0 est=0 sum=0
for i in $(seq 1 20); do
	start_svc "" -b -n 1024 -s 65536
	"$BIN" leaks "$pid" >def.out
	b=$(sed -n 's/^SUMMARY: heapprof: ~\([0-9]*\) byte(s) leaked.*estimated from [0-9]* sampled blocks* (lg_prof_sample:19)\.$/\1/p' def.out)
	[ -n "$b" ] && est=$((est + 1)) && sum=$((sum + b))
	[ -n "$b" ] && [ "$b" -gt 38252543 ] && [ "$b" -lt 95964979 ] && inside=$((inside + 1))
	grep -q cache_put def.out && cache=$((cache + 1))
	stop_svc
done
is "$est" 20 "the default rate: the figures are marked as estimates, with the rate"
is "$inside" 20 "within 5 sd (43%) of the 64 MiB lost, in each of 20 runs"
mean=$((sum / 20))
ok $([ $mean -gt 60666413 ] && [ $mean -lt 73551314 ]; echo $?) \
	"and their mean within 9.6% of it ($mean bytes)"
is "$cache" 0 "and the cache is never reported"

# ---- the API ---------------------------------------------------------------------
start_svc lg_prof_sample:0 -b -A
stop_svc
like "$(cat s/err)" "^api: rc=0 direct_bytes=4800 direct_objects=100 indirect_bytes=0 check=1 estimated=0 not_stopped=0$" \
	"heapprof_leak_check() returns the verdict to the program"
is "$(cat s/status)" 0 "and the program goes on"
(cd s && "$SVC" -A -n 3 -c 3 >/dev/null 2>err2 </dev/null & sleep 0.3; touch go; wait)
like "$(cat s/err2)" "^api: rc=38 " "without heapprof: ENOSYS"
# The check handed to the helper thread, the caller waiting in heapprof:
# its stack is scanned from where the program called, not from where it
# waits.  The last sessions' pointers lie in the dead stack below main's
# frame (no cache requests after them), where heapprof's waiting frames
# are; from there, 97 of the 100 were taken as reachable.
for t in -b -y; do
	start_svc lg_prof_sample:0 $t -A -c 0
	stop_svc
	like "$(cat s/err)" "^api: rc=0 direct_bytes=4800 direct_objects=100 indirect_bytes=0 check=1 " \
		"heapprof_leak_check() with another thread ($t), the last sessions lost: every one found"
done

# ---- the interval trigger -----------------------------------------------------------
start_svc lg_prof_sample:0,leak_check_interval_s:1
sleep 2.3
stop_svc
like "$(cat s/err)" "^<heapprof>: leak check 1: 4800 bytes leaked in 100 allocations, 1 context \\(direct 4800, indirect 0 bytes\\) \\(threads paused [0-9]+ ms\\); verdict .*/run/leaks\\.[0-9]+$" \
	"leak_check_interval_s:1: a check every second, its verdict in the log"
like "$(cat s/err)" "^<heapprof>: leak check 2: " "and again a second later"
is "$(cat s/status)" 0 "the program's exit status is its own"

# ---- a process without a helper thread -----------------------------------------------
start_svc lg_prof_sample:0 -n 5
t0=$(date +%s)
"$BIN" leaks "$pid" >nohelp.out 2>nohelp.err
is $? 1 "a single-threaded process that sleeps: no verdict, exit status 1"
like "$(cat nohelp.err)" "^heapprof: process [0-9]+ did not take the leak check within 2 s: it has no helper thread \\(a single-threaded program; helper_thread:start gives it one\\) and reached no sample point" \
	"one line that says why and what to do"
ok "$([ $(( $(date +%s) - t0 )) -lt 10 ]; echo $?)" "within seconds"
stop_svc
is "$(cat s/status)" 0 "the process is unharmed"

# ---- bad arguments -------------------------------------------------------------------
"$BIN" leaks >o 2>e
is "$?:$(wc -l <e)" "2:2" "no PID: usage error (2), the error and the hint"
like "$(head -1 e)" "^heapprof leaks: no process ID given" "which says so"
"$BIN" leaks --confirm 0 1 >o 2>e
like "$?:$(head -1 e)" "^2:heapprof leaks: --confirm wants a number of checks from 1 to 100, not '0'$" "--confirm 0"
"$BIN" leaks --interval 2 1 >o 2>e
like "$?:$(head -1 e)" "^2:heapprof leaks: --interval spaces the checks of --confirm N" "--interval without --confirm"
"$BIN" leaks --timeout x 1 >o 2>e
like "$?:$(head -1 e)" "^2:heapprof leaks: --timeout wants a number of seconds" "a bad --timeout"
sleep 60 & spid=$!
"$BIN" leaks $spid >o 2>e
is "$?:$(wc -l <e)" "1:1" "a process without heapprof: status 1, one line"
like "$(cat e)" "^heapprof: process $spid \\(.*\\) does not have heapprof loaded" "naming it"
kill $spid
"$BIN" leaks 2147483646 >o 2>e
like "$?:$(cat e)" "^1:heapprof: no process 2147483646$" "no such process"

done_testing
