/*
 * cgroup.h -- the memory use and limit of the cgroup this process is in.
 *
 * cgroup v2 (memory.current, memory.max) and v1 (memory.usage_in_bytes,
 * memory.limit_in_bytes), found through /proc/self/cgroup and
 * /proc/self/mountinfo.  Without a memory controller, or with no limit,
 * there is nothing to report.  Plain reads of small files; no allocation.
 */
#ifndef HP_CGROUP_H
#define HP_CGROUP_H

#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct hp_cgroup {
	bool found;
	int version;               /* 1 or 2 */
	char usage_path[4096];
	char limit_path[4096];
};

/* Finds this process's memory cgroup.  False if there is none. */
bool hp_cgroup_find(struct hp_cgroup *cg);
/* Current usage and limit in bytes; false if unreadable or unlimited. */
bool hp_cgroup_read(const struct hp_cgroup *cg, int64_t *usage, int64_t *limit);

#pragma GCC visibility pop

#endif
