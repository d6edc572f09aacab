#!/bin/sh
# Every C allocation path samples by the bytes it asks for, with the
# countdown, over glibc and stacked over jemalloc, tcmalloc and mimalloc:
# malloc, calloc, reallocarray, memalign, posix_memalign, aligned_alloc,
# valloc, pvalloc, and strdup and strndup through malloc (realloc is
# t/0085's), and malloc(0) and calloc(0, n), sampled as one byte and
# counted as objects without bytes (8N of each: at one byte, N would
# leave about 6 live samples, too few for the normal bound; with 8N no
# figure at all, as before they were sampled, is 7 sd off).  t/prog/paths makes N blocks at each site and frees every
# other one; each site's live and allocated bytes and objects in the
# final dump must be the truth within 5 standard deviations
# (t/unbiased.sh), in each of 3 runs (the sampler seeds itself from the
# clock).
. "$(dirname "$0")/lib.sh"
. "$SRC/t/unbiased.sh"
RUNS=3
N=200000
SITES="p_malloc:48 p_calloc:48 p_reallocarray:48 p_memalign:64 p_posix_memalign:64
	p_aligned_alloc:64 p_strdup:48 p_strndup:48"
plan $((4 * RUNS * (1 + 4 * 10 + 2 * 2)))

for a in $(allocators); do
	name=${a%%:*} alloc=${a#*:}
	for run in $(seq $RUNS); do
		unbiased_run pa "$alloc" "$TP/paths" $N
		ok $? "$name, run $run: the final dump is written${alloc:+ (over $alloc)}"
		unbiased_sites "$name, run $run" pa $N "$SITES"
		unbiased_site "$name, run $run" pa p_valloc $((N / 64)) 4096
		unbiased_site "$name, run $run" pa p_pvalloc $((N / 64)) 4096
		unbiased_zero "$name, run $run" pa p_malloc0 $((8 * N))
		unbiased_zero "$name, run $run" pa p_calloc0 $((8 * N))
	done
done
done_testing
