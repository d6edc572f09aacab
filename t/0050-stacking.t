#!/bin/sh
# heapprof stacked over jemalloc (LD_PRELOAD="libheapprof.so libjemalloc.so"):
# exact counts and attribution as over glibc, with jemalloc doing the work.
. "$(dirname "$0")/lib.sh"
plan 5

pre="$LIB $JEMALLOC"
HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true LD_PRELOAD=$pre "$TP/seed" >out 2>err
is "$(sed -n 1p err)" "<heapprof>: Leak approximation summary: ~6430720 bytes, ~120 objects, >= 2 contexts" \
	"seed over jemalloc: exact summary"
is "$(jeprof_bytes "$TP/seed" "$(one_file 'heapprof.*.f.heap')" do_something)" 3235840 \
	"seed over jemalloc: jeprof attribution"
rm -f *.heap
HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,prof_accum:true LD_PRELOAD=$pre "$TP/threads" >out 2>err
is "$(sed -n 1p err)" "<heapprof>: Leak approximation summary: ~1000000 bytes, ~4000 objects, >= 1 context" \
	"threads over jemalloc: exact, with cross-thread frees"
is "$(jeprof_bytes "$TP/threads" "$(one_file 'heapprof.*.f.heap')" handoff_alloc --alloc_space)" 5120000 \
	"threads over jemalloc: cumulative counts"
rm -f *.heap
# jemalloc's own profiler stays usable underneath: its MALLOC_CONF is its own.
MALLOC_CONF=prof:true,prof_prefix:je,prof_final:true HEAPPROF_CONF=prof_prefix:hp,prof_final:true \
	LD_PRELOAD=$pre "$TP/seed" >/dev/null 2>&1
is "$(ls je.*.heap hp.*.heap 2>/dev/null | wc -l)" 2 "jemalloc and heapprof each write their own final dump"
done_testing
