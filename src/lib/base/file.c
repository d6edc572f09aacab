/*
 * file.c -- atomic, symlink-safe output files (see file.h).
 *
 * Owns the temporary-name counter.  Never allocates; safe on any thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/file.h"
#include "base/fmt.h"
#include "base/sandbox.h"
#include "base/banned.h"

static unsigned tmp_counter;

int hp_file_fd_above_stdio(int fd)
{
	if (fd < 0 || fd > 2)
		return fd;
	int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return moved;
}

int hp_file_mkdirs(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return 0;
	size_t n = (size_t)(slash - path);
	if (n >= sizeof(dir))
		return ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	/* Create each missing component, from the top. */
	for (char *p = dir + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(dir, 0700) != 0 && errno != EEXIST)
				return errno;
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

const char *hp_file_kind(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:  return "a regular file";
	case S_IFDIR:  return "a directory";
	case S_IFIFO:  return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFCHR:  return "a character device";
	case S_IFBLK:  return "a block device";
	case S_IFLNK:  return "a symbolic link";
	}
	return "not a regular file";
}

void hp_file_xfsz_block(struct hp_file_xfsz *g)
{
	sigset_t xfsz, pending;

	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &xfsz, &g->old);
	g->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ);
}

void hp_file_xfsz_restore(struct hp_file_xfsz *g)
{
	sigset_t xfsz, pending;

	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	if (!g->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ)) {
		struct timespec zero = { 0, 0 };
		while (sigtimedwait(&xfsz, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

static int tmp_name(char *out, size_t cap, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	size_t n = hp_fmt(out, cap, "%.*s.%s.%d.%u.tmp", dirlen, path, base,
			  hp_sandbox_getpid(), HP_ADD(&tmp_counter, 1));

	return n + 1 >= cap ? ENAMETOOLONG : 0;
}

int hp_file_create(struct hp_file *f, const char *path)
{
	/* Readable too: the bell (output/bell.c) maps its file shared. */
	const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;

	f->fd = -1;
	if (strlen(path) + 1 > sizeof(f->dst) || !*path)
		return ENAMETOOLONG;
	memcpy(f->dst, path, strlen(path) + 1);
	int err = tmp_name(f->tmp, sizeof(f->tmp), path);
	if (err)
		return err;
	hp_file_xfsz_block(&f->xfsz);
	int fd = open(f->tmp, flags, 0600);
	if (fd < 0 && errno == EEXIST) {
		/* A stale temporary of a dead process with our pid (or a planted
		 * name): unlink never follows a symlink. */
		unlink(f->tmp);
		fd = open(f->tmp, flags, 0600);
	}
	if (fd >= 0)
		fd = hp_file_fd_above_stdio(fd);
	if (fd < 0) {
		err = errno;
		unlink(f->tmp);
		hp_file_xfsz_restore(&f->xfsz);
		return err;
	}
	f->fd = fd;
	return 0;
}

int hp_file_commit(struct hp_file *f)
{
	int err = 0;

	if (close(f->fd) != 0 && errno != EINTR)
		err = errno;
	f->fd = -1;
	if (!err && rename(f->tmp, f->dst) != 0)
		err = errno;
	if (err)
		unlink(f->tmp);
	hp_file_xfsz_restore(&f->xfsz);
	return err;
}

void hp_file_abort(struct hp_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	unlink(f->tmp);
	hp_file_xfsz_restore(&f->xfsz);
}

int hp_file_each_chunk(const char *path, void (*fn)(const char *buf, size_t n, void *arg), void *arg)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		fn(buf, (size_t)n, arg);
	}
	close(fd);
	return 0;
}

int hp_file_read_all(const char *path, char *buf, size_t cap, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err = 0;

	*len = 0;
	if (fd < 0)
		return errno;
	for (;;) {
		if (*len == cap) {
			char probe;
			ssize_t more = read(fd, &probe, 1);
			err = more > 0 ? EFBIG : 0;
			break;
		}
		ssize_t n = read(fd, buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	close(fd);
	return err;
}
