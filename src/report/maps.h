/*
 * maps.h -- the MAPPED_LIBRARIES section of a dump: /proc/<pid>/maps
 * lines, parsed and searchable by address.
 */
#ifndef HP_REPORT_MAPS_H
#define HP_REPORT_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "strtab.h"

enum hp_map_kind {
	HP_MAP_ANON,	/* no path: anonymous memory */
	HP_MAP_SPECIAL,	/* [vdso], [heap], [stack], ... */
	HP_MAP_FILE,	/* an absolute path: a file mapping */
};

struct hp_map {
	uint64_t start, end, offset, inode;
	unsigned dev_major, dev_minor;
	char perms[5];		/* "r-xp" */
	enum hp_map_kind kind;
	int deleted;		/* the path ended in " (deleted)" */
	const char *path;	/* interned; "" for anonymous */
	const char *build_id;	/* the object's, in lower-case hex, interned;
				 * NULL when the dump does not say */
};

/*
 * Parses one maps line ("start-end perms offset dev inode   path") of
 * length n into *m, interning the path in strs.  Returns NULL on success,
 * else a short description of what is wrong (for "line N: ..." errors).
 */
const char *hp_maps_parse_line(const char *line, size_t n, struct hp_map *m,
			       struct hp_strtab *strs);

/* Sorts maps by start address, for hp_maps_find. */
void hp_maps_sort(struct hp_map *maps, size_t n);

/* The mapping that contains addr in sorted maps, or NULL. */
const struct hp_map *hp_maps_find(const struct hp_map *maps, size_t n, uint64_t addr);

/* The last path component of a mapping's path ("libc.so.6"). */
const char *hp_maps_basename(const char *path);

#endif
