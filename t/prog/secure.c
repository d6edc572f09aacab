/*
 * secure.c -- for the secure-execution test (t/0748): prints whether the
 * kernel started it in secure-exec mode ("secure=1" for a setuid program
 * run by another user) and its real and effective uids, leaks 3 x 100
 * bytes, then asks for a dump as an operator would: SIGUSR1 to itself,
 * when heapprof is loaded (its handler, which sigaction does not show the
 * program, then takes the signal; bare, the signal would kill it), and
 * gives the helper thread half a second.  Exits 0.
 * The test links it against the library (a setuid program ignores
 * LD_PRELOAD paths).
 */
#include <heapprof.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

static void *volatile sink;

int main(void)
{
	printf("secure=%lu uid=%d euid=%d\n", getauxval(AT_SECURE), (int)getuid(), (int)geteuid());
	fflush(stdout);
	for (int i = 0; i < 3; i++)
		sink = malloc(100);
	if (heapprof_loaded()) {
		raise(SIGUSR1);
		usleep(500000);
	}
	return 0;
}
