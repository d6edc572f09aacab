/*
 * needed.h -- the shared libraries an object needs, found on this host,
 * in the order they can be loaded (each after those it needs): what
 * heapprof attach stages into a container that lacks them (stage.h).
 */
#ifndef HP_CLI_NEEDED_H
#define HP_CLI_NEEDED_H

#include <limits.h>

#define HP_NEEDED_MAX 32

struct hp_needed {
	struct {
		char soname[128];       /* as DT_NEEDED names it */
		char path[PATH_MAX];    /* the file on this host */
	} lib[HP_NEEDED_MAX];
	int n;
	char why[PATH_MAX + 128];   /* when hp_needed_list failed */
};

/* Every object lib needs, directly or not, but the C library and the
 * loader, into nd, dependencies first.  Returns 0, or -1 with nd->why
 * (an object not found, not ELF, too many). */
int hp_needed_list(const char *lib, struct hp_needed *nd);

#endif
