#!/bin/sh
# C++ new/delete: attribution to the calling function, exact counts, new
# failing with bad_alloc through heapprof, over glibc and over jemalloc
# (which implements operator new itself, bypassing malloc).
. "$(dirname "$0")/lib.sh"
plan 10

for under in glibc jemalloc; do
	pre=$LIB
	[ $under = jemalloc ] && pre="$LIB $JEMALLOC"
	rm -f *.heap
	HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true LD_PRELOAD=$pre "$TP/cxx" >out 2>err
	is $? 0 "$under: exit status unchanged"
	is "$(cat out)" "cxx: 1000 words, bad_alloc caught 1, nothrow null 1, aligned 1" \
		"$under: bad_alloc, nothrow and aligned new behave"
	is "$(sed -n 1p err)" "<heapprof>: Leak approximation summary: ~34000 bytes, ~110 objects, >= 2 contexts" \
		"$under: exact summary; libstdc++'s emergency pool is not a leak"
	dump=$(one_file 'heapprof.*.f.*heap')
	is "$(jeprof_bytes "$TP/cxx" "$dump" make_widget)" 24000 "$under: new Widget attributed to make_widget"
	is "$(jeprof_bytes "$TP/cxx" "$dump" make_buffer)" 10000 "$under: new[] attributed to make_buffer"
done
done_testing
