#!/bin/sh
# heapprof run: the program under the library, its output and exit status
# kept (a leak gate's included), options through HEAPPROF_CONF and
# --config, LD_PRELOAD prepended to what is there.
. "$(dirname "$0")/lib.sh"
plan 12

"$BIN" run -c lg_prof_sample:0,prof_leak:true -- "$TP/seed" >out 2>err
is $? 0 "the program's status"
is "$(cat out)" "seed: allocated" "the program's output"
is "$(grep 'Leak approximation' err)" "<heapprof>: Leak approximation summary: ~6270976 bytes, ~119 objects, >= 2 contexts (direct 6270976 bytes in 119 objects, indirect 0 bytes in 0 objects)" \
	"-c passes options"
rm -f *.heap
"$BIN" run -c prof_leak_error:true -c lg_prof_sample:0 "$TP/gate" leak >out 2>/dev/null
is $? 1 "a leak gate's status comes through (two -c, no --)"
is "$(cat out)" "gate: leak: buffered output" "and the buffered output"
"$BIN" run -clg_prof_sample:0,prof_leak_error:true "$TP/gate" status >/dev/null 2>&1
is $? 3 "the program's own failure status is kept"
rm -f *.heap

# Options after the caller's HEAPPROF_CONF win key by key.
HEAPPROF_CONF=prof_prefix:mine,lg_prof_sample:0,prof_final:true "$BIN" run -c prof_prefix:theirs "$TP/seed" >/dev/null 2>&1
ok $(ls theirs.*.heap >/dev/null 2>&1 && ! ls mine.* >/dev/null 2>&1; echo $?) "-c overrides HEAPPROF_CONF"
rm -f *.heap
printf '[heapprof]\nlg_prof_sample = 0\nprof_leak = true\n' >p.ini
"$BIN" run --config "$T_DIR/p.ini" "$TP/seed" >/dev/null 2>err
like "$(cat err)" "~6270976 bytes" "--config names the profiler.ini"
rm -f *.heap

# LD_PRELOAD: ours first, the caller's after it (here: jemalloc).
SEMANTICS_ALLOCATOR=$JEMALLOC LD_PRELOAD=$JEMALLOC "$BIN" run -c lg_prof_sample:0 "$TP/semantics" --no-pvalloc >stacked 2>&1
SEMANTICS_ALLOCATOR=$JEMALLOC LD_PRELOAD=$JEMALLOC "$TP/semantics" --no-pvalloc >alone 2>&1
diff -q alone stacked >/dev/null
ok $? "an existing LD_PRELOAD stays, after heapprof (stacked over jemalloc)"

"$BIN" run -- "$T_DIR/no-such-program" 2>err
is $? 127 "a missing program: 127"
like "$(cat err)" "^heapprof run: cannot run '$T_DIR/no-such-program': No such file or directory\$" "and a clear message"
"$BIN" run --bogus "$TP/seed" >/dev/null 2>&1
is $? 2 "an unknown option: exit 2"
done_testing
