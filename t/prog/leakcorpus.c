/*
 * leakcorpus.c -- seeded leaks for the reachability leak check, each one
 * checked against valgrind memcheck (t/0610-leak-corpus.t).  argv[1] picks
 * the case; each prints "leakcorpus: MODE: done" to stdout and exits 0.
 * The numbers are valgrind's LEAK SUMMARY on x86-64 Debian 12 (glibc
 * 2.36, gcc 12 -O1), "bytes/blocks":
 *
 *   mode        what it does                             definitely indirectly possibly
 *   list        a 10-node list (32-byte nodes) from         32/1     288/9      0/0
 *               make_list, head pointer dropped
 *   realloc     grow_chain: malloc(16), realloc to 100,    5000/1      0/0      0/0
 *               1000, 5000, then dropped
 *   thread      a thread leaks 777 bytes from thread_leak   777/1      0/0      0/0
 *               and is joined
 *   indirect    a 48-byte block from make_outer holding      48/1    2000/1      0/0
 *               the only pointer to 2000 from make_inner
 *   global      hold_global: 4096 bytes held by a global      0/0      0/0      0/0
 *               (still reachable: not a leak)
 *   stack       a second thread holds 3000 bytes in a local   0/0      0/0    272/1
 *               and sleeps in pause() while main calls exit(0): reachable
 *               from that thread's stack, not a leak.  The possibly lost
 *               block is glibc's DTV of the running thread (its TCB points
 *               16 bytes into it)
 *   _exit       leak_before_exit leaks 1234 bytes, then     1234/1      0/0      0/0
 *               the program calls _exit(0)
 *   threadexit  a worker leaks 4321 bytes from worker_leak, 4321/1      0/0    272/1
 *               then calls exit(0) while main waits in pthread_join; the
 *               possibly lost block is the worker's DTV, as above
 *   cycle       make_cycle: two 64-byte blocks pointing       64/1      64/1      0/0
 *               at each other, both dropped (valgrind counts the first it
 *               meets as definitely lost, the other indirectly)
 *   interior    make_interior: 256 bytes, the only pointer     0/0      0/0    256/1
 *               (from a global) 128 bytes into the block.  Valgrind: possibly
 *               lost; heapprof, like LeakSanitizer, counts an interior
 *               pointer as a reference: not a leak
 *   fork        the child leaks 2468 bytes from child_leak   2468/1      0/0      0/0
 *               (child process)
 *               and exits 0; the parent waits for it and is clean:  0/0      0/0      0/0
 *               (parent process).  Both print their pid to stderr first
 *               ("leakcorpus: fork: child PID"), and the parent prints
 *               "leakcorpus: fork: parent PID reaped child PID" once the
 *               child is gone: stderr above that line is the child's.
 *
 * Every dropped pointer is really gone: the allocating code runs in a
 * noinline function that returns nothing and stores the pointer only in
 * a volatile global (sink) which it then overwrites; clobber() then
 * overwrites the dead stack below the caller and the scratch registers.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile sink;
static void *volatile held;          /* global: a root */
static char *volatile held_interior; /* global: points into a block */
static volatile int nodes = 10;      /* keeps make_list's loop rolled */
static const char *mode = "";

/* Overwrites 64 KiB of dead stack: nothing left there from earlier calls. */
__attribute__((noinline)) static void clobber(void)
{
	volatile char pad[64 * 1024];

	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = 0;
}

static void done(void)
{
	printf("leakcorpus: %s: done\n", mode);
}

/* list: 10 nodes of 32 bytes, each pointing at the previous one. */
struct node {
	struct node *next;
	char payload[24];
};

__attribute__((noinline)) static void make_list(void)
{
	struct node *head = NULL;

	for (int i = 0; i < nodes; i++) {
		struct node *n = malloc(sizeof(*n));
		n->next = head;
		memset(n->payload, i, sizeof(n->payload));
		head = n;
	}
	sink = head;
	sink = NULL;
}

/* realloc: one block grown three times, then lost at 5000 bytes. */
__attribute__((noinline)) static void grow_chain(void)
{
	static const size_t sizes[] = { 100, 1000, 5000 };
	char *p = malloc(16);

	memset(p, 1, 16);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p = realloc(p, sizes[i]);
		memset(p, 2, sizes[i]);
		sink = p;
	}
	sink = NULL;
}

/* thread: 777 bytes lost inside a thread that is joined. */
__attribute__((noinline)) static void thread_leak(void)
{
	char *p = malloc(777);

	memset(p, 3, 777);
	sink = p;
	sink = NULL;
}

static void *leaker(void *arg)
{
	thread_leak();
	clobber();
	return NULL;
}

/* indirect: the only pointer to 2000 bytes is in a lost 48-byte block. */
struct outer {
	char *inner;
	char pad[40];
};

__attribute__((noinline)) static char *make_inner(void)
{
	char *p = malloc(2000);

	memset(p, 4, 2000);
	return p;
}

__attribute__((noinline)) static void make_outer(void)
{
	struct outer *o = malloc(sizeof(*o));

	memset(o->pad, 5, sizeof(o->pad));
	o->inner = make_inner();
	sink = o;
	sink = NULL;
}

/* global: 4096 bytes held by a global until exit: not a leak. */
__attribute__((noinline)) static void hold_global(void)
{
	char *p = malloc(4096);

	memset(p, 6, 4096);
	held = p;
}

/* stack: the only pointer to 3000 bytes is a local of a sleeping thread. */
static sem_t ready;

__attribute__((noinline)) static void *sleeper(void *arg)
{
	char *volatile local = malloc(3000);

	memset(local, 7, 3000);
	sem_post(&ready);
	for (;;)
		pause();
	return NULL;
}

/* _exit: 1234 bytes lost, then _exit(0): no atexit handlers run. */
__attribute__((noinline)) static void leak_before_exit(void)
{
	char *p = malloc(1234);

	memset(p, 8, 1234);
	sink = p;
	sink = NULL;
}

/* threadexit: a worker leaks 4321 bytes and calls exit(0) itself. */
__attribute__((noinline)) static void worker_leak(void)
{
	char *p = malloc(4321);

	memset(p, 9, 4321);
	sink = p;
	sink = NULL;
}

static void *exiter(void *arg)
{
	worker_leak();
	clobber();
	done();
	exit(0);
}

/* cycle: two 64-byte blocks pointing at each other. */
__attribute__((noinline)) static void make_cycle(void)
{
	void **a = malloc(64);
	void **b = malloc(64);

	memset(a, 10, 64);
	memset(b, 11, 64);
	a[0] = b;
	b[0] = a;
	sink = a;
	sink = NULL;
}

/* interior: a global points 128 bytes into a 256-byte block. */
__attribute__((noinline)) static void make_interior(void)
{
	char *p = malloc(256);

	memset(p, 12, 256);
	held_interior = p + 128;
}

/* fork: the child leaks 2468 bytes and exits 0; the parent is clean. */
__attribute__((noinline)) static void child_leak(void)
{
	char *p = malloc(2468);

	memset(p, 13, 2468);
	sink = p;
	sink = NULL;
}

static int forked(void)
{
	int status;

	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		fprintf(stderr, "leakcorpus: fork: child %d\n", (int)getpid());
		child_leak();
		clobber();
		printf("leakcorpus: fork: child done\n");
		exit(0);
	}
	fprintf(stderr, "leakcorpus: fork: parent %d\n", (int)getpid());
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	fprintf(stderr, "leakcorpus: fork: parent %d reaped child %d\n", (int)getpid(), (int)pid);
	printf("leakcorpus: fork: child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t;

	mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "list")) {
		make_list();
	} else if (!strcmp(mode, "realloc")) {
		grow_chain();
	} else if (!strcmp(mode, "thread")) {
		pthread_create(&t, NULL, leaker, NULL);
		pthread_join(t, NULL);
	} else if (!strcmp(mode, "indirect")) {
		make_outer();
	} else if (!strcmp(mode, "global")) {
		hold_global();
	} else if (!strcmp(mode, "stack")) {
		sem_init(&ready, 0, 0);
		pthread_create(&t, NULL, sleeper, NULL);
		sem_wait(&ready);
		clobber();
		done();
		exit(0);
	} else if (!strcmp(mode, "_exit")) {
		leak_before_exit();
		clobber();
		done();
		fflush(stdout);
		_exit(0);
	} else if (!strcmp(mode, "threadexit")) {
		pthread_create(&t, NULL, exiter, NULL);
		pthread_join(t, NULL);
		return 1; /* not reached: the worker exits */
	} else if (!strcmp(mode, "cycle")) {
		make_cycle();
	} else if (!strcmp(mode, "interior")) {
		make_interior();
	} else if (!strcmp(mode, "fork")) {
		if (forked())
			return 1;
	} else {
		fprintf(stderr, "usage: leakcorpus list|realloc|thread|indirect|global|stack"
				"|_exit|threadexit|cycle|interior|fork\n");
		return 2;
	}
	clobber();
	done();
	return 0;
}
