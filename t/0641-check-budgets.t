#!/bin/sh
# heapprof check's heap budgets: --max-peak, --max-allocs and
# --max-live-at-exit, each just at and just under the truth of
# t/prog/budget (a 1 MiB peak, 1002 allocations, 4 KiB live at exit): at
# the truth the run passes, one under it fails with the gate's status and
# names the process, the figure and the stack that made it.  Then GLOB=
# rules, a process killed before its figures, --json and --junit, bad
# values, and python3 against valgrind: its allocation count and what is
# live at exit (memcheck) and its peak (massif), to the byte.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
command -v valgrind >/dev/null || { echo "Bail out! valgrind is missing: run make deps"; exit 1; }
plan 30

P=1048576 N=1000 K=4096
chk() {   # chk ARGS...: heapprof check ARGS -- budget P N K; status in $st, stderr in e
	"$BIN" check "$@" -- "$TP/budget" $P $N $K >out 2>e
	st=$?
}

chk --max-peak $P --max-allocs $((N + 2)) --max-live-at-exit $K
is "$st $(grep -c 'over budget' e)" "0 0" "every budget at the truth: the run passes"

chk --max-peak $((P - 1))
is "$st" 23 "--max-peak one byte under the peak: the gate's status"
like "$(cat e)" "^heapprof check: over budget: budget \(pid [0-9]+\): peak 1\.0 MiB \(1048576 bytes\), over --max-peak 1048575; its stacks at the peak:$" \
	"it names the process, its peak and the budget"
like "$(sed -n '/its stacks at the peak:/{n;p;}' e)" '^ +1\.0MiB  peak <- main <- ' "and the stack that made the peak"
like "$(tail -n 1 e)" '^heapprof check: 1 process over budget$' "a summary line"

chk --max-allocs $((N + 1))
is "$st" 23 "--max-allocs one under the count: fails"
like "$(cat e)" "allocations 1002, over --max-allocs 1001; its stacks that allocated most:" "the count"
like "$(sed -n '/that allocated most:/{n;p;}' e)" '^ +1000  churn <- main <- ' "the stack that allocated most, with its count"

chk --max-live-at-exit $((K - 1))
is "$st" 23 "--max-live-at-exit one byte under: fails"
like "$(sed -n '/its stacks live at exit:/{n;p;}' e)" '^ +4\.0KiB  keep <- main <- ' "the stack that held it"
like "$(head -n 1 e)" '^heapprof check: no leaks in 1 counted process' "memory live at exit that is reachable is no leak"

chk --max-peak 1M
is "$st" 0 "--max-peak 1M: sizes take binary multiples"

# GLOB= rules: only matching programs; they win over the plain rule.
chk --max-allocs 'budg*=10'
is "$st" 23 "--max-allocs 'budg*=10' applies to budget"
chk --max-allocs 'other*=10'
is "$st" 0 "a rule for another program does not"
chk --max-allocs 10 --max-allocs "budget=$((N + 2))"
is "$st" 0 "a matching GLOB= rule wins over the plain one"

# A process killed before its figures (the command itself succeeds): no
# figures, said, and the run fails, unless --allow-missing.
kill_cmd="'$TP/budget' $P $N $K kill; true"
"$BIN" check --max-peak 1G -- sh -c "$kill_cmd" >out 2>e
is "$?" 23 "a process killed by a signal before its figures: the run fails"
like "$(cat e)" '^heapprof check: budget: budget \(pid [0-9]+\): no figures: it left no verdict$' \
	"it is named: no figures"
"$BIN" check --allow-missing --max-peak 1G -- sh -c "$kill_cmd" >out 2>e
is "$?" 0 "--allow-missing: it passes"

# --json and --junit carry the figures and what went over.
chk --max-peak $((P - 1)) --json j.json --junit j.xml
python3 - j.json >jv <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
b = j["processes"][0]["budget"]
o = b["over"][0]
print(b["peak_bytes"], b["allocations"], b["live_bytes_at_exit"], o["option"], o["limit"], o["value"],
      "peak <- main" in o["stacks"], j["summary"]["over_budget"], j["exit_status"])
PYEOF
is "$(cat jv)" "1048576 1002 4096 --max-peak 1048575 1048576 True 1 23" "--json: the figures, the budget gone over, the summary"
like "$(cat j.xml)" '<failure type="budget" message="over --max-peak 1048575">' "--junit: a failure of type budget"
# A process that leaks and goes over a budget: one failure, of type leak,
# whose text has both.
"$BIN" check --max-allocs 1 --junit j2.xml -- "$TP/idle" 0 2 >out 2>e
ok $(grep -q '<failure type="leak"' j2.xml && grep -q 'Direct leak of' j2.xml && grep -q 'over --max-allocs 1:' j2.xml
     echo $?) "--junit: a leak over a budget is one failure with both reports"

# Bad values: usage errors, nothing run.
for bad in "--max-peak 10Q" "--max-allocs -3" "--max-allocs =5" "--max-live-at-exit x=" "--max-foo 1"; do
	"$BIN" check $bad -- "$TP/budget" $P $N $K >out 2>e
	st=$?
	ok $([ $st -eq 2 ] && [ "$(wc -l <e)" -le 2 ] && grep -q '^heapprof check: ' e; echo $?) \
		"check $bad: a usage error (status 2)"
done

# A real program, against valgrind on the same run (PYTHONHASHSEED fixes
# what python3 allocates): the allocation count and the bytes live at exit
# as memcheck counts them (without glibc's freeres, which runs after the
# figures are taken), and the peak as massif finds it at 0% inaccuracy.
export PYTHONHASHSEED=0
py=/usr/bin/python3
"$BIN" check --all --max-peak 0 --max-allocs 0 --max-live-at-exit 0 --json py.json -- $py -c pass >out 2>e
is "$?" 23 "python3 -c pass over zero budgets: fails"
python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["processes"][0]["budget"]
print(b["allocations"], b["live_bytes_at_exit"], b["peak_bytes"])' py.json >pyv
read hp_allocs hp_live hp_peak <pyv
valgrind --run-libc-freeres=no $py -c pass 2>vg >/dev/null
vg_allocs=$(sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' vg | tr -d ,)
vg_live=$(sed -n 's/.*in use at exit: \([0-9,]*\) bytes.*/\1/p' vg | tr -d ,)
valgrind --tool=massif --peak-inaccuracy=0.0 --massif-out-file=ms.out $py -c pass 2>/dev/null >/dev/null
vg_peak=$(awk -F= '/^mem_heap_B=/ { if ($2 > m) m = $2 } END { print m + 0 }' ms.out)
is "$hp_allocs" "$vg_allocs" "python3: allocations as valgrind counts them ($vg_allocs)"
is "$hp_live" "$vg_live" "python3: bytes live at exit as memcheck counts them ($vg_live)"
is "$hp_peak" "$vg_peak" "python3: the peak as massif finds it ($vg_peak)"
