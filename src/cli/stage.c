/*
 * stage.c -- a private directory of heapprof attach's inside another
 * process's filesystem (a container's), reached from this host through
 * /proc/PID/root (see stage.h).
 *
 * Owns the directory and everything it puts there: copies of
 * libheapprof.so and of the libraries the container lacks, and the unix
 * socket that hands the process the host's dump directory.  The
 * container's files are another party's: every step goes through
 * descriptors, one path component at a time, with O_NOFOLLOW, so that a
 * symbolic link planted in the container (its /tmp pointing at the
 * host's /etc) cannot redirect a write of this command's; the directory
 * is made under a fresh random name (never one that exists), mode 0700,
 * and everything in it is made as the process's own user (the
 * filesystem uid and gid set to its: a container in a user namespace may
 * not hold files of this host's root at all), its files mode 0500.  The
 * directory is locked (flock) while the attach runs: the next attach
 * removes the directories of attaches killed (kill -9) before they
 * removed their own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "procmem.h"
#include "stage.h"

/* Where a private directory may go, best first: tmpfs, then /tmp. */
static const char *const homes[] = { "dev/shm", "tmp", "var/tmp" };

/* Where the container's loader finds a library by soname. */
static const char *const lib_dirs[] = {
	"lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu", "usr/local/lib/x86_64-linux-gnu",
	"lib64", "usr/lib64", "lib", "usr/lib", "usr/local/lib",
};

/* Files made from here on are the process's user's, and its permissions
 * apply; as_self goes back. */
static void as_owner(const struct hp_stage *s)
{
	setfsgid(s->gid);
	setfsuid(s->uid);
}

static void as_self(void)
{
	setfsuid(geteuid());
	setfsgid(getegid());
}

static void why(struct hp_stage *s, const char *fmt, const char *a, int err)
{
	snprintf(s->why, sizeof(s->why), fmt, a, strerror(err));
}

static int open_root(pid_t pid)
{
	char fn[64];

	snprintf(fn, sizeof(fn), "/proc/%d/root", (int)pid);
	return open(fn, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* rel (no leading '/') under dirfd, each component a directory and no
 * symbolic link; -1 with errno. */
static int walk(int dirfd, const char *rel)
{
	char part[256];
	int fd = dup(dirfd);

	for (const char *p = rel; fd >= 0 && *p;) {
		size_t n = strcspn(p, "/");
		if (n >= sizeof(part)) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(part, p, n);
		part[n] = '\0';
		int next = openat(fd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int err = errno;
		close(fd);
		errno = err;
		fd = next;
		p += n + (p[n] == '/');
	}
	return fd;
}

/* A home for the directory: a real directory (no link on the way),
 * writable and not noexec (the loader maps the copies executable). */
static int pick_home(struct hp_stage *s, const char **home)
{
	char seen[512] = "";

	for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++) {
		struct statvfs v;
		int fd = walk(s->root, homes[i]);
		const char *no = NULL;
		if (fd < 0)
			no = errno == ELOOP || errno == ENOTDIR ? "a symbolic link or no directory" : "absent";
		else if (fstatvfs(fd, &v) == 0 && (v.f_flag & ST_NOEXEC))
			no = "noexec";
		else if (fstatvfs(fd, &v) == 0 && (v.f_flag & ST_RDONLY))
			no = "read-only";
		if (!no) {
			*home = homes[i];
			return fd;
		}
		if (fd >= 0)
			close(fd);
		size_t l = strlen(seen);
		snprintf(seen + l, sizeof(seen) - l, "%s/%s %s", l ? "; " : "", homes[i], no);
	}
	snprintf(s->why, sizeof(s->why), "no place for heapprof's files in the process's filesystem (%s)",
		 seen);
	return -1;
}

/* Empties the directory fd (files and sockets only: ours hold nothing
 * else) and closes it. */
static void empty(int fd)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

/* Removes the directories of attaches killed before they removed theirs:
 * a live attach holds a lock on its own (taken right after making it). */
static void sweep(int parent)
{
	int fd = openat(parent, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, ".heapprof-attach.", 17))
			continue;
		int old = openat(parent, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (old < 0)
			continue;
		if (flock(old, LOCK_EX | LOCK_NB) != 0) {
			close(old);
			continue;
		}
		empty(old);
		unlinkat(parent, e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

int hp_stage_make(struct hp_stage *s, pid_t pid, unsigned uid, unsigned gid)
{
	const char *home = NULL;
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->uid = uid;
	s->gid = gid;
	s->root = s->parent = s->dir = -1;
	if ((s->root = open_root(pid)) < 0) {
		why(s, "cannot open the root directory of the process (%s): %s", "/proc/PID/root", errno);
		return -1;
	}
	if ((s->parent = pick_home(s, &home)) < 0)
		return -1;
	sweep(s->parent);
	as_owner(s);
	for (int tries = 0; tries < 16; tries++) {
		unsigned char r[6];
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			break;
		snprintf(s->name, sizeof(s->name), ".heapprof-attach.%02x%02x%02x%02x%02x%02x",
			 r[0], r[1], r[2], r[3], r[4], r[5]);
		if (mkdirat(s->parent, s->name, 0700) == 0)
			break;
		s->name[0] = '\0';
		if (errno != EEXIST) {
			int err = errno;
			as_self();
			snprintf(s->why, sizeof(s->why), "cannot make a directory in the process's /%s as its "
				 "user (uid %u here): %s", home, uid, strerror(err));
			hp_stage_remove(s);
			return -1;
		}
	}
	if (!s->name[0]) {
		as_self();
		snprintf(s->why, sizeof(s->why), "cannot make a directory of a fresh name in the process's /%s",
			 home);
		hp_stage_remove(s);
		return -1;
	}
	s->dir = openat(s->parent, s->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* Ours, just made: a directory of the process's user. */
	int bad = s->dir < 0 || flock(s->dir, LOCK_EX | LOCK_NB) != 0 || fstat(s->dir, &st) != 0 ||
		  !S_ISDIR(st.st_mode) || st.st_uid != uid || fchmod(s->dir, 0700) != 0;
	int err = errno;
	as_self();
	if (bad) {
		why(s, "cannot take the directory made in the process's /%s: %s", home, err);
		hp_stage_remove(s);
		return -1;
	}
	snprintf(s->inside, sizeof(s->inside), "/%s/%s", home, s->name);
	return 0;
}

/* Remembers a name made in the directory, to be removed. */
static void made(struct hp_stage *s, const char *name)
{
	if (s->nfiles < (int)(sizeof(s->files) / sizeof(s->files[0])))
		snprintf(s->files[s->nfiles++], sizeof(s->files[0]), "%s", name);
}

int hp_stage_copy(struct hp_stage *s, const char *from, const char *name, char *inside, size_t cap)
{
	char buf[65536];
	ssize_t n = 0;
	int in = open(from, O_RDONLY | O_CLOEXEC);

	if (in < 0) {
		why(s, "cannot read %s: %s", from, errno);
		return -1;
	}
	as_owner(s);
	int out = openat(s->dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0500);
	as_self();
	if (out < 0) {
		why(s, "cannot stage %s: %s", name, errno);
		close(in);
		return -1;
	}
	made(s, name);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	int err = errno;
	if (n == 0 && fchmod(out, 0500) != 0) {
		n = -1;
		err = errno;
	}
	close(in);
	if (close(out) != 0 && n == 0) {
		n = -1;
		err = errno;
	}
	if (n != 0) {
		why(s, "cannot copy %s into the process's filesystem: %s", from, err);
		return -1;
	}
	snprintf(inside, cap, "%s/%s", s->inside, name);
	return 0;
}

int hp_stage_listen(struct hp_stage *s, char *inside, size_t cap)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	/* Bound through our descriptor of the directory, not a path. */
	snprintf(a.sun_path, sizeof(a.sun_path), "/proc/self/fd/%d/s", s->dir);
	as_owner(s);
	int bound = fd >= 0 ? bind(fd, (struct sockaddr *)&a, sizeof(a)) : -1;
	int err = errno;
	as_self();
	if (bound != 0) {
		why(s, "cannot make a socket in %s: %s", s->inside, err);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	made(s, "s");
	if (listen(fd, 1) != 0) {
		why(s, "cannot set up the socket in %s: %s", s->inside, errno);
		close(fd);
		return -1;
	}
	snprintf(inside, cap, "%s/s", s->inside);
	return fd;
}

/* A regular file at rel in the process's filesystem, its own symbolic
 * links resolved against its own root. */
static bool root_file(int root, const char *rel)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	struct stat st;
	long fd = syscall(SYS_openat2, root, rel, &how, sizeof(how));

	if (fd < 0)
		return false;
	bool reg = fstat((int)fd, &st) == 0 && S_ISREG(st.st_mode);
	close((int)fd);
	return reg;
}

static const char *match_soname;

static bool is_match(const char *base)
{
	size_t n = strlen(match_soname);

	return !strncmp(base, match_soname, n) && (!base[n] || base[n] == '.');
}

bool hp_stage_root_has(pid_t pid, const char *soname)
{
	char rel[PATH_MAX];
	struct hp_pm_object o;
	bool has = false;

	match_soname = soname;
	if (hp_pm_find(pid, is_match, &o))
		return true;   /* loaded already */
	int root = open_root(pid);
	if (root < 0)
		return false;
	for (size_t i = 0; !has && i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/%s", lib_dirs[i], soname);
		has = root_file(root, rel);
	}
	close(root);
	return has;
}

void hp_stage_remove(struct hp_stage *s)
{
	if (s->dir >= 0) {
		for (int i = 0; i < s->nfiles; i++)
			unlinkat(s->dir, s->files[i], 0);
		close(s->dir);
	}
	if (s->parent >= 0 && s->name[0])
		unlinkat(s->parent, s->name, AT_REMOVEDIR);
	if (s->parent >= 0)
		close(s->parent);
	if (s->root >= 0)
		close(s->root);
	s->dir = s->parent = s->root = -1;
	s->nfiles = 0;
	s->name[0] = '\0';
}

bool hp_stage_root_stat(pid_t pid, const char *path, struct stat *st)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	int root = open_root(pid);

	if (root < 0)
		return false;
	while (*path == '/')
		path++;
	long fd = syscall(SYS_openat2, root, *path ? path : ".", &how, sizeof(how));
	close(root);
	if (fd < 0)
		return false;
	bool ok = fstat((int)fd, st) == 0;
	close((int)fd);
	return ok;
}
