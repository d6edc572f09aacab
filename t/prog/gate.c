/*
 * gate.c -- programs for the leak gate.  argv[1] picks one:
 *   leak       leaks 3 x 100 bytes, prints to buffered stdout, exits 0
 *   clean      frees everything it allocates, uses printf, exits 0
 *   status     leaks like "leak" but exits with status 3
 *   nostderr   closes fd 2, then leaks like "leak"
 *   exit0      leaks, then calls exit(0) from a nested function
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile sink;
static volatile int three = 3;   /* keeps the loop rolled: one call site */

__attribute__((noinline)) static void leak_some(void)
{
	for (int i = 0; i < three; i++)
		sink = malloc(100);
}

__attribute__((noinline)) static void use_and_free(void)
{
	for (int i = 0; i < 1000; i++) {
		char *p = malloc((size_t)i + 1);
		memset(p, 1, (size_t)i + 1);
		free(p);
	}
	char *s = strdup("strdup'd and freed");
	free(s);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "clean";

	/* No newline: stays in stdout's buffer until exit flushes it. */
	printf("gate: %s: buffered output", mode);
	use_and_free();
	if (!strcmp(mode, "clean"))
		return 0;
	if (!strcmp(mode, "nostderr"))
		close(2);
	leak_some();
	if (!strcmp(mode, "status"))
		return 3;
	if (!strcmp(mode, "exit0"))
		exit(0);
	return 0;
}
