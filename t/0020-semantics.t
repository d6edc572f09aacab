#!/bin/sh
# Every interposed function behaves exactly as the allocator underneath:
# results, errno, alignment, usable size, contents, realloc edge cases.
# The same program runs with and without heapprof and must print the same.
. "$(dirname "$0")/lib.sh"
plan 8

"$TP/semantics" >bare.out
ok $? "the program runs on bare glibc"
prof "" "$TP/semantics" >default.out 2>default.err
ok $? "it runs under heapprof at the default rate"
diff -u bare.out default.out >diff1 && ok 0 "default rate: identical to glibc" || { ok 1 "default rate: identical to glibc"; diag "$(cat diff1)"; }
prof lg_prof_sample:0 "$TP/semantics" >exact.out 2>exact.err
diff -u bare.out exact.out >diff2 && ok 0 "exact mode: identical to glibc" || { ok 1 "exact mode: identical to glibc"; diag "$(cat diff2)"; }
is "$(cat default.err exact.err)" "" "nothing on stderr"

# Over jemalloc: identical to jemalloc alone.  jemalloc exports no pvalloc,
# so alone it would free glibc's pvalloc block and crash: its baseline
# skips pvalloc, and heapprof's emulation on jemalloc is checked apart.
export SEMANTICS_ALLOCATOR=$JEMALLOC
LD_PRELOAD=$JEMALLOC "$TP/semantics" --no-pvalloc >je.out
HEAPPROF_CONF=lg_prof_sample:0 LD_PRELOAD="$LIB $JEMALLOC" "$TP/semantics" --no-pvalloc >hpje.out
diff -u je.out hpje.out >diff3 && ok 0 "over jemalloc: identical to jemalloc alone" || { ok 1 "over jemalloc: identical to jemalloc alone"; diag "$(cat diff3)"; }
is "$(grep -c "usable=allocator's:1" hpje.out)" "$(grep -c "usable=allocator's:1" je.out)" \
	"usable sizes are jemalloc's own, block by block"
HEAPPROF_CONF=lg_prof_sample:0 LD_PRELOAD="$LIB $JEMALLOC" "$TP/semantics" >pv.out 2>&1
like "$(grep 'pvalloc(100)' pv.out | head -n 1)" 'ptr errno=0 aligned=1 usable>=n=1' \
	"pvalloc over jemalloc is served by jemalloc and page aligned"
done_testing
