/* fork in a multi-threaded program, then allocate in the child: 6 threads
 * churn malloc/free/realloc while the main thread forks 300 times; each
 * child allocates, starts a thread that allocates, joins it and exits
 * through exit() (exit handlers run), with a status the parent checks. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int stop;

static void *churn(void *arg)
{
	long k = (long)arg;
	while (!stop) {
		char *p = malloc(16 + (k * 97) % 4000);
		p = realloc(p, 8000);
		free(p);
		k++;
	}
	return NULL;
}

static void *kid_thread(void *arg)
{
	for (int i = 0; i < 500; i++) free(malloc(64 + i));
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300, bad = 0;
	pthread_t t[6];
	for (long i = 0; i < 6; i++) pthread_create(&t[i], NULL, churn, (void *)i);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			char *s = malloc(1000);
			memset(s, 'x', 999); s[999] = 0;
			pthread_t kt;
			void *r;
			pthread_create(&kt, NULL, kid_thread, (void *)(long)(i % 5));
			pthread_join(kt, &r);
			free(s);
			exit((int)(long)r);
		}
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid) { bad++; continue; }
		bad += !(WIFEXITED(st) && WEXITSTATUS(st) == i % 5);
	}
	stop = 1;
	for (int i = 0; i < 6; i++) pthread_join(t[i], NULL);
	printf("%d forks from a 7-thread process: %d bad\n", n, bad);
	return bad != 0;
}
