/*
 * attachleak.c -- blocks whose only reference lies in a block allocated
 * before heapprof attach, and one true leak, for the leak check of an
 * attached process (t/0801-attach-leak.t).
 *
 * It allocates a holder block, prints "ready PID", and waits (sleeping
 * in nanosleep: a safe point) until the file GO exists.  Then it
 * allocates HELD blocks of 1000 bytes whose only pointers are in the
 * holder, and one block of 777 bytes whose pointer it drops.  With LIB
 * (build/t/libleak.so), it then loads LIB, waits 1.5 s (heapprof routes
 * an object loaded later within a second) and calls libleak_make(555),
 * a leak from the later object's own malloc call.  With "reload" too,
 * it first loads LIB, waits 1.5 s and unloads it, then goes on as above
 * (LIB is most likely loaded at the same address again, relocated
 * afresh).  Then it exits 0.
 *
 * usage: attachleak GO HELD [LIB [reload]]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;

__attribute__((noinline)) static void *held_block(void)
{
	return malloc(1000);
}

__attribute__((noinline)) static void leak_after_attach(void)
{
	sink = malloc(777);
	sink = NULL;
}

int main(int argc, char **argv)
{
	int held = argc > 2 ? atoi(argv[2]) : 10;
	void **holder = malloc(4096);   /* before the attach: unknown to heapprof */
	struct timespec ms = { 0, 1000000 };

	if (argc < 2 || held < 0 || held > 512)
		return 2;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (access(argv[1], F_OK) != 0)
		nanosleep(&ms, NULL);
	for (int i = 0; i < held; i++)
		holder[i] = held_block();
	leak_after_attach();
	if (argc > 3) {
		struct timespec pause = { 1, 500000000 };
		if (argc > 4) {
			void *first = dlopen(argv[3], RTLD_NOW);
			nanosleep(&pause, NULL);
			if (!first || dlclose(first))
				return 4;
		}
		void *h = dlopen(argv[3], RTLD_NOW);
		void (*make)(size_t) = h ? (void (*)(size_t))dlsym(h, "libleak_make") : NULL;
		struct timespec wait = { 1, 500000000 };
		if (!make)
			return 3;
		nanosleep(&wait, NULL);
		make(555);
	}
	sink = holder;   /* the holder stays reachable from a global */
	return 0;
}
