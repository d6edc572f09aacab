/* close_range: closes every descriptor above 2 at start, again from a
 * second thread while the main thread allocates, and with
 * CLOSE_RANGE_CLOEXEC; prints the numbers open() then returns (a
 * descriptor the profiler kept would move them) and whether a forked
 * child and an exec'd one see the same table. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int cr(unsigned lo, unsigned hi, unsigned fl) { return (int)syscall(SYS_close_range, lo, hi, fl); }

static void *closer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++)
		cr(3, ~0U, 0);
	return NULL;
}

static int count_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 4096; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

int main(void)
{
	if (cr(3, ~0U, 0)) { perror("close_range"); return 2; }
	int a = open("/dev/null", O_RDONLY);
	printf("after close_range: open -> %d, %d fds\n", a, count_fds());
	pthread_t t;
	pthread_create(&t, NULL, closer, NULL);
	long s = 0;
	for (int i = 0; i < 200000; i++) {
		char *p = malloc(16 + i % 5000);
		s += p[0] = (char)i;
		free(p);
	}
	pthread_join(t, NULL);
	int b = open("/dev/null", O_RDONLY), c = dup(b);
	printf("after threads: open -> %d, dup -> %d, %d fds\n", b, c, count_fds());
	cr(3, ~0U, CLOSE_RANGE_CLOEXEC);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 1000; i++) free(malloc(i));
		printf("fork child: %d fds\n", count_fds());
		fflush(stdout);
		execl("/bin/sh", "sh", "-c", "ls /proc/self/fd | wc -l | sed 's/^/exec child: fds incl. ls own: /'", (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	cr(0, ~0U, CLOSE_RANGE_UNSHARE);   /* closes stdio too */
	for (int i = 0; i < 100000; i++) free(malloc(64));
	return 3;
}
