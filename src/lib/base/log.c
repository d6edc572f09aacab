/*
 * log.c -- the library's only output channel for messages (see log.h).
 *
 * Owns the log level, the message cap and the log file.  Must not allocate
 * or use stdio: it is called inside malloc, at exit and in fork children.
 *
 * To standard error a line is just "<heapprof>: message".  To log_file it
 * is "2026-11-22T10:15:30.123Z 4242 <heapprof>: message", appended with
 * one write(2).  Several processes may share one log file: every write,
 * and the rotation it may trigger, happens under an flock(2) on
 * "<log_file>.lock" (a file that never rotates), and a writer reopens the
 * log when its name no longer refers to the file it has open.  So lines
 * never interleave and none is written to a file already rotated away.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "base/fmt.h"
#include "base/out.h"
#include "base/log.h"
#include "base/spin.h"
#include "base/banned.h"

#define HP_LOG_PREFIX "<heapprof>: "
/* Errors and warnings past this many are dropped, with one notice. */
#define HP_LOG_NOISY_MAX 200

static int log_level = HP_LOG_INFO;
static unsigned noisy_count;
/* While starting, before the log file is known, lines wait here. */
static int holding;
static char held[16384];
static size_t held_len;

/* The log file, when there is one.  Writers hold file_lock (threads of
 * this process) and then the flock (other processes). */
static struct hp_spin file_lock;
static int log_fd = -1;
static int lock_fd = -1;
static char log_path[PATH_MAX];
static int64_t max_bytes;
static int keep;

void hp_log_set_level(int level)
{
	HP_STORE(&log_level, level);
}

static int open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);

	return hp_file_fd_above_stdio(fd);
}

static int open_lock(const char *path)
{
	char lp[PATH_MAX + 8];

	hp_fmt(lp, sizeof(lp), "%s.lock", path);
	return hp_file_fd_above_stdio(open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600));
}

/* Renames log.(k-1) to log.k ... log to log.1.  Under the flock. */
static void rotate(void)
{
	char from[PATH_MAX + 16], to[PATH_MAX + 16];

	if (keep == 0) {
		unlink(log_path);
	} else {
		for (int k = keep; k > 1; k--) {
			hp_fmt(from, sizeof(from), "%s.%d", log_path, k - 1);
			hp_fmt(to, sizeof(to), "%s.%d", log_path, k);
			rename(from, to);
		}
		hp_fmt(to, sizeof(to), "%s.1", log_path);
		rename(log_path, to);
	}
	int fd = open_log(log_path);
	if (fd >= 0) {
		close(log_fd);
		log_fd = fd;
	}
}

/* Under the flock: make sure log_fd is the file the name refers to, and
 * rotate first if this line would take it past max_bytes. */
static void before_write(size_t len)
{
	struct stat by_name, by_fd;

	if (stat(log_path, &by_name) != 0 || fstat(log_fd, &by_fd) != 0 ||
	    by_name.st_ino != by_fd.st_ino || by_name.st_dev != by_fd.st_dev) {
		int fd = open_log(log_path);
		if (fd >= 0) {
			close(log_fd);
			log_fd = fd;
		}
		if (fstat(log_fd, &by_fd) != 0)
			return;
	}
	if (max_bytes > 0 && by_fd.st_size > 0 && by_fd.st_size + (off_t)len > max_bytes)
		rotate();
}

static void write_to_file(const char *msg, size_t len)
{
	char line[1400];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	size_t n = hp_fmt_utc(line, ts.tv_sec, (int)(ts.tv_nsec / 1000000), 0);
	n += hp_fmt(line + n, sizeof(line) - n, " %d ", (int)getpid());
	if (len > sizeof(line) - n)
		len = sizeof(line) - n;
	memcpy(line + n, msg, len);
	n += len;

	hp_spin_lock(&file_lock);
	if (log_fd < 0) {
		hp_spin_unlock(&file_lock);
		(void)hp_out_write_all(STDERR_FILENO, msg, len);
		return;
	}
	if (lock_fd >= 0)
		while (flock(lock_fd, LOCK_EX) != 0 && errno == EINTR)
			;
	before_write(n);
	(void)hp_out_write_all(log_fd, line, n);
	if (lock_fd >= 0)
		flock(lock_fd, LOCK_UN);
	hp_spin_unlock(&file_lock);
}

int hp_log_configure(const char *path, int64_t max, int nkeep)
{
	int err = 0;

	hp_spin_lock(&file_lock);
	max_bytes = max;
	keep = nkeep;
	if (path && *path && !strcmp(path, log_path) && log_fd >= 0) {
		hp_spin_unlock(&file_lock);
		return 0;   /* same file: only the limits changed */
	}
	if (log_fd >= 0)
		close(log_fd);
	if (lock_fd >= 0)
		close(lock_fd);
	log_fd = lock_fd = -1;
	log_path[0] = '\0';
	if (path && *path) {
		log_fd = open_log(path);
		if (log_fd < 0) {
			err = errno;
		} else {
			hp_fmt(log_path, sizeof(log_path), "%s", path);
			lock_fd = open_lock(path);
		}
	}
	hp_spin_unlock(&file_lock);
	return err;
}

int hp_log_can_print(void)
{
	return HP_LOAD(&log_fd) >= 0 || fcntl(STDERR_FILENO, F_GETFD) != -1;
}

void hp_log_postfork_child(void)
{
	/* flock locks belong to the open file description, which the child
	 * shares with its parent: it needs its own. */
	hp_spin_reset(&file_lock);
	if (lock_fd >= 0) {
		close(lock_fd);
		lock_fd = open_lock(log_path);
	}
}

void hp_log_hold(int on)
{
	if (on) {
		holding = 1;
		return;
	}
	holding = 0;
	for (size_t i = 0; i < held_len;) {
		const char *nl = memchr(held + i, '\n', held_len - i);
		size_t n = (size_t)(nl - (held + i)) + 1;
		if (HP_LOAD(&log_fd) >= 0)
			write_to_file(held + i, n);
		else
			(void)hp_out_write_all(STDERR_FILENO, held + i, n);
		i += n;
	}
	held_len = 0;
}

/* One formatted line to standard error or the log file. */
static void emit(const char *fmt, va_list ap)
{
	char line[1200];
	size_t n = hp_fmt(line, sizeof(line), "%s", HP_LOG_PREFIX);

	n += hp_fmt_va(line + n, sizeof(line) - n - 1, fmt, ap);
	line[n++] = '\n';
	if (holding) {
		if (held_len + n <= sizeof(held)) {
			memcpy(held + held_len, line, n);
			held_len += n;
		}
		return;
	}
	if (HP_LOAD(&log_fd) >= 0)
		write_to_file(line, n);
	else
		(void)hp_out_write_all(STDERR_FILENO, line, n);
}

void hp_log_report(const char *fmt, ...)
{
	va_list ap;
	int saved_errno = errno;

	if (HP_LOAD(&log_level) >= HP_LOG_ERROR) {
		va_start(ap, fmt);
		emit(fmt, ap);
		va_end(ap);
	}
	errno = saved_errno;
}

void hp_log(enum hp_log_level level, const char *fmt, ...)
{
	char line[1200];
	size_t n;
	va_list ap;
	int saved_errno = errno;

	if ((int)level > HP_LOAD(&log_level))
		goto out;
	if (level <= HP_LOG_WARN) {
		unsigned k = HP_ADD(&noisy_count, 1);
		if (k > HP_LOG_NOISY_MAX)
			goto out;
		if (k == HP_LOG_NOISY_MAX) {
			n = hp_fmt(line, sizeof(line), HP_LOG_PREFIX "%s",
				   "too many errors and warnings; further ones are not printed");
			goto write_line;
		}
	}
	n = hp_fmt(line, sizeof(line), "%s", HP_LOG_PREFIX);
	va_start(ap, fmt);
	n += hp_fmt_va(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
write_line:
	line[n++] = '\n';
	if (holding) {
		if (held_len + n <= sizeof(held)) {
			memcpy(held + held_len, line, n);
			held_len += n;
		}
		goto out;
	}
	if (HP_LOAD(&log_fd) >= 0)
		write_to_file(line, n);
	else
		(void)hp_out_write_all(STDERR_FILENO, line, n);
out:
	errno = saved_errno;
}
