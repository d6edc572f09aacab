#!/bin/sh
# prof_leak_error: the leak gate.  The exit status becomes leak_exit_code
# when the program leaked and exited 0; the program's buffered stdout
# survives; the final dump is complete; a non-zero status of the program's
# own is kept; nothing leaks into a dump when stderr is closed.
. "$(dirname "$0")/lib.sh"
plan 25

# prof_prefix given: the gate alone writes no file (t/0638).
gate() { prof "lg_prof_sample:0,prof_leak_error:true,prof_prefix:heapprof$1" "$TP/gate" "$2"; }

gate "" leak >out 2>err
is $? 1 "a leak turns exit status 0 into 1"
is "$(cat out)" "gate: leak: buffered output" "the program's buffered stdout is not lost"
is "$(grep 'Leak approximation' err)" "<heapprof>: Leak approximation summary: ~200 bytes, ~2 objects, >= 1 context (direct 200 bytes in 2 objects, indirect 0 bytes in 0 objects)" \
	"summary: the two blocks nothing reaches (the third is held by a global)"
is "$(tail -n 1 err)" "<heapprof>: Exiting with error code because memory leaks were detected" "jemalloc's gate message"
dump=$(one_file 'heapprof.*.f.*heap')
like "$(tail -n 1 "$dump")" '^[0-9a-f]+-[0-9a-f]+ [-r][-w][-x][ps] ' "the final dump is complete (ends in the maps section)"
is "$(jeprof_bytes "$TP/gate" "$dump" leak_some)" 300 "and holds the leak: 300 bytes in leak_some"
rm -f *.heap

gate "" leak 2>/dev/null | cat >piped
is "$(cat piped)" "gate: leak: buffered output" "stdout through a pipe is flushed too"

gate "" clean >out 2>err
is $? 0 "a program that frees everything exits 0"
is "$(cat out)" "gate: clean: buffered output" "its output is intact"
is "$(cat err)" "" "no summary for a program that only leaves stdio's buffer (printf) behind"
rm -f *.heap

gate "" status >out 2>err
is $? 3 "the program's own non-zero status is kept"
like "$(cat err)" "keeping the program's exit status 3" "and the log says so"
unlike "$(cat err)" "Exiting with error code" "no claim that the status changed"
rm -f *.heap

gate ",leak_exit_code:42" leak >/dev/null 2>&1
is $? 42 "leak_exit_code sets the status"
rm -f *.heap

gate "" exit0 >/dev/null 2>&1
is $? 1 "exit(0) from deep inside the program is gated too"
rm -f *.heap

prof lg_prof_sample:0,prof_leak:true "$TP/gate" leak >/dev/null 2>err
is $? 0 "prof_leak alone reports but keeps the status"
like "$(cat err)" "Leak approximation summary: ~200 bytes" "prof_leak alone prints the summary"
rm -f *.heap

# stderr closed by the program, or before it started: the summary must not
# land in the dump (jemalloc #1977), and the gate still works.
gate "" nostderr >out
is $? 1 "gate works with stderr closed by the program"
dump=$(one_file 'heapprof.*.f.*heap')
like "$(sed -n 1p "$dump")" '^heap profile: ' "the dump starts with its header, not our messages"
rm -f *.heap
gate "" leak >out 2>&-
is $? 1 "gate works when started with stderr closed"
dump=$(one_file 'heapprof.*.f.*heap')
is "$(grep -c '<heapprof>' "$dump")" 0 "no message inside the dump"
is "$(jeprof_bytes "$TP/gate" "$dump" leak_some)" 300 "the dump is readable"
rm -f *.heap

# leak_gate:false, in a [program:NAME] section (NAME a shell pattern):
# the leak is reported, the status kept.
printf '[program:g*t?]\nleak_gate = false\n[program:other]\nleak_gate = true\n' >sect.ini
HEAPPROF_CONFIG=$T_DIR/sect.ini HEAPPROF_CONF=lg_prof_sample:0,prof_leak_error:true \
	LD_PRELOAD=$LIB "$TP/gate" leak >out 2>err
is $? 0 "[program:g*t?] leak_gate = false: the leak does not change the status"
like "$(cat err)" '^<heapprof>: SUMMARY: heapprof: 200 byte\(s\) leaked in 2 allocation\(s\)\.$' "it is still reported"
printf '[program:g*t?]\nleak_gate = true\n' >sect.ini
HEAPPROF_CONFIG=$T_DIR/sect.ini HEAPPROF_CONF=lg_prof_sample:0,prof_leak_error:true \
	LD_PRELOAD=$LIB "$TP/gate" leak >out 2>err
is $? 1 "and with leak_gate = true it fails as before"
done_testing
