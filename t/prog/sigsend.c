/*
 * sigsend.c -- sends signals to a process from outside, one at a time:
 * after each, it waits until the signal is no longer pending for the
 * process (ShdPnd in /proc/PID/status), so that none coalesces with the
 * next and every one sent is one delivered.  The signals given are sent
 * in turn, COUNT of each, GAP_US microseconds apart.
 *
 * Prints "sent SIG=N ..." and "stuck=S" (signals still pending after 5
 * s, not waited for further); exits 1 if the process went away.
 *
 * usage: sigsend PID COUNT GAP_US SIG...   (SIG: a number)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Whether sig is pending for the whole process; -1 if it is gone. */
static int pending(const char *path, int sig)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *p = strstr(buf, "ShdPnd:");
	if (!p)
		return -1;
	unsigned long long mask = strtoull(p + 7, NULL, 16);
	return (mask >> (sig - 1)) & 1;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: sigsend PID COUNT GAP_US SIG...\n");
		return 2;
	}
	pid_t pid = (pid_t)atoi(argv[1]);
	long count = atol(argv[2]), gap = atol(argv[3]);
	int nsig = argc - 4, sigs[64];
	struct timespec between = { gap / 1000000, gap % 1000000 * 1000 };
	long sent[64] = { 0 }, stuck = 0;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	for (int i = 0; i < nsig && i < 64; i++)
		sigs[i] = atoi(argv[4 + i]);
	for (long k = 0; k < count; k++) {
		for (int i = 0; i < nsig; i++) {
			if (kill(pid, sigs[i]) != 0) {
				fprintf(stderr, "sigsend: kill %d: %s\n", (int)pid, strerror(errno));
				return 1;
			}
			sent[i]++;
			struct timespec t0, t1, nap = { 0, 20000 };
			clock_gettime(CLOCK_MONOTONIC, &t0);
			int p;
			while ((p = pending(path, sigs[i])) == 1) {
				clock_gettime(CLOCK_MONOTONIC, &t1);
				if (t1.tv_sec - t0.tv_sec >= 5) {
					stuck++;
					break;
				}
				nanosleep(&nap, NULL);
			}
			if (p < 0) {
				fprintf(stderr, "sigsend: process %d is gone\n", (int)pid);
				return 1;
			}
			if (gap > 0)
				nanosleep(&between, NULL);
		}
	}
	printf("sent");
	for (int i = 0; i < nsig; i++)
		printf(" %d=%ld", sigs[i], sent[i]);
	printf("\nstuck=%ld\n", stuck);
	return 0;
}
