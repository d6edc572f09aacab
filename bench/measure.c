/*
 * measure.c -- runs one command and reports its wall time, peak RSS and
 * how it ended, for bench/run.
 *
 * usage: measure [-t SECONDS] [-m MEGABYTES] [-e FILE] [-E NAME=VALUE]... -- COMMAND [ARG]...
 *
 * The command runs in its own process group with standard output on
 * /dev/null and standard error in FILE (default /dev/null).  -t kills the
 * whole group after SECONDS; -m caps each process's address space (so a
 * tool that would take the machine's memory fails alone).  -E sets a
 * variable in the command's environment only (LD_PRELOAD for the command,
 * not for measure).  Prints one
 * line:  <wall seconds> <peak RSS KiB> <ok | exit:N | signal:N | timeout>
 * The peak is the largest of any process in the command's tree that was
 * waited for (RUSAGE_CHILDREN), so a tool's analysis process counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static void usage(void)
{
	fputs("usage: measure [-t SECONDS] [-m MEGABYTES] [-e FILE] [-E NAME=VALUE]... -- COMMAND [ARG]...\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned timeout = 0;
	unsigned long long limit_mb = 0;
	const char *errfile = "/dev/null";
	char *env[64];
	int nenv = 0, c;

	while ((c = getopt(argc, argv, "+t:m:e:E:")) != -1) {
		if (c == 't')
			timeout = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'm')
			limit_mb = strtoull(optarg, NULL, 10);
		else if (c == 'e')
			errfile = optarg;
		else if (c == 'E' && strchr(optarg, '=') && nenv < 64)
			env[nenv++] = optarg;
		else
			usage();
	}
	if (optind >= argc)
		usage();

	double t0 = now();
	pid_t pid = fork();
	if (pid < 0) {
		perror("measure: fork");
		return 1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		int out = open("/dev/null", O_WRONLY);
		int err = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(126);
		if (limit_mb) {
			struct rlimit rl = { limit_mb << 20, limit_mb << 20 };
			setrlimit(RLIMIT_AS, &rl);
		}
		for (int i = 0; i < nenv; i++)
			putenv(env[i]);
		execvp(argv[optind], argv + optind);
		dprintf(2, "measure: cannot run %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	struct sigaction sa = { .sa_handler = on_alarm };
	sigaction(SIGALRM, &sa, NULL);
	alarm(timeout);

	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("measure: waitpid");
			return 1;
		}
		if (timed_out) {
			kill(-pid, SIGKILL);
			timed_out = 2;
		}
	}
	double wall = now() - t0;
	/* Reap what the command left in its group (a tool's helper). */
	kill(-pid, SIGKILL);
	while (waitpid(-pid, NULL, 0) > 0)
		;
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	if (timed_out == 2)
		printf("%.4f %ld timeout\n", wall, ru.ru_maxrss);
	else if (WIFSIGNALED(status))
		printf("%.4f %ld signal:%d\n", wall, ru.ru_maxrss, WTERMSIG(status));
	else if (WEXITSTATUS(status))
		printf("%.4f %ld exit:%d\n", wall, ru.ru_maxrss, WEXITSTATUS(status));
	else
		printf("%.4f %ld ok\n", wall, ru.ru_maxrss);
	return 0;
}
