/* setjmp/longjmp across allocations: longjmp out of nested frames that
 * allocated (the blocks are freed by the catcher), siglongjmp out of a
 * SIGSEGV handler after probing unmapped memory, between allocations,
 * and longjmp out of a qsort comparator that allocates. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static jmp_buf jb;
static sigjmp_buf sjb;
static void *blocks[64];
static int nblocks;

static void deep(int d)
{
	blocks[nblocks++] = malloc(100 + d);
	if (d == 20)
		longjmp(jb, d);
	deep(d + 1);
}

static void on_segv(int sig) { (void)sig; siglongjmp(sjb, 1); }

static int cmp_calls;
static int cmp(const void *a, const void *b)
{
	free(malloc(50));
	if (++cmp_calls == 500)
		longjmp(jb, 2);
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	long sum = 0;
	for (int r = 0; r < 2000; r++) {
		nblocks = 0;
		if (!setjmp(jb))
			deep(0);
		for (int i = 0; i < nblocks; i++) free(blocks[i]);
		sum += nblocks;
	}
	printf("longjmp out of 21 frames x 2000: %ld blocks freed\n", sum);

	struct sigaction sa = { .sa_handler = on_segv, .sa_flags = SA_NODEFER };
	sigaction(SIGSEGV, &sa, NULL);
	volatile char *hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int faults = 0;
	for (int i = 0; i < 5000; i++) {
		char *p = malloc(64 + i % 200);
		if (!sigsetjmp(sjb, 1))
			p[0] = hole[i % 4096];
		else
			faults++;
		free(p);
	}
	printf("siglongjmp out of SIGSEGV x 5000: %d faults\n", faults);

	int *v = malloc(2000 * sizeof(int));
	for (int i = 0; i < 2000; i++) v[i] = (i * 7919) % 2000;
	if (!setjmp(jb))
		qsort(v, 2000, sizeof(int), cmp);
	free(v);
	printf("longjmp out of qsort after %d comparisons\n", cmp_calls);
	return 0;
}
