#!/bin/sh
# A block that starts 16 bytes before a MiB boundary starts at the last
# granule of one of the scan index's chunks (granule 65535), which the
# index once took for "no start in this chunk": the scan lost every
# pointer to such a block (its first byte, or a byte past the boundary)
# and reported a reachable block as leaked (cc1 under the gate, now and
# then, as ASLR placed its blocks).  Here a program places blocks there on
# purpose: one held by a pointer to its start, one by a pointer past the
# boundary, one dropped.  valgrind and heapprof must both find the dropped
# one alone.
. "$(dirname "$0")/lib.sh"
plan 6

cat >edge.c <<'EOF2'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Allocates from glibc's top chunk until a 200-byte block lands 16 bytes
 * before a MiB boundary; does it three times.  Everything allocated on
 * the way stays reachable from fill[].  Under another allocator
 * (valgrind's) the blocks land elsewhere: the verdict is the same. */
static void *fill[3 * 3 * 70000];   /* up to three blocks an iteration */
static int nfill;
static void *at_start, *past_edge;

static void *edge_block(void)
{
	for (int i = 0; i < 70000; i++) {
		void *q = malloc(24);   /* a 32-byte chunk */
		fill[nfill++] = q;
		uintptr_t a = (uintptr_t)q;
		if ((a & 0x1f) == 0) {   /* never 32 below the boundary: shift by 16 */
			fill[nfill++] = malloc(40);
			continue;
		}
		if ((a & 0xfffff) == 0xfffd0) {
			void *p = malloc(200);
			if (((uintptr_t)p & 0xfffff) == 0xffff0)
				return p;
			fill[nfill++] = p;
		}
	}
	return malloc(200);
}

int main(void)
{
	void *a = edge_block(), *b = edge_block(), *c = edge_block();
	memset(c, 0, 200);
	at_start = a;
	past_edge = (char *)b + 100;   /* 84 bytes into the next MiB */
	printf("%lx %lx %lx\n", (unsigned long)a, (unsigned long)b, (unsigned long)c);
	c = NULL;
	return 0;
}
EOF2
cc -O0 -g -o edge edge.c || { echo "Bail out! cc cannot build edge.c"; exit 1; }
command -v valgrind >/dev/null || { echo "Bail out! valgrind is missing: make deps installs it"; exit 1; }

valgrind --leak-check=full ./edge >/dev/null 2>vg.err
is "$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 \2/p' vg.err)" "200 1" \
	"valgrind finds the one dropped block definitely lost"

prof lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_leak_error:true ./edge >addrs 2>hp.err
is "$?" 1 "heapprof's gate fails the program"
bad=0
for a in $(cat addrs); do
	case "$a" in *ffff0) ;; *) bad=$((bad + 1)) ;; esac
done
is "$(wc -w <addrs) $bad" "3 0" "under heapprof, the three blocks start 16 bytes before a MiB boundary"
like "$(cat hp.err)" 'SUMMARY: heapprof: 200 byte\(s\) leaked in 1 allocation\(s\)\.' \
	"heapprof reports the dropped block alone"

# The same through the command, ten runs (where the blocks land moves
# with ASLR; the boundary is in the same place relative to them).
bad=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$HP_BUILD/heapprof" check --json hc.json -- ./edge >/dev/null 2>&1
	grep -q '"leaked_bytes": *200,' hc.json || bad=$((bad + 1))
done
is "$bad" 0 "heapprof check: 200 bytes leaked in each of ten runs"
like "$(cat hc.json)" '"leaked_objects": *1,' "and one object"
