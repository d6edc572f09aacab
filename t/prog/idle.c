/*
 * idle.c -- a quiet process for signal tests: leaks MB MiB from
 * leak_some(), prints "ready <pid>", then sleeps SECONDS (restarting the
 * sleep when a signal cuts it short) and exits 0.  With "own" as a third
 * argument it first installs its own SIGUSR1 handler, which prints
 * "own handler" each time it runs.
 *
 * With "fork" instead, it forks after leaking; the child prints "ready
 * <pid>" and sleeps, the parent waits for it and exits with its status.
 *
 * usage: idle SECONDS [MB] [own|fork]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;
static volatile sig_atomic_t own_runs;

__attribute__((noinline)) static void leak_some(int mb)
{
	for (int i = 0; i < mb; i++)
		sink = malloc(1 << 20);
}

static void own(int sig)
{
	(void)sig;
	own_runs++;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3;
	int mb = argc > 2 ? atoi(argv[2]) : 4;

	if (argc > 3 && !strcmp(argv[3], "own"))
		signal(SIGUSR1, own);
	leak_some(mb);
	if (argc > 3 && !strcmp(argv[3], "fork")) {
		fflush(stdout);
		pid_t child = fork();
		if (child > 0) {
			int st;
			waitpid(child, &st, 0);
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	struct timespec left = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	int last = 0;
	while (nanosleep(&left, &left) != 0) {
		if (own_runs != last) {
			last = own_runs;
			printf("own handler\n");
			fflush(stdout);
		}
	}
	return 0;
}
