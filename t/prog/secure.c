/*
 * secure.c -- for the secure-execution test (t/0748): prints whether the
 * kernel started it in secure-exec mode ("secure=1" for a setuid program
 * run by another user) and its real and effective uids, leaks 3 x 100
 * bytes, then asks for a dump as an operator would: SIGUSR1 to itself,
 * when heapprof's handler is the one in place (bare, the signal would
 * kill it), and gives the helper thread half a second.  Exits 0.
 * The test links it against the library (a setuid program ignores
 * LD_PRELOAD paths).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

static void *volatile sink;

int main(void)
{
	struct sigaction sa;

	printf("secure=%lu uid=%d euid=%d\n", getauxval(AT_SECURE), (int)getuid(), (int)geteuid());
	fflush(stdout);
	for (int i = 0; i < 3; i++)
		sink = malloc(100);
	if (sigaction(SIGUSR1, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) {
		raise(SIGUSR1);
		usleep(500000);
	}
	return 0;
}
