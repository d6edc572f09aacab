/* glibc's pthread_create (clone3 since 2.34): N short threads, 8 alive at a
 * time, each allocating on its first call (the registry's first-allocation
 * path) and a few more. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *body(void *arg)
{
	char *p = malloc(24 + ((long)arg & 1023));
	for (int i = 0; i < 20; i++)
		free(malloc(100 + i));
	free(p);
	return arg;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000, sum = 0;
	pthread_t t[8];
	for (long i = 0; i < n; i += 8) {
		for (int k = 0; k < 8; k++)
			pthread_create(&t[k], NULL, body, (void *)(i + k));
		for (int k = 0; k < 8; k++) {
			void *r;
			pthread_join(t[k], &r);
			sum += (long)r;
		}
	}
	printf("%ld threads, sum %ld\n", n, sum);
	return 0;
}
