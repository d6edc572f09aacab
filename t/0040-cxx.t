#!/bin/sh
# C++ new/delete: attribution to the calling function, exact counts, new
# failing with bad_alloc through heapprof, over glibc and over jemalloc
# (which implements operator new itself, bypassing malloc); and a program
# with no C++ runtime calling operator new: one line, never an abort.
. "$(dirname "$0")/lib.sh"
plan 18

for under in glibc jemalloc; do
	pre=$LIB
	[ $under = jemalloc ] && pre="$LIB $JEMALLOC"
	rm -f *.heap
	HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,leak_check:live LD_PRELOAD=$pre "$TP/cxx" >out 2>err
	is $? 0 "$under: exit status unchanged"
	is "$(cat out)" "cxx: 1000 words, bad_alloc caught 1, nothrow null 1, aligned 1" \
		"$under: bad_alloc, nothrow and aligned new behave"
	is "$(sed -n 1p err)" "<heapprof>: Leak approximation summary: ~34000 bytes, ~110 objects, >= 2 contexts" \
		"$under: exact summary; libstdc++'s emergency pool is not a leak"
	dump=$(one_file 'heapprof.*.f.*heap')
	is "$(jeprof_bytes "$TP/cxx" "$dump" make_widget)" 24000 "$under: new Widget attributed to make_widget"
	is "$(jeprof_bytes "$TP/cxx" "$dump" make_buffer)" 10000 "$under: new[] attributed to make_buffer"
	HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,prof_final:false LD_PRELOAD=$pre "$TP/cxx" >out 2>err
	is "$(grep SUMMARY err)" "<heapprof>: SUMMARY: heapprof: 32760 byte(s) leaked in 108 allocation(s)." \
		"$under: by reachability, valgrind's 32760 bytes in 108 blocks"
done

"$TP/nocxx" >out 2>err
is "$?:$(cat out)" "0:no operators" "bare, a C program finds no operator new"
HEAPPROF_CONF=lg_prof_sample:0,prof_final:true,prof_accum:true,prof_prefix:nocxx LD_PRELOAD=$LIB "$TP/nocxx" >out 2>err
is $? 0 "no C++ runtime after heapprof: the program's exit status is unchanged (no abort)"
is "$(cat out)" "new and delete worked" "its operator new and delete work (malloc and free)"
is "$(grep -c 'C++' err):$(sed -n 1p err)" "1:<heapprof>: no C++ runtime after heapprof defines _Znwm: C++ operators without one use malloc and free" \
	"one line says so, once for all the operators"
dump=$(one_file 'nocxx.*.f.*heap')
like "$(cat "$dump")" '^0: 0 \[ *1: *100\] @ ' "the fallback's operator new is profiled like malloc: 100 bytes, freed"
like "$(cat "$dump")" '^0: 0 \[ *1: *200\] @ ' "and the aligned one: 200 bytes, freed"
done_testing
