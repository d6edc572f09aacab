/*
 * cgroup.c -- memory use against the cgroup limit (see cgroup.h).
 *
 * Owns nothing.  Runs on the helper thread.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control/cgroup.h"
#include "base/fmt.h"
#include "base/banned.h"

static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Reads "12345\n" (or "max\n": unlimited). */
static bool read_number(const char *path, int64_t *out)
{
	char buf[64];
	char *end;

	if (read_small(path, buf, sizeof(buf)) <= 0 || !strncmp(buf, "max", 3))
		return false;
	long long v = strtoll(buf, &end, 10);
	if (end == buf || v < 0)
		return false;
	*out = v;
	return true;
}

/* The mount point of the hierarchy that has the memory controller (v1)
 * or of cgroup2 (v2), from /proc/self/mountinfo. */
static bool mount_point(int version, char *out, size_t cap)
{
	static char buf[65536];
	ssize_t n = read_small("/proc/self/mountinfo", buf, sizeof(buf));

	if (n <= 0)
		return false;
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		/* "id parent maj:min root mountpoint opts... - fstype source superopts" */
		char *dash = strstr(line, " - ");
		if (dash) {
			char *fields[6] = { 0 };
			char *p = line;
			for (int i = 0; i < 5 && p; i++) {
				fields[i] = p;
				p = strchr(p, ' ');
				if (p)
					*p++ = '\0';
			}
			const char *fstype = dash + 3;
			int v2 = !strncmp(fstype, "cgroup2 ", 8);
			int v1mem = !strncmp(fstype, "cgroup ", 7) &&
				    (strstr(dash, ",memory") || strstr(dash, " memory"));
			if (fields[4] && ((version == 2 && v2) || (version == 1 && v1mem))) {
				hp_fmt(out, cap, "%s", fields[4]);
				return true;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

bool hp_cgroup_find(struct hp_cgroup *cg)
{
	char buf[8192], mnt[1024];
	ssize_t n = read_small("/proc/self/cgroup", buf, sizeof(buf));

	memset(cg, 0, sizeof(*cg));
	if (n <= 0)
		return false;
	/* Lines "hierarchy-ID:controllers:path"; v1's memory line first, else
	 * v2's "0::path". */
	const char *v1path = NULL, *v2path = NULL;
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (c2) {
			*c2 = '\0';
			const char *ctrls = c1 + 1;
			if (!strcmp(line, "0") && !*ctrls)
				v2path = c2 + 1;
			else if (!strcmp(ctrls, "memory") || strstr(ctrls, "memory,") ||
				 strstr(ctrls, ",memory"))
				v1path = c2 + 1;
		}
		line = nl ? nl + 1 : NULL;
	}
	if (v2path && mount_point(2, mnt, sizeof(mnt))) {
		hp_fmt(cg->usage_path, sizeof(cg->usage_path), "%s%s/memory.current", mnt, v2path);
		hp_fmt(cg->limit_path, sizeof(cg->limit_path), "%s%s/memory.max", mnt, v2path);
		if (access(cg->usage_path, R_OK) == 0) {
			cg->version = 2;
			cg->found = true;
			return true;
		}
	}
	if (v1path && mount_point(1, mnt, sizeof(mnt))) {
		hp_fmt(cg->usage_path, sizeof(cg->usage_path), "%s%s/memory.usage_in_bytes", mnt, v1path);
		hp_fmt(cg->limit_path, sizeof(cg->limit_path), "%s%s/memory.limit_in_bytes", mnt, v1path);
		if (access(cg->usage_path, R_OK) == 0) {
			cg->version = 1;
			cg->found = true;
			return true;
		}
	}
	return false;
}

bool hp_cgroup_read(const struct hp_cgroup *cg, int64_t *usage, int64_t *limit)
{
	if (!cg->found || !read_number(cg->limit_path, limit) || !read_number(cg->usage_path, usage))
		return false;
	/* v1 writes "no limit" as a huge page-rounded number. */
	return *limit > 0 && *limit < ((int64_t)1 << 62);
}
