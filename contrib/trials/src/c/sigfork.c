/* fork() from a signal handler: SIGALRM every 2 ms interrupts a malloc
 * loop; the handler forks, the child allocates a little (not async-signal
 * safe, but a common pattern: "fork a crash reporter") and _exits; the
 * main loop reaps.  Single-threaded, so glibc's fork takes no malloc
 * locks; mode "nomalloc": the child only _exits. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t forks;
static int child_mallocs = 1;

static void on_alrm(int sig)
{
	(void)sig;
	pid_t pid = fork();
	if (pid == 0) {
		if (child_mallocs)
			for (int i = 0; i < 10; i++) free(malloc(100));
		_exit(5);
	}
	if (pid > 0) forks++;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "nomalloc")) child_mallocs = 0;
	struct sigaction sa = { .sa_handler = on_alrm, .sa_flags = SA_RESTART };
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	long reaped = 0, bad = 0;
	while (forks < 300) {
		for (int i = 0; i < 1000; i++) {
			char *p = malloc(16 + i * 7);
			p[0] = 1;
			free(p);
		}
		int st;
		pid_t r;
		while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
			reaped++;
			bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 5);
		}
	}
	struct itimerval off = { 0 };
	setitimer(ITIMER_REAL, &off, NULL);
	int st;
	while (waitpid(-1, &st, 0) > 0) { reaped++; bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 5); }
	printf("forks >= 300: reaped all: %s, bad %ld\n", reaped == forks ? "yes" : "no", bad);
	return 0;
}
