/* Small stacks: threads created with a PTHREAD_STACK_MIN (16 KiB) stack
 * that allocate from a few frames down, and a signal handler on a
 * SIGSTKSZ alternate stack that allocates (as crash reporters do, through
 * backtrace_symbols or strdup).  Bare glibc's malloc needs well under a
 * KiB of stack for these. */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;
static size_t pad_bytes = 2048;

static void *worker(void *arg)
{
	long n = (long)arg, s = 0;
	/* the thread's own frames use some: PAD bytes (argv[2], default 2048) */
	size_t padn = pad_bytes;
	char *pad = __builtin_alloca(padn);
	memset(pad, 1, padn);
	for (long i = 0; i < n; i++) {
		char *p = malloc(16 + (i * 131) % 3000);
		p[0] = pad[i % padn];
		s += p[0];
		free(p);
	}
	sink += s;
	return NULL;
}

static volatile sig_atomic_t handled;
static void on_usr2(int sig)
{
	(void)sig;
	char *p = strdup("allocated on the alternate stack");
	char *q = malloc(100000);
	q[0] = p[0];
	sink += q[0];
	free(q);
	free(p);
	handled++;
}

int main(int argc, char **argv)
{
	size_t stack = argc > 1 ? strtoul(argv[1], 0, 0) : PTHREAD_STACK_MIN;
	int threads = 64;
	if (argc > 2)
		pad_bytes = strtoul(argv[2], 0, 0);
	pthread_attr_t a;
	pthread_attr_init(&a);
	if (pthread_attr_setstacksize(&a, stack)) { perror("setstacksize"); return 2; }
	for (int r = 0; r < threads; r++) {
		pthread_t t;
		if (pthread_create(&t, &a, worker, (void *)2000L)) { perror("pthread_create"); return 2; }
		pthread_join(t, NULL);
	}
	printf("threads with %zu-byte stacks: ok\n", stack);

	stack_t ss = { .ss_sp = malloc(SIGSTKSZ), .ss_size = SIGSTKSZ };
	sigaltstack(&ss, NULL);
	struct sigaction sa = { .sa_handler = on_usr2, .sa_flags = SA_ONSTACK };
	sigaction(SIGUSR2, &sa, NULL);
	for (int i = 0; i < 200; i++)
		raise(SIGUSR2);
	printf("handler on a %d-byte alternate stack: %d runs\n", (int)SIGSTKSZ, (int)handled);
	return 0;
}
