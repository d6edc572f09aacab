#!/bin/sh
# heapprof stacked over other allocators (LD_PRELOAD="libheapprof.so ALLOC"):
# jemalloc, tcmalloc and mimalloc.  Each implements operator new/delete
# itself; heapprof must see those allocations, count them once, and leave
# every call's behaviour as the allocator's own.
. "$(dirname "$0")/lib.sh"
plan 33

libdir=$(dirname "$JEMALLOC")

# mmaproot keeps the only pointers to two blocks in memory it mapped
# itself (one mapping cut with munmap and grown with mremap, one made with
# mmap64) and leaks a third: valgrind says 2222 bytes in 1 block.  Over
# every allocator those mappings stay roots while the allocator's own
# ranges do not.
valgrind --leak-check=full "$TP/mmaproot" >/dev/null 2>vg.err
is "$(sed -n 's/^==[0-9]*== *definitely lost: \(.*\)$/\1/p' vg.err)" "2,222 bytes in 1 blocks" \
	"valgrind: mmaproot loses 2222 bytes in 1 block"
for alloc in "" $JEMALLOC $libdir/libtcmalloc_minimal.so.4 $libdir/libmimalloc.so.2; do
	HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,prof_final:false LD_PRELOAD="$LIB $alloc" "$TP/mmaproot" >out 2>err
	is "$(cat out):$(grep SUMMARY err)" "mmaproot: done:<heapprof>: SUMMARY: heapprof: 2222 byte(s) leaked in 1 allocation(s)." \
		"${alloc:+$(basename "$alloc"): }mmaproot: the program's own mappings are roots, the allocator's not"
done
# A mapping of the program's right after the allocator's .bss, which the
# kernel merges with the allocator's anonymous tail into one line of
# /proc/self/maps, holds the only pointer to a block: a root all the same
# (only the allocator's own pages are left out; it was reported leaked).
# Where the kernel puts the mapping depends on the layout: 10 runs each,
# every one clean; over jemalloc, whose .bss is usually followed by free
# space, at least one of them merged.
for alloc in $JEMALLOC $libdir/libtcmalloc_minimal.so.4 $libdir/libmimalloc.so.2; do
	name=$(basename "$alloc")
	clean=0 merged=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,prof_final:false LD_PRELOAD="$LIB $alloc" \
			"$TP/allocneighbour" "${name%%.so*}" >out 2>err &&
			[ "$(grep -c SUMMARY err)" = 0 ] && clean=$((clean + 1))
		grep -q merged out && merged=$((merged + 1))
	done
	[ "$alloc" = "$JEMALLOC" ] && [ $merged = 0 ] && clean=0
	is $clean 10 "$name: a mapping of the program's next to the allocator's data is a root ($merged of 10 merged with it)"
done

for alloc in $JEMALLOC $libdir/libtcmalloc_minimal.so.4 $libdir/libmimalloc.so.2; do
	name=$(basename "$alloc")
	pre="$LIB $alloc"
	rm -f *.heap
	# Every block counted once: jemalloc's live-at-exit summary.
	HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,leak_check:live LD_PRELOAD=$pre "$TP/seed" >out 2>err
	is "$(sed -n 1p err)" "<heapprof>: Leak approximation summary: ~6430720 bytes, ~120 objects, >= 2 contexts" \
		"$name: seed exact"
	# The verdict by reachability over that allocator: what valgrind says
	# is lost (6270976 bytes; the last block is still held by a global).
	# Its free memory and metadata are not roots (next/nextmaps.h): taken
	# for roots, they hid every leak over jemalloc.
	rm -f *.heap
	HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true LD_PRELOAD=$pre "$TP/seed" >out 2>err
	like "$(grep SUMMARY err)" "^<heapprof>: SUMMARY: heapprof: 6270976 byte\(s\) leaked in 11[89] allocation" \
		"$name: seed, reachability: valgrind's bytes"
	rm -f *.heap
	HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,prof_accum:true,leak_check:live LD_PRELOAD=$pre "$TP/threads" >out 2>err
	is "$(sed -n 1p err)" "<heapprof>: Leak approximation summary: ~1000000 bytes, ~4000 objects, >= 1 context" \
		"$name: threads exact, with cross-thread frees"
	is "$(jeprof_bytes "$TP/threads" "$(one_file 'heapprof.*.f.*heap')" handoff_alloc --alloc_space)" 5120000 \
		"$name: cumulative counts"
	rm -f *.heap
	HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,leak_check:live LD_PRELOAD=$pre "$TP/cxx" nofail >out 2>err
	is "$(sed -n 1p err)" "<heapprof>: Leak approximation summary: ~34000 bytes, ~110 objects, >= 2 contexts" \
		"$name: C++ new/delete seen once each"
	HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,prof_final:false LD_PRELOAD=$pre "$TP/cxx" nofail >out 2>err
	is "$(grep SUMMARY err)" "<heapprof>: SUMMARY: heapprof: 32760 byte(s) leaked in 108 allocation(s)." \
		"$name: C++, reachability: valgrind's 32760 bytes in 108 blocks"
	is "$(jeprof_bytes "$TP/cxx" "$(one_file 'heapprof.*.f.*heap')" make_widget)" 24000 \
		"$name: new attributed to its caller"
	# Behaviour: identical to the allocator alone, usable sizes its own.
	SEMANTICS_ALLOCATOR=$alloc LD_PRELOAD=$alloc "$TP/semantics" --no-pvalloc >alone.out
	SEMANTICS_ALLOCATOR=$alloc HEAPPROF_CONF=lg_prof_sample:0 LD_PRELOAD=$pre \
		"$TP/semantics" --no-pvalloc >stacked.out
	diff -u alone.out stacked.out >d && ok 0 "$name: every call behaves as the allocator alone" ||
		{ ok 1 "$name: every call behaves as the allocator alone"; diag "$(head -20 d)"; }
done
rm -f *.heap
# jemalloc's own profiler stays usable underneath: its MALLOC_CONF is its own.
MALLOC_CONF=prof:true,prof_prefix:je,prof_final:true HEAPPROF_CONF=prof_prefix:hp,prof_final:true \
	LD_PRELOAD="$LIB $JEMALLOC" "$TP/seed" >/dev/null 2>&1
is "$(ls je.*.heap hp.*.heap 2>/dev/null | wc -l)" 2 "jemalloc and heapprof each write their own final dump"
done_testing
