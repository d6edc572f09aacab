/*
 * staticsleeper.c -- a statically linked program that sleeps SECONDS,
 * for heapprof attach's refusal of a static binary (built -static).
 *
 * usage: staticsleeper SECONDS
 */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int i = argc > 1 ? atoi(argv[1]) : 10; i > 0; i--)
		sleep(1);
	return 0;
}
