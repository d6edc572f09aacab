#!/bin/sh
# heapprof report's value types: --alloc-space and --alloc-objects from
# cumulative counts (prof_accum:true) in both layouts, the one-line error
# when a dump has none, and the sampling scale (jeprof's AdjustSamples) on
# a sampled dump and on gperftools' own header types, checked against
# jeprof.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 25

flat() { awk -v fn="$1" '$6 == fn { print $1; f = 1 } END { if (!f) print 0 }'; }
# within A B N: |A - B| <= N
within() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { d = a - b; exit !(d <= n && -d <= n) }'; }

# rep_grow 3: grow() keeps 48 x 64 KiB, steady() 10 x 4096, churn()
# allocates 100 x 1000 bytes and frees them.
prof lg_prof_sample:0,prof_final:true,prof_accum:true,prof_prefix:acc "$TP/rep_grow" 3
acc=$(one_file 'acc.*.f.*heap')
"$BIN" report --show-bytes "$acc" >inuse
is "$(flat grow <inuse)" 3145728 "inuse: grow holds 3145728 bytes"
is "$(flat churn <inuse)" 0 "inuse: churn holds nothing"
"$BIN" report --alloc-space --show-bytes "$acc" >aspace
is "$(flat churn <aspace)" 100000 "--alloc-space: churn allocated 100000 bytes"
is "$(flat grow <aspace)" 3145728 "--alloc-space: grow allocated 3145728 bytes"
like "$(sed -n 1p aspace)" '^Total: [0-9]+ B \(alloc_space, 1 dump\)$' "--alloc-space headline"
"$BIN" report --alloc-objects "$acc" >aobjs
is "$(flat churn <aobjs)" 100 "--alloc-objects: churn made 100 objects"
is "$(flat steady <aobjs)" 10 "--alloc-objects: steady made 10 objects"
is "$(jeprof_bytes "$TP/rep_grow" "$acc" churn --alloc_space)" 100000 "jeprof --alloc_space agrees on churn"

prof lg_prof_sample:0,prof_final:true,prof_accum:true,dump_format:jemalloc,prof_prefix:jacc \
	"$TP/rep_grow" 3
"$BIN" report --alloc-space --show-bytes "$(one_file 'jacc.*.f.*heap')" >jaspace
is "$(flat churn <jaspace)" 100000 "jemalloc layout: --alloc-space reads the t* pairs"

# No cumulative counts: one line naming the dump, status 1.
prof lg_prof_sample:0,prof_final:true,prof_prefix:noacc "$TP/rep_grow" 3
noacc=$(one_file 'noacc.*.f.*heap')
"$BIN" report --alloc-space "$noacc" >out 2>err
is $? 1 "--alloc-space without cumulative counts exits 1"
is "$(cat err)" "heapprof: '$noacc' has no cumulative counts for --alloc-space (profile with prof_accum:true)" \
	"with one line that says so"
is "$(cat out)" "" "and writes no report"

# Sampled: 1 in 2^14 bytes.  The library writes pre-images that the
# reader's 1/(1-exp(-avg/R)) scale maps to its estimates; heapprof applies
# the scale per row, as jeprof does (and rounds where jeprof truncates).
prof lg_prof_sample:14,prof_final:true,prof_accum:true,prof_prefix:smp "$TP/seed" >/dev/null
smp=$(one_file 'smp.*.f.*heap')
like "$(sed -n 1p "$smp")" '@ heap_v2/16384$' "a sampled dump, rate 16384"
"$BIN" report --show-bytes "$smp" >s
hp=$(flat do_something <s)
je=$(jeprof_bytes "$TP/seed" "$smp" do_something)
within "$hp" "$je" 1
ok $? "sampled do_something: heapprof $hp, jeprof $je bytes"
hp=$(flat do_something_else <s)
je=$(jeprof_bytes "$TP/seed" "$smp" do_something_else)
within "$hp" "$je" 1
ok $? "sampled do_something_else: heapprof $hp, jeprof $je bytes"
tot_hp=$(sed -n 's/^Total: \([0-9]*\) B .*/\1/p' s)
tot_je=$(jeprof --text --show_bytes "$TP/seed" "$smp" 2>/dev/null | sed -n 's/^Total: \([0-9]*\) B$/\1/p')
within "$tot_hp" "$tot_je" 2
ok $? "sampled total: heapprof $tot_hp, jeprof $tot_je bytes"
"$BIN" report --alloc-space --show-bytes "$smp" >sa
hp=$(flat do_something <sa)
je=$(jeprof_bytes "$TP/seed" "$smp" do_something --alloc_space)
within "$hp" "$je" 1
ok $? "sampled --alloc-space: heapprof $hp, jeprof $je bytes"
# gperftools' header types: "heapprofile" (exact), "heap/P" (version 1:
# rate P/2, scaled only below one sample), "heap_v2/R"; symbolized dumps,
# so that jeprof needs no binary either.
for hdr in heapprofile heap/1048576 heap_v2/524288 heap_v2/1; do
	printf -- '--- symbol\n0x401000 leaf_fn\n0x401fff main\n---\n--- heap\nheap profile: 3: 1200 [3: 1200] @ %s\n1: 1000 [1: 1000] @ 0x401000 0x402000\n2: 200 [2: 200] @ 0x402001 0x402000\n\nMAPPED_LIBRARIES:\n' \
		"$hdr" >v.heap
	hp=$("$BIN" report --show-bytes v.heap | sed -n 's/^Total: \([0-9]*\) B .*/\1/p')
	je=$(jeprof --text --show_bytes v.heap 2>/dev/null | sed -n 's/^Total: \([0-9]*\) B$/\1/p')
	is "$hp" "$je" "'@ $hdr': the total is jeprof's ($je bytes)"
	hp=$("$BIN" report --show-bytes v.heap | flat leaf_fn)
	je=$(jeprof --text --show_bytes v.heap 2>/dev/null | flat leaf_fn)
	is "$hp" "$je" "'@ $hdr': leaf_fn's bytes are jeprof's ($je)"
done
done_testing
