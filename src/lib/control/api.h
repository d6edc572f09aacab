/*
 * api.h -- the exported control entry points (see api.c, and the public
 * wrapper include/heapprof.h).
 */
#ifndef HP_API_H
#define HP_API_H

#include <stddef.h>

int heapprof_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
	__attribute__((visibility("default")));
int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
	__attribute__((visibility("default")));

#endif
