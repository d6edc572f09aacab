/*
 * defer.c -- a single-threaded program whose live figures are known
 * exactly right after runs of frees shorter than the library's deferred
 * removals (record/sampled.c puts a free's removal off by 8 frees once
 * the live table is large, in a process of one thread): every reader must
 * see those frees done.
 *
 * It first keeps BLOCKS blocks of 32 bytes from keep() (a live table of
 * some MiB: past the size from which removals are put off), dumps
 * d0.heap, then, by MODE:
 *
 *   dumps   frees 5 blocks, dumps d1.heap; frees 7 more and allocates
 *           one of 200 bytes from more(), dumps d2.heap.  d1 holds 5
 *           blocks and 160 bytes fewer than d0; d2 12 blocks fewer and one
 *           more, 184 bytes fewer; its peak is d0's (the 200 bytes come
 *           after 384 bytes were freed); then frees 45 more (a whole
 *           batch of removals done, 13 waiting), dumps d3.heap: 45
 *           blocks fewer than d2.
 *   fork    frees 5 blocks and forks; the child frees 3 more, dumps
 *           c.heap (8 fewer than d0) and _exits; the parent waits, dumps
 *           p.heap (5 fewer).
 *   thread  frees 6 blocks, then a new thread dumps t.heap (6 fewer).
 *   leak    frees every block but the last 7, leaks one of 48 bytes
 *           from lose(), then frees the last 7: at exit they still wait
 *           to be removed, and must not count as leaks.  For the gate:
 *           exactly one leak, lose()'s.
 *
 * usage: defer dumps|fork|thread|leak [BLOCKS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "heapprof.h"

static char **blocks;   /* mapped, not allocated: no block of its own */
static long nblocks = 200000;
static void *volatile sink;

__attribute__((noinline)) static void *keep(void)
{
	return malloc(32);
}

__attribute__((noinline)) static void *more(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void *lose(void)
{
	return malloc(48);
}

static void drop(long i)
{
	free(blocks[i]);
	blocks[i] = NULL;
}

static void dump(const char *path)
{
	if (heapprof_dump(path))
		abort();
}

static void *thread_dump(void *arg)
{
	(void)arg;
	dump("t.heap");
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "dumps";

	if (argc > 2)
		nblocks = atol(argv[2]);
	blocks = mmap(NULL, nblocks * sizeof(*blocks), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (blocks == MAP_FAILED)
		return 2;
	for (long i = 0; i < nblocks; i++)
		blocks[i] = keep();
	dump("d0.heap");
	if (!strcmp(mode, "dumps")) {
		for (long i = 0; i < 5; i++)
			drop(i);
		dump("d1.heap");
		for (long i = 5; i < 12; i++)
			drop(i);
		sink = more(200);
		dump("d2.heap");
		for (long i = 12; i < 57; i++)
			drop(i);
		dump("d3.heap");
	} else if (!strcmp(mode, "fork")) {
		for (long i = 0; i < 5; i++)
			drop(i);
		pid_t pid = fork();
		if (pid == 0) {
			for (long i = 5; i < 8; i++)
				drop(i);
			dump("c.heap");
			_exit(0);
		}
		int st;
		waitpid(pid, &st, 0);
		dump("p.heap");
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			return 3;
	} else if (!strcmp(mode, "thread")) {
		pthread_t th;
		for (long i = 0; i < 6; i++)
			drop(i);
		if (pthread_create(&th, NULL, thread_dump, NULL) || pthread_join(th, NULL))
			return 4;
	} else if (!strcmp(mode, "leak")) {
		for (long i = 0; i < nblocks - 7; i++)
			drop(i);
		sink = lose();
		sink = NULL;
		for (long i = nblocks - 7; i < nblocks; i++)
			drop(i);
	} else {
		return 2;
	}
	return 0;
}
