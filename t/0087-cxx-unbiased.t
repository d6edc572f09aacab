#!/bin/sh
# Every C++ allocation operator samples by the bytes it asks for, with the
# countdown, and every operator delete takes its sampled blocks out: over
# glibc (libstdc++'s operators call heapprof's malloc and free) and
# stacked over jemalloc, tcmalloc and mimalloc (which allocate for their
# operators themselves; heapprof interposes them "direct",
# src/lib/intercept/operators.c).  t/prog/cxxpaths calls each operator new
# (plain, array, nothrow, aligned, and a new-expression) at a site of its
# own and releases every other block with one operator delete form (plain,
# sized, nothrow, aligned); each site's live and allocated bytes and
# objects in the final dump must be the truth within 5 standard
# deviations (t/unbiased.sh), in each of 3 runs.
. "$(dirname "$0")/lib.sh"
. "$SRC/t/unbiased.sh"
RUNS=3
N=200000
SITES="c_new:48 c_new_sized:48 c_new_arr:48 c_new_arr_sized:48 c_new_nt:48 c_new_arr_nt:48
	c_new_al:64 c_new_al_sized:64 c_new_arr_al:64 c_new_arr_al_sz:64 c_new_al_nt:64
	c_new_arr_al_nt:64 c_expr:48"
plan $((4 * RUNS * (1 + 4 * 13)))

for a in $(allocators); do
	name=${a%%:*} alloc=${a#*:}
	for run in $(seq $RUNS); do
		unbiased_run cx "$alloc" "$TP/cxxpaths" $N
		ok $? "$name, run $run: the final dump is written${alloc:+ (over $alloc)}"
		unbiased_sites "$name, run $run" cx $N "$SITES"
	done
done
done_testing
