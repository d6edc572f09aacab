/*
 * attachct.c -- heapprof attach's side of a process in a container (see
 * attachct.h): what is done before the process is stopped, and the
 * host's end of the directory passed to it.
 *
 * Owns the descriptors of the host's dump directory and of the socket it
 * goes through, and the stage directory (stage.c) while the attach runs.
 * Nothing here touches the process's memory or threads (cmd_attach.c and
 * inject.c do).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attachct.h"
#include "proc.h"

/* Sets c->why; returns 1. */
__attribute__((format(printf, 2, 3))) static int say(struct hp_attachct *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return 1;
}

/* The process's effective uid and gid, as this host numbers them (a
 * container's user namespace maps them). */
static void ids_of(pid_t pid, unsigned *uid, unsigned *gid)
{
	char fn[64], line[256];

	*uid = *gid = 0;
	snprintf(fn, sizeof(fn), "/proc/%d/status", (int)pid);
	FILE *f = fopen(fn, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Uid:", 4))
			sscanf(line + 4, "%*u %u", uid);
		else if (!strncmp(line, "Gid:", 4))
			sscanf(line + 4, "%*u %u", gid);
	}
	if (f)
		fclose(f);
}

/* Whether the process shares our user namespace. */
static bool same_userns(pid_t pid)
{
	char fn[64];
	struct stat a, b;

	snprintf(fn, sizeof(fn), "/proc/%d/ns/user", (int)pid);
	return stat("/proc/self/ns/user", &a) == 0 && stat(fn, &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

/* The last prof_prefix of the -c list, or NULL. */
static const char *conf_prefix(const char *conf, char *buf, size_t cap)
{
	const char *found = NULL;

	for (const char *p = conf; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n > 12 && !strncmp(p, "prof_prefix:", 12)) {
			snprintf(buf, cap, "%.*s", (int)(n - 12), p + 12);
			found = buf;
		}
		p += n + (p[n] == ',');
	}
	return found;
}

/* Makes dir and its missing parents (the last one the process's). */
static int make_dirs(const char *dir, unsigned uid, unsigned gid)
{
	char d[PATH_MAX];

	snprintf(d, sizeof(d), "%s", dir);
	for (char *p = d + 1;; p++)
		if (*p == '/' || !*p) {
			char c = *p;
			*p = '\0';
			if (mkdir(d, 0700) == 0 && !c && chown(d, uid, gid) != 0)
				return -1;
			if (errno != EEXIST && access(d, F_OK) != 0)
				return -1;
			*p = c;
			if (!c)
				return 0;
		}
}

/* Whether uid:gid may make files in the directory st (root: in our user
 * namespace only; a container's root is an ordinary user here). */
static bool writable_by(const struct stat *st, unsigned uid, unsigned gid, bool userns)
{
	if (uid == 0 && userns)
		return true;
	if (st->st_uid == uid)
		return (st->st_mode & 0300) == 0300;
	if (st->st_gid == gid)
		return (st->st_mode & 0030) == 0030;
	return (st->st_mode & 0003) == 0003;
}

/* Decides whether the prefix's directory must be passed, and opens it. */
static int plan_dump_dir(pid_t pid, const char *conf, struct hp_attachct *c, unsigned uid, unsigned gid)
{
	char prefix[PATH_MAX];
	struct stat here, there;

	if (!conf_prefix(conf, prefix, sizeof(prefix)) || prefix[0] != '/' || !hp_proc_other_fs(pid))
		return 0;   /* the process's own terms: relative, or its root is ours */
	char *slash = strrchr(prefix, '/');
	snprintf(c->base, sizeof(c->base), "%s", slash + 1);
	snprintf(c->hostdir, sizeof(c->hostdir), "%.*s", (int)(slash - prefix), prefix);
	if (!c->hostdir[0])
		snprintf(c->hostdir, sizeof(c->hostdir), "/");
	if (strchr(c->hostdir, '%'))
		return say(c, "prof_prefix %s: process %d has another filesystem (a container): the "
			    "directory of its prefix is this host's, and cannot hold %% expansions", prefix, (int)pid);
	if (make_dirs(c->hostdir, uid, gid) != 0 || stat(c->hostdir, &here) != 0)
		return say(c, "prof_prefix %s: cannot make %s: %s", prefix, c->hostdir, strerror(errno));
	if (hp_stage_root_stat(pid, c->hostdir, &there) && here.st_dev == there.st_dev &&
	    here.st_ino == there.st_ino)
		return 0;   /* it sees the same directory there */
	if (!S_ISDIR(here.st_mode))
		return say(c, "prof_prefix %s: %s is not a directory", prefix, c->hostdir);
	if (!writable_by(&here, uid, gid, same_userns(pid)))
		return say(c, "prof_prefix %s: process %d (uid %u on this host%s) cannot write in %s: give it "
			    "that user, or choose another directory", prefix, (int)pid, uid,
			    same_userns(pid) ? "" : ", in a user namespace", c->hostdir);
	c->dirfd = open(c->hostdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->dirfd < 0)
		return say(c, "prof_prefix %s: cannot open %s: %s", prefix, c->hostdir, strerror(errno));
	c->pass_dir = true;
	return 0;
}

/* Copies the library, and those it needs that the process's filesystem
 * lacks, into the stage directory. */
static int stage_library(pid_t pid, const char *lib, struct hp_attachct *c)
{
	static struct hp_needed nd;

	if (hp_needed_list(lib, &nd) != 0)
		return say(c, "process %d: %s", (int)pid, nd.why);
	for (int i = 0; i <= nd.n; i++) {
		const char *from = i < nd.n ? nd.lib[i].path : lib;
		const char *name = i < nd.n ? nd.lib[i].soname : "libheapprof.so";
		if (i < nd.n && hp_stage_root_has(pid, name))
			continue;
		if (hp_stage_copy(&c->st, from, name, c->path[c->n], sizeof(c->path[0])) != 0)
			return say(c, "process %d: %s", (int)pid, c->st.why);
		snprintf(c->from[c->n++], sizeof(c->from[0]), "%s", from);
	}
	return 0;
}

int hp_attachct_prepare(struct hp_attachct *c, pid_t pid, const char *lib, bool hidden, bool loaded,
			const char *conf)
{
	unsigned uid, gid;

	memset(c, 0, sizeof(*c));
	c->dirfd = c->listen = -1;
	c->st.root = c->st.parent = c->st.dir = -1;
	ids_of(pid, &uid, &gid);
	if (plan_dump_dir(pid, conf, c, uid, gid))
		return 1;
	if (!(hidden && !loaded) && !c->pass_dir)
		return 0;
	if (hp_stage_make(&c->st, pid, uid, gid) != 0)
		return say(c, "process %d: %s", (int)pid, c->st.why);
	c->stage = true;
	if (hidden && !loaded && stage_library(pid, lib, c))
		return 1;
	if (c->pass_dir && (c->listen = hp_stage_listen(&c->st, c->sock, sizeof(c->sock))) < 0)
		return say(c, "process %d: %s", (int)pid, c->st.why);
	return 0;
}

void hp_attachct_release(struct hp_attachct *c)
{
	if (c->stage)
		hp_stage_remove(&c->st);
	if (c->dirfd >= 0)
		close(c->dirfd);
	if (c->listen >= 0)
		close(c->listen);
	c->dirfd = c->listen = -1;
	c->stage = false;
}

int hp_attachct_send_dir(struct hp_attachct *c)
{
	int listen_fd = c->listen, fd = c->dirfd;
	char byte = 'd';
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	int conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (conn < 0)
		return -1;
	memset(u.buf, 0, sizeof(u.buf));
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(fd));
	ssize_t n = sendmsg(conn, &m, MSG_NOSIGNAL);
	close(conn);
	return n == 1 ? 0 : -1;
}
