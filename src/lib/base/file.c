/*
 * file.c -- atomic, symlink-safe output files (see file.h).
 *
 * Owns the temporary-name counter.  Never allocates; safe on any thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/file.h"
#include "base/fmt.h"
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

static int tmp_name(char *out, size_t cap, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	size_t n = hp_fmt(out, cap, "%.*s.%s.%d.%u.tmp", dirlen, path, base,
			  (int)getpid(), HP_ADD(&tmp_counter, 1));

	return n + 1 >= cap ? ENAMETOOLONG : 0;
}

int hp_file_create(struct hp_file *f, const char *path)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;

	f->fd = -1;
	if (strlen(path) + 1 > sizeof(f->dst) || !*path)
		return ENAMETOOLONG;
	memcpy(f->dst, path, strlen(path) + 1);
	int err = tmp_name(f->tmp, sizeof(f->tmp), path);
	if (err)
		return err;
	int fd = open(f->tmp, flags, 0600);
	if (fd < 0 && errno == EEXIST) {
		/* A stale temporary of a dead process with our pid (or a planted
		 * name): unlink never follows a symlink. */
		unlink(f->tmp);
		fd = open(f->tmp, flags, 0600);
	}
	if (fd < 0)
		return errno;
	fd = hp_file_fd_above_stdio(fd);
	if (fd < 0) {
		err = errno;
		unlink(f->tmp);
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
	return err;
}

void hp_file_abort(struct hp_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	unlink(f->tmp);
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
