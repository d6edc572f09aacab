/*
 * budget.c -- a program whose heap figures are known exactly, for heapprof
 * check's budgets: peak() holds PEAK bytes at once and frees them; churn()
 * makes N allocations of 64 bytes, each freed; keep() holds KEEP bytes to
 * the end, reachable (no leak).  No stdio, so nothing else allocates: the
 * peak is PEAK (when PEAK >= KEEP + 64), the allocations N + 2, live at
 * exit KEEP.  With "kill" as a fourth argument it ends by SIGKILL.
 *
 * usage: budget PEAK N KEEP [kill]
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile kept;

__attribute__((noinline)) static void peak(size_t n)
{
	char *volatile p = malloc(n);   /* volatile: gcc would drop the pair */
	if (p)
		memset(p, 1, n);
	free(p);
}

__attribute__((noinline)) static void churn(long n)
{
	for (long i = 0; i < n; i++) {
		char *volatile p = malloc(64);
		free(p);
	}
}

__attribute__((noinline)) static void keep(size_t n)
{
	kept = malloc(n);
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	peak(strtoul(argv[1], NULL, 10));
	churn(atol(argv[2]));
	keep(strtoul(argv[3], NULL, 10));
	if (argc > 4 && !strcmp(argv[4], "kill"))
		kill(getpid(), SIGKILL);
	return 0;
}
