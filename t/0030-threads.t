#!/bin/sh
# Exact counts with several threads: blocks kept per thread, blocks freed by
# another thread, per-thread rows and pthread names in the jemalloc layout.
. "$(dirname "$0")/lib.sh"
plan 11

prof lg_prof_sample:0,prof_leak:true,leak_check:live,prof_accum:true,dump_format:jemalloc "$TP/threads" >out 2>err
is $? 0 "exit status unchanged"
is "$(sed -n 1p err)" "<heapprof>: Leak approximation summary: ~1000000 bytes, ~4000 objects, >= 1 context" \
	"exact summary: only worker_alloc's blocks are live"
dump=$(one_file 'heapprof.*.f.*heap')
is "$(jeprof_bytes "$TP/threads" "$dump" worker_alloc)" 1000000 "in use: worker_alloc 1000000 bytes"
is "$(jeprof_bytes "$TP/threads" "$dump" handoff_alloc)" 0 "in use: handoff_alloc holds nothing (freed on other threads)"
is "$(jeprof_bytes "$TP/threads" "$dump" handoff_alloc --alloc_space)" 5120000 \
	"cumulative: handoff_alloc allocated 5120000 bytes"
for i in 0 1 2 3; do
	want=$(( (i + 1) * 100000 ))
	like "$(sed -n '2,/^@/p' "$dump")" "^  t[0-9]+: 1000: $want \\[21000: [0-9]+\\] worker-$i\$" \
		"thread worker-$i: 1000 blocks, $want bytes, named"
done
# Each thread's row under the worker_alloc stack.
rows=$(awk '/^@/{s=$0; next} s && /^  t[1-9]/ {print}' "$dump" | grep -c ': 1000: ')
is "$rows" 4 "worker_alloc's stack has one row per thread"

# The default layout sums the threads.
prof lg_prof_sample:0,prof_final:true,prof_prefix:g "$TP/threads" >/dev/null 2>&1
is "$(jeprof_bytes "$TP/threads" "$(one_file 'g.*.f.*heap')" worker_alloc)" 1000000 "gperftools layout: same total"
done_testing
