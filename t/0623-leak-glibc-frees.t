#!/bin/sh
# Memory glibc frees itself is free, not a root.  A realloc that shrinks a
# block in place hands the tail back to glibc, which puts it in a tcache
# bin, or in a fast bin when that tcache bin is full: either way the chunk
# keeps PREV_INUSE set and looks in use, no stamp of heapprof's is on it,
# and it still holds what the block held.  Here that is the only other
# pointer to a 100-byte block that the program then drops: a leak for
# valgrind, and for heapprof whichever bin the tail went to.  With
# "longbin", another fast bin holds 70,000 chunks that heapprof freed
# first (more than the scan keeps of the fast bins' chunks): they carry
# heapprof's stamp and must not crowd the tails out of that list.  With
# "samebin", 70,000 chunks of the tails' own size are freed after them,
# into their bin: the scan must walk that list to its end (it stopped
# after 65,536 chunks, and took the tails for blocks in use).
. "$(dirname "$0")/lib.sh"
plan 12

cat >tails.c <<'EOF2'
#include <stdlib.h>
#include <string.h>
/* tails fast|tcache|longbin|samebin: ten 200-byte blocks filled with the one pointer to a
 * 100-byte block, each shrunk to 120 bytes (an 80-byte tail freed by
 * glibc); with "fast", "longbin" or "samebin", the 80-byte tcache bin is
 * full first; with "longbin", 70,000 32-byte chunks fill a fast bin
 * before; with "samebin", 70,000 80-byte chunks go to the tails' fast
 * bin after them. */
static void *hold[10];
int main(int argc, char **argv)
{
	enum { SAME = 70000 };
	void *t[7], *leak = malloc(100), **same = NULL;
	memset(leak, 7, 100);
	if (argc > 1 && !strcmp(argv[1], "samebin")) {
		same = calloc(SAME, sizeof(void *));
		for (int i = 0; i < SAME; i++)
			same[i] = malloc(72);
	}
	if (argc > 1 && !strcmp(argv[1], "longbin")) {
		enum { LONG = 70000 };
		void **many = calloc(LONG, sizeof(void *));
		for (int i = 0; i < LONG; i++)
			many[i] = malloc(24);
		for (int i = 0; i < LONG; i++)
			free(many[i]);
		free(many);
	}
	if (argc > 1 && strcmp(argv[1], "tcache")) {
		for (int i = 0; i < 7; i++)
			t[i] = malloc(72);
		for (int i = 0; i < 7; i++)
			free(t[i]);
	}
	for (int i = 0; i < 10; i++) {
		void **p = malloc(200);
		for (int k = 0; k < 25; k++)
			p[k] = leak;
		hold[i] = realloc(p, 120);
	}
	if (same) {
		for (int i = 0; i < SAME; i++)
			free(same[i]);
		free(same);
	}
	void *volatile v = leak;
	v = NULL;
	leak = NULL;
	for (int i = 0; i < 10; i++)
		memset(hold[i], 0, 120);
	return 0;
}
EOF2
cc -O0 -g -o tails tails.c || { echo "Bail out! cc cannot build tails.c"; exit 1; }
command -v valgrind >/dev/null || { echo "Bail out! valgrind is missing: make deps installs it"; exit 1; }

for bin in tcache fast longbin samebin; do
	valgrind --leak-check=full ./tails $bin >/dev/null 2>vg.err
	is "$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 \2/p' vg.err)" "100 1" \
		"$bin: valgrind finds the 100-byte block definitely lost"
	prof lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_leak_error:true ./tails $bin >/dev/null 2>hp.err
	is "$?" 1 "$bin: heapprof's gate fails the program"
	like "$(cat hp.err)" 'SUMMARY: heapprof: 100 byte\(s\) leaked in 1 allocation\(s\)\.' \
		"$bin: and reports that block alone"
done
