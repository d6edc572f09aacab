/* vfork + exec storms: 4 threads each posix_spawn /bin/true N times while
 * 2 threads churn malloc/free, and the main thread vforks children that
 * exec at once; then a vfork child that calls _exit without exec. */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static int n = 200;
static volatile int stop;

static void *spawner(void *arg)
{
	long bad = 0;
	(void)arg;
	for (int i = 0; i < n; i++) {
		pid_t pid;
		char *argv[] = { "/bin/true", NULL };
		if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ)) { bad++; continue; }
		int st;
		waitpid(pid, &st, 0);
		bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	return (void *)bad;
}

static void *churn(void *arg)
{
	(void)arg;
	while (!stop)
		free(malloc(1000));
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1) n = atoi(argv[1]);
	pthread_t s[4], c[2];
	for (int i = 0; i < 2; i++) pthread_create(&c[i], NULL, churn, NULL);
	for (int i = 0; i < 4; i++) pthread_create(&s[i], NULL, spawner, NULL);
	long bad = 0;
	for (int i = 0; i < n; i++) {
		pid_t pid = vfork();
		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		int st;
		waitpid(pid, &st, 0);
		bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	for (int i = 0; i < 4; i++) { void *r; pthread_join(s[i], &r); bad += (long)r; }
	stop = 1;
	for (int i = 0; i < 2; i++) pthread_join(c[i], NULL);
	pid_t pid = vfork();
	if (pid == 0)
		_exit(7);
	int st;
	waitpid(pid, &st, 0);
	printf("%d spawns x 4 threads + %d vforks: %ld bad; vfork _exit status %d\n", n, n, bad, WEXITSTATUS(st));
	return 0;
}
