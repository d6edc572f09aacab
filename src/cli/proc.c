/*
 * proc.c -- inspecting running processes for the heapprof command (see
 * proc.h).
 *
 * Owns nothing.  Reads /proc and the state files the library publishes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "bellpage.h"

/* A field of /proc/pid/status ("SigCgt:", "Uid:"), into buf. */
static bool status_field(pid_t pid, const char *key, char *buf, size_t cap);

pid_t hp_proc_nspid(pid_t pid)
{
	char v[256];

	if (!status_field(pid, "NSpid:", v, sizeof(v)))
		return pid;
	const char *last = strrchr(v, '\t');
	long n = atol(last ? last + 1 : v);
	return n > 0 ? (pid_t)n : pid;
}

/* Whether the two paths name different files (or one is unreadable). */
static bool differ(const char *a, const char *b)
{
	struct stat x, y;

	return stat(a, &x) != 0 || stat(b, &y) != 0 || x.st_dev != y.st_dev || x.st_ino != y.st_ino;
}

bool hp_proc_other_fs(pid_t pid)
{
	char root[64], mnt[64];

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	snprintf(mnt, sizeof(mnt), "/proc/%d/ns/mnt", (int)pid);
	return (access(mnt, F_OK) == 0 && differ("/proc/self/ns/mnt", mnt)) ||
	       (access(root, F_OK) == 0 && differ("/", root));
}

/* "/proc/self/fd/N/rest": the directory pid holds on N, here. */
static bool fd_dir_path(pid_t pid, const char *in, char *out, size_t cap)
{
	static const char head[] = "/proc/self/fd/";
	char link[64], dir[PATH_MAX];
	char *end;

	if (strncmp(in, head, sizeof(head) - 1))
		return false;
	long fd = strtol(in + sizeof(head) - 1, &end, 10);
	if (end == in + sizeof(head) - 1 || (*end && *end != '/') || fd < 0)
		return false;
	snprintf(link, sizeof(link), "/proc/%d/fd/%ld", (int)pid, fd);
	ssize_t n = readlink(link, dir, sizeof(dir) - 1);
	if (n <= 0)
		return false;
	dir[n] = '\0';
	if (dir[0] != '/' || strstr(dir, " (deleted)"))
		return false;
	snprintf(out, cap, "%s%s", strcmp(dir, "/") ? dir : "", *end ? end : "");
	return true;
}

void hp_proc_host_path(pid_t pid, const char *in, char *out, size_t cap)
{
	char tmp[PATH_MAX];

	if (fd_dir_path(pid, in, tmp, sizeof(tmp)))
		snprintf(out, cap, "%s", tmp);
	else if (!in[0] || !hp_proc_other_fs(pid))
		snprintf(out, cap, "%s", in);
	else if (in[0] == '/')
		snprintf(out, cap, "/proc/%d/root%s", (int)pid, in);
	else
		snprintf(out, cap, "/proc/%d/cwd/%s", (int)pid, in);
}

/* A path of pid's memory map, here.  The kernel writes them from the
 * root of pid's mount namespace, not from pid's own root (a chroot
 * inside it): that root's path (what /proc/pid/root reads) is cut off
 * first. */
static void maps_path(pid_t pid, const char *in, char *out, size_t cap)
{
	char link[64], root[PATH_MAX];

	snprintf(link, sizeof(link), "/proc/%d/root", (int)pid);
	ssize_t n = hp_proc_other_fs(pid) ? readlink(link, root, sizeof(root) - 1) : -1;
	if (n > 1) {
		root[n] = '\0';
		if (!strncmp(in, root, (size_t)n) && in[n] == '/')
			in += n;
	}
	hp_proc_host_path(pid, in, out, cap);
}

bool hp_proc_has_heapprof(pid_t pid)
{
	static const char tail[] = " (deleted)\n";
	char path[64], line[4096];
	bool found = false;
	long unlinked[8];   /* the pids of the unlinked bells it maps */
	int nun = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line), tl = sizeof(tail) - 1;
		found |= strstr(line, "/libheapprof.so") != NULL;
		/* heapprof detach unlinks the bell and leaves its page: the
		 * library is there, inert (a running preloaded process never
		 * unlinks its own). */
		char *b = strstr(line, "/bell.");
		if (b && n >= tl && !strcmp(line + n - tl, tail) && nun < 8)
			unlinked[nun++] = atol(b + 6);
	}
	fclose(f);
	/* Its own pid names its bell (a container's pid namespace's): read
	 * only for a process with heapprof. */
	pid_t own = found && nun ? hp_proc_nspid(pid) : 0;
	bool inert = false;
	for (int i = 0; i < nun; i++)
		inert |= unlinked[i] == own;
	errno = 0;
	return found && !inert;
}

void hp_proc_program(pid_t pid, char *buf, size_t cap)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, buf, cap - 1);
	if (n > 0) {
		buf[n] = '\0';
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(path, "re");
	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)cap, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	if (!buf[0])
		snprintf(buf, cap, "?");
}

static bool status_field(pid_t pid, const char *key, char *buf, size_t cap)
{
	char path[64], line[512];
	bool found = false;
	size_t klen = strlen(key);

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen)) {
			char *v = line + klen;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(buf, cap, "%s", v);
			found = true;
		}
	fclose(f);
	return found;
}

bool hp_proc_owner(pid_t pid, unsigned *uid)
{
	char v[64];

	return status_field(pid, "Uid:", v, sizeof(v)) && sscanf(v, "%*u %u", uid) == 1;
}

/* The bit for sig in a mask of /proc/.../status ("SigBlk:", ...). */
static bool mask_has(const char *mask, int sig)
{
	return (strtoull(mask, NULL, 16) >> (sig - 1)) & 1;
}

bool hp_proc_blocked_everywhere(pid_t pid, int sig)
{
	char dir[64], path[PATH_MAX], line[512];
	bool unblocked = false;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return false;
	struct dirent *e;
	while (!unblocked && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/status", dir, e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		bool ours = false, blocked = true;
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "Name:\theapprof\n", 15))
				ours = true;
			else if (!strncmp(line, "SigBlk:", 7))
				blocked = mask_has(line + 7 + strspn(line + 7, " \t"), sig);
		}
		fclose(f);
		unblocked = !ours && !blocked;
	}
	closedir(d);
	return !unblocked;
}

bool hp_proc_catches(pid_t pid, int sig)
{
	char mask[64];

	if (sig < 1 || sig > 64 || !status_field(pid, "SigCgt:", mask, sizeof(mask)))
		return false;
	unsigned long long bits = strtoull(mask, NULL, 16);
	return (bits >> (sig - 1)) & 1;
}

bool hp_proc_parse_state(const char *path, struct hp_proc_state *st)
{
	char line[PATH_MAX + 64];

	memset(st, 0, sizeof(*st));
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	snprintf(st->path, sizeof(st->path), "%s", path);
	st->active = -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		const char *k = line, *v = eq + 1;
		if (!strcmp(k, "pid"))
			st->pid = (pid_t)atoi(v);
		else if (!strcmp(k, "starttime"))
			st->starttime = strtoull(v, NULL, 10);
		else if (!strcmp(k, "program"))
			snprintf(st->program, sizeof(st->program), "%s", v);
		else if (!strcmp(k, "prefix"))
			snprintf(st->prefix, sizeof(st->prefix), "%s", v);
		else if (!strcmp(k, "active"))
			st->active = atoi(v);
		else if (!strcmp(k, "lg_prof_sample"))
			st->lg_prof_sample = atoi(v);
		else if (!strcmp(k, "signal_dump"))
			st->signal_dump = atoi(v);
		else if (!strcmp(k, "signal_toggle"))
			st->signal_toggle = atoi(v);
		else if (!strcmp(k, "signal_control")) {
			st->has_control = true;
			st->signal_control = atoi(v);
		}
		else if (!strcmp(k, "dumps"))
			st->dumps = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(k, "last_dump"))
			snprintf(st->last_dump, sizeof(st->last_dump), "%s", v);
		else if (!strcmp(k, "live_bytes"))
			st->live_bytes = atoll(v);
		else if (!strcmp(k, "started"))
			snprintf(st->started, sizeof(st->started), "%s", v);
		else if (!strcmp(k, "attached"))
			st->attached = atoi(v) == 1;
	}
	fclose(f);
	st->found = st->pid > 0;
	st->nspid = st->pid;
	return st->found;
}

bool hp_proc_program_named(char *const *names, size_t n, const char *program)
{
	const char *base = strrchr(program, '/');

	base = base ? base + 1 : program;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], base) || !strcmp(names[i], program))
			return true;
	return !n;
}

/* HEAPPROF_RUNTIME_DIR from pid's environment, if we may read it. */
static bool env_runtime_dir(pid_t pid, char *buf, size_t cap)
{
	char path[64], env[65536];

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(env, 1, sizeof(env) - 1, f);
	fclose(f);
	env[n] = '\0';
	for (size_t i = 0; i < n; i += strlen(env + i) + 1)
		if (!strncmp(env + i, "HEAPPROF_RUNTIME_DIR=", 21) && env[i + 21]) {
			snprintf(buf, cap, "%s", env + i + 21);
			return true;
		}
	return false;
}

bool hp_proc_bell_path(pid_t pid, char *buf, size_t cap, unsigned long *inode)
{
	char path[64], line[PATH_MAX + 256], tail[48];
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	snprintf(tail, sizeof(tail), "/bell.%d\n", (int)hp_proc_nspid(pid));
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	size_t tl = strlen(tail);
	while (!found && fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		char *file = strchr(line, '/');
		if (n < tl || strcmp(line + n - tl, tail) || !file)
			continue;
		line[n - 1] = '\0';
		maps_path(pid, file, buf, cap);
		if (inode && sscanf(line, "%*s %*s %*s %*s %lu", inode) != 1)
			continue;
		found = true;
	}
	fclose(f);
	return found;
}

/* The runtime directory the library of pid uses: its bell's, read from
 * its memory map, whatever the program did to its environment (a process
 * title written over it). */
static bool bell_runtime_dir(pid_t pid, char *buf, size_t cap)
{
	char bell[PATH_MAX];

	if (!hp_proc_bell_path(pid, bell, sizeof(bell), NULL))
		return false;
	char *slash = strrchr(bell, '/');
	if (!slash || slash == bell)
		return false;
	*slash = '\0';
	snprintf(buf, cap, "%s", bell);
	return true;
}

void hp_proc_fresh_live(struct hp_proc_state *st)
{
	char path[PATH_MAX];
	unsigned long inode;
	struct hp_bell b;
	struct stat sb;

	if (!hp_proc_bell_path(st->pid, path, sizeof(path), &inode))
		return;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &sb) == 0 && sb.st_ino == inode && pread(fd, &b, sizeof(b), 0) == (ssize_t)sizeof(b) &&
	    b.magic == HP_BELL_MAGIC && b.version == HP_BELL_VERSION && b.pid == (uint32_t)st->nspid)
		st->live_bytes = b.live_bytes;
	close(fd);
}

bool hp_proc_read_state(pid_t pid, struct hp_proc_state *st)
{
	char dir[PATH_MAX], own[PATH_MAX], uid[64], path[PATH_MAX + 32], tmp[PATH_MAX];
	pid_t nspid = hp_proc_nspid(pid);

	/* The bell's path is already one of ours; the others are the
	 * process's. */
	if (!bell_runtime_dir(pid, dir, sizeof(dir))) {
		if (!env_runtime_dir(pid, own, sizeof(own))) {
			unsigned u = (unsigned)geteuid();
			if (status_field(pid, "Uid:", uid, sizeof(uid)))
				sscanf(uid, "%*u %u", &u);   /* the effective uid */
			snprintf(own, sizeof(own), "/tmp/heapprof-%u", u);
		}
		hp_proc_host_path(pid, own, dir, sizeof(dir));
	}
	snprintf(path, sizeof(path), "%s/%d", dir, (int)nspid);
	if (!hp_proc_parse_state(path, st) || st->pid != nspid)
		return false;
	st->pid = pid;
	snprintf(tmp, sizeof(tmp), "%s", st->prefix);
	hp_proc_host_path(pid, tmp, st->prefix, sizeof(st->prefix));
	snprintf(tmp, sizeof(tmp), "%s", st->last_dump);
	hp_proc_host_path(pid, tmp, st->last_dump, sizeof(st->last_dump));
	hp_proc_fresh_live(st);
	return true;
}

unsigned long long hp_proc_starttime(pid_t pid)
{
	char path[64], line[1024];
	unsigned long long v = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f)) {
		/* After the command name, which may hold anything: its last ')'. */
		char *p = strrchr(line, ')');
		for (int field = 2; p && *p && field < 22; p++)
			if (*p == ' ')
				field++;
		if (p)
			v = strtoull(p, NULL, 10);
	}
	fclose(f);
	return v;
}

bool hp_proc_is_zombie(pid_t pid, pid_t *parent)
{
	char path[64], line[1024];
	bool zombie = false;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(line, sizeof(line), f)) {
		/* "pid (comm) state ppid ...": the state follows the last ')'. */
		char *p = strrchr(line, ')');
		char state;
		if (p && sscanf(p + 1, " %c %d", &state, &ppid) == 2)
			zombie = state == 'Z';
	}
	fclose(f);
	if (parent)
		*parent = (pid_t)ppid;
	return zombie;
}

/* Calls fn for each file matching tail in the runtime directories. */
static void each_in_runtime_dirs(const char *tail, void (*fn)(const char *path, void *arg), void *arg)
{
	char pattern[PATH_MAX + 32];
	const char *env = getenv("HEAPPROF_RUNTIME_DIR");
	glob_t g;

	if (env && *env)
		snprintf(pattern, sizeof(pattern), "%s/%s", env, tail);
	else if (geteuid() == 0)
		snprintf(pattern, sizeof(pattern), "/tmp/heapprof-*/%s", tail);
	else
		snprintf(pattern, sizeof(pattern), "/tmp/heapprof-%u/%s", (unsigned)geteuid(), tail);
	if (glob(pattern, GLOB_PERIOD, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			fn(g.gl_pathv[i], arg);
		globfree(&g);
	}
}

void hp_proc_each_state(void (*fn)(const char *path, void *arg), void *arg)
{
	each_in_runtime_dirs("[0-9]*", fn, arg);
}

void hp_proc_each_temp(void (*fn)(const char *path, void *arg), void *arg)
{
	each_in_runtime_dirs(".bell.[0-9]*.tmp", fn, arg);
	each_in_runtime_dirs(".[0-9]*.tmp", fn, arg);
}

void hp_proc_each_bell(void (*fn)(const char *path, void *arg), void *arg)
{
	each_in_runtime_dirs("bell.[0-9]*", fn, arg);
}
