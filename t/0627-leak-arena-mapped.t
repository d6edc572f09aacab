#!/bin/sh
# glibc's main arena grows with brk while it can; when a mapping sits just
# past the break it goes on in anonymous mappings, outside [heap].  The
# scan then reads those mappings between the recorded blocks, one gap a
# block (each asked of heapprof's own mappings: a walk of their registry
# from its start cost 1,100 instructions a gap, most of a scan of a
# million blocks there).  And it must skip the free chunks there, as the
# walk of [heap] does: a freed block's stale contents are not roots (they
# were, and hid the leak a freed block pointed to).  Here a program blocks
# the break, chains 200,000 blocks from a global and drops the last ten,
# then frees the one block that points to a 100-byte one it drops:
# valgrind and heapprof must both find those eleven alone.
. "$(dirname "$0")/lib.sh"
plan 5

cat >nobrk.c <<'EOF2'
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* Maps a page 1 MiB past the break, so that glibc's main arena soon
 * leaves [heap]; chains N blocks of 107 bytes from a global, the last
 * ten dropped; then a 100-byte block whose only pointers are in a
 * 200-byte block it frees.  Prints "mapped" when the last block lies
 * past that page (in a mapping of glibc's, not [heap]). */
struct node { struct node *next; char pad[99]; };
static struct node *volatile head;
int main(void)
{
	enum { N = 200000, LOST = 10 };
	uintptr_t end = ((uintptr_t)sbrk(0) + 4095) & ~(uintptr_t)4095, wall = end + (1 << 20);
	if (mmap((void *)wall, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED)
		return 2;
	struct node *prev = NULL, *b = NULL;
	for (long i = 0; i < N; i++) {
		b = malloc(sizeof(*b));
		b->next = NULL;
		if (i >= N - LOST)
			continue;
		if (prev)
			prev->next = b;
		else
			head = b;
		prev = b;
	}
	void *leak = malloc(100);
	memset(leak, 1, 100);
	void **holder = malloc(200);
	for (int k = 0; k < 25; k++)
		holder[k] = leak;
	printf("%s\n", (uintptr_t)b > wall && (uintptr_t)holder > wall ? "mapped" : "heap");
	free(holder);
	b = NULL;
	leak = NULL;
	holder = NULL;
	return 0;
}
EOF2
cc -O1 -o nobrk nobrk.c || { echo "Bail out! cc cannot build nobrk.c"; exit 1; }
command -v valgrind >/dev/null || { echo "Bail out! valgrind is missing: make deps installs it"; exit 1; }

valgrind --leak-check=full ./nobrk >/dev/null 2>vg.err
is "$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 \2/p' vg.err)" "1,220 11" \
	"valgrind finds the eleven dropped blocks definitely lost"

prof lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_leak_error:true,log_level:debug ./nobrk >where 2>hp.err
is "$?" 1 "heapprof's gate fails the program"
is "$(cat where)" mapped "under heapprof, the main arena went on outside [heap]"
like "$(cat hp.err)" 'SUMMARY: heapprof: 1220 byte\(s\) leaked in 11 allocation\(s\)\.' \
	"heapprof reports the eleven dropped blocks alone"
like "$(cat hp.err)" 'leak scan: 2000[0-9][0-9] blocks, .* 11 lost;' "the scan read them all"
