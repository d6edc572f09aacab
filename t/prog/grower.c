/*
 * grower.c -- a heap that grows steadily: every STEP_MS milliseconds
 * grow() keeps one more block of KB KiB, COUNT times (0: until killed),
 * then it exits 0.  For the trigger and OOM tests.
 *
 * usage: grower KB STEP_MS COUNT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;

__attribute__((noinline)) static void grow(size_t bytes)
{
	char *p = malloc(bytes);
	if (p)
		memset(p, 1, bytes);   /* really use the memory (cgroup tests) */
	sink = p;
}

int main(int argc, char **argv)
{
	size_t kb = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
	long step_ms = argc > 2 ? atol(argv[2]) : 10;
	long count = argc > 3 ? atol(argv[3]) : 100;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (long i = 0; count == 0 || i < count; i++) {
		grow(kb << 10);
		if (step_ms) {
			struct timespec ts = { step_ms / 1000, (step_ms % 1000) * 1000000 };
			while (nanosleep(&ts, &ts) != 0)
				;
		}
	}
	return 0;
}
