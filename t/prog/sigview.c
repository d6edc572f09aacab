/*
 * sigview.c -- prints what a program sees of its signal dispositions, so
 * that a test can compare the run under heapprof with the bare one.
 *
 *   sigview show         the action of SIGUSR1, SIGUSR2, SIGHUP and every
 *                        real-time signal, as sigaction reports it
 *   sigview saverestore  saves and restores a handler through sigaction,
 *                        signal, bsd_signal, sysv_signal, sigset and
 *                        siginterrupt, printing what each returns, and
 *                        checks that its handlers run (raise)
 *   sigview exec PROG..  shows, then execs PROG: what a child inherits
 *
 * A line per fact; addresses are printed as what they are (SIG_DFL,
 * SIG_IGN, "own", "other"), never as numbers.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The old interfaces are the point here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
__sighandler_t bsd_signal(int sig, __sighandler_t handler);   /* X/Open */

static volatile sig_atomic_t runs[65];

static void own(int sig)
{
	runs[sig]++;
}

static void own_info(int sig, siginfo_t *info, void *ctx)
{
	(void)info;
	(void)ctx;
	runs[sig]++;
}

static const char *kind(void (*h)(int))
{
	if (h == SIG_DFL)
		return "SIG_DFL";
	if (h == SIG_IGN)
		return "SIG_IGN";
	if (h == SIG_ERR)
		return "SIG_ERR";
	if (h == SIG_HOLD)
		return "SIG_HOLD";
	if (h == own || h == (void (*)(int))own_info)
		return "own";
	return "other";
}

static void show_action(const char *what, int sig, const struct sigaction *sa)
{
	unsigned long mask = 0;

	for (int i = 1; i < 64; i++)
		if (sigismember(&sa->sa_mask, i) == 1)
			mask |= 1ul << (i - 1);
	/* SA_RESTORER (0x04000000) is glibc's own business and depends on
	 * whether the action went through glibc: printed as it is. */
	printf("%s %d: %s flags=%#x mask=%#lx\n", what, sig, kind(sa->sa_handler),
	       (unsigned)sa->sa_flags, mask);
}

static void show(void)
{
	int sigs[3] = { SIGUSR1, SIGUSR2, SIGHUP };
	struct sigaction sa;

	for (int i = 0; i < 3; i++)
		if (sigaction(sigs[i], NULL, &sa) == 0)
			show_action("action", sigs[i], &sa);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if (sigaction(sig, NULL, &sa) == 0)
			show_action("action", sig, &sa);
}

static void saverestore(void)
{
	struct sigaction mine, old, back, now;

	/* The pattern of Python's signal.signal: save, install, restore. */
	memset(&mine, 0, sizeof(mine));
	mine.sa_sigaction = own_info;
	mine.sa_flags = SA_SIGINFO;
	sigemptyset(&mine.sa_mask);
	sigaction(SIGUSR1, &mine, &old);
	show_action("saved", SIGUSR1, &old);
	raise(SIGUSR1);
	printf("own handler ran %d times\n", (int)runs[SIGUSR1]);
	sigaction(SIGUSR1, &old, &back);
	show_action("replaced", SIGUSR1, &back);
	sigaction(SIGUSR1, NULL, &now);
	show_action("restored", SIGUSR1, &now);

	/* The same through signal() and its relatives. */
	printf("signal: %s\n", kind(signal(SIGUSR2, own)));
	raise(SIGUSR2);
	printf("own handler ran %d times\n", (int)runs[SIGUSR2]);
	printf("signal again: %s\n", kind(signal(SIGUSR2, SIG_DFL)));
	printf("signal back: %s\n", kind(signal(SIGUSR2, SIG_DFL)));
	printf("bsd_signal: %s\n", kind(bsd_signal(SIGUSR2, own)));
	printf("bsd_signal back: %s\n", kind(bsd_signal(SIGUSR2, SIG_DFL)));
	printf("sysv_signal: %s\n", kind(sysv_signal(SIGUSR1, own)));
	printf("sysv_signal back: %s\n", kind(sysv_signal(SIGUSR1, SIG_DFL)));
	printf("sigset hold: %s\n", kind(sigset(SIGUSR1, SIG_HOLD)));
	printf("sigset own: %s\n", kind(sigset(SIGUSR1, own)));
	printf("sigset back: %s\n", kind(sigset(SIGUSR1, SIG_DFL)));
	printf("siginterrupt: %d\n", siginterrupt(SIGUSR1, 1));
	sigaction(SIGUSR1, NULL, &now);
	show_action("interrupting", SIGUSR1, &now);
	printf("signal after siginterrupt: %s\n", kind(signal(SIGUSR1, own)));
	sigaction(SIGUSR1, NULL, &now);
	show_action("interrupting handler", SIGUSR1, &now);
	printf("siginterrupt off: %d\n", siginterrupt(SIGUSR1, 0));
	printf("signal restored: %s\n", kind(signal(SIGUSR1, SIG_DFL)));
	printf("sigignore: %d\n", sigignore(SIGUSR1));
	raise(SIGUSR1);   /* ignored */
	printf("ignored: %s\n", kind(signal(SIGUSR1, SIG_DFL)));
	sigaction(SIGUSR1, NULL, &now);
	show_action("end", SIGUSR1, &now);
	sigaction(SIGUSR2, NULL, &now);
	show_action("end", SIGUSR2, &now);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "saverestore")) {
		saverestore();
		return 0;
	}
	show();
	if (argc > 2 && !strcmp(argv[1], "exec")) {
		fflush(stdout);
		execvp(argv[2], argv + 2);
		perror("exec");
		return 127;
	}
	return 0;
}
