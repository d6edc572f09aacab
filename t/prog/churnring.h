/*
 * churnring.h -- the churning loop of the test programs that keep threads
 * allocating (busy.c, storm.c): a ring of 256 blocks of 16 B to 4 KiB,
 * each slot freed and allocated again through churn(), until *stop.
 */
#ifndef CHURNRING_H
#define CHURNRING_H

#include <stdint.h>
#include <stdlib.h>

/* One frame of its own, so that the churn has a stack in the dumps. */
__attribute__((noinline)) static void *churn(size_t n)
{
	return malloc(n);
}

/* seed picks the sizes' sequence (a thread's number). */
static void churn_ring(volatile int *stop, uintptr_t seed)
{
	void *ring[256] = { 0 };
	unsigned x = (unsigned)seed * 2654435761u + 1;

	for (unsigned i = 0; !*stop; i++) {
		x = x * 1103515245 + 12345;
		free(ring[i % 256]);
		ring[i % 256] = churn(16 + (x >> 16) % 4096);
	}
	for (int i = 0; i < 256; i++)
		free(ring[i]);
}

#endif
