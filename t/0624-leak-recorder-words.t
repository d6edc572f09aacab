#!/bin/sh
# What the recorder keeps about a thread's allocations in that thread's
# own memory is no root.  The leak scan reads every thread's stack and
# thread-local storage, and the recording keeps words there (the last
# block recorded, for temporary allocations; the stride between a
# thread's blocks, for the live table's prefetch once its tables pass
# 1 MiB): kept as they are, one would be the address of the block or
# just past its start, and would keep a lost block reachable.  Here the
# main thread holds 300,000 blocks (tables past 1 MiB) and a thread,
# still running at exit, loses the one block it allocated, or the last
# of three: each time that block alone leaks.
. "$(dirname "$0")/lib.sh"
plan 6

cat >words.c <<'EOF2'
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* words N: a thread allocates N blocks of 100 bytes, keeps all but the
 * last, drops that one and waits for the process to end. */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready, blocks;
static void **volatile keep;
static void *volatile kept[8];
static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < blocks; i++) {
		char *volatile p = malloc(100);
		memset(p, 1, 100);
		if (i < blocks - 1)
			kept[i] = p;
		p = NULL;
	}
	pthread_mutex_lock(&m);
	ready = 1;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	for (;;)
		pause();
	return NULL;
}
int main(int argc, char **argv)
{
	pthread_t t;
	blocks = argc > 1 ? atoi(argv[1]) : 1;
	if (blocks < 1 || blocks > 8)
		blocks = 1;
	keep = malloc(300000 * sizeof(void *));
	for (int i = 0; i < 300000; i++)
		keep[i] = malloc(16);
	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&m);
	while (!ready)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	return 0;
}
EOF2
cc -O1 -g -pthread -o words words.c || { echo "Bail out! cc cannot build words.c"; exit 1; }

for n in 1 3; do
	prof lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_leak_error:true ./words $n >/dev/null 2>hp.err
	is "$?" 1 "a thread's block $n of $n lost: the gate fails the program"
	like "$(cat hp.err)" 'SUMMARY: heapprof: 100 byte\(s\) leaked in 1 allocation\(s\)\.' \
		"and reports that block alone"
	unlike "$(cat hp.err)" 'byte\(s\) leaked in 30000[0-9] allocation' "the 300,000 held blocks are not leaks"
done
