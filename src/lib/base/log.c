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
 * "<log_file>.lock" (a file that never rotates; when that name is taken
 * by something else, on the log's directory), and a writer reopens the
 * log when its name no longer refers to the file it has open.  So lines
 * never interleave and none is written to a file already rotated away.
 *
 * The program owns the descriptor table: it may close every descriptor
 * (close-from-3, as daemons do), dup2 over ours, and reuse the numbers.
 * So the log's and the lock's descriptors are remembered with the file
 * they were opened on (device and inode), and one that no longer refers
 * to it is the program's now: never written to, flocked nor closed, only
 * forgotten and the file opened again.
 *
 * Every message is one line whatever it quotes: control bytes (newlines
 * too) become \xHH here, so a value from the environment, a file or a
 * file name cannot forge a line of its own.
 *
 * Under a seccomp filter (base/sandbox.h) a line is one write(2) and
 * nothing else: no SIGXFSZ guard, no flock, no look at the log's name
 * (so no rotation), no getpid (the log file's lines carry the pid it
 * had when the filter went in), no look at whether descriptor 2 is open.
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
#include "base/sandbox.h"
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
/* The files log_fd and lock_fd were opened on. */
static struct hp_fd_id { dev_t dev; ino_t ino; } log_id, lock_id;
static char log_path[PATH_MAX];
static int lock_on_dir;           /* the .lock name was unusable */
static int64_t max_bytes;
static int keep;
/* What log_file was when it was refused for not being a regular file. */
static char refused_kind[64];
/* Standard error was closed when the library started: fd 2, if it is open
 * later, is a file of the program's, never written to. */
static int stderr_gone;

/* fd as heapprof's: records which file it is (fd may be -1). */
static int own_fd(int fd, struct hp_fd_id *id)
{
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0) {
		id->dev = st.st_dev;
		id->ino = st.st_ino;
	}
	return fd;
}

/* Whether *fd is still the file it was opened on.  If the program closed
 * it or reused its number, *fd is forgotten (-1), never closed. */
static int still_own(int *fd, const struct hp_fd_id *id)
{
	struct stat st;

	if (*fd < 0)
		return 0;
	if (fstat(*fd, &st) == 0 && st.st_dev == id->dev && st.st_ino == id->ino)
		return 1;
	*fd = -1;
	return 0;
}

/* Closes *fd if it is still heapprof's; forgets it either way. */
static void drop_fd(int *fd, const struct hp_fd_id *id)
{
	if (still_own(fd, id))
		close(*fd);
	*fd = -1;
}

void hp_log_set_level(int level)
{
	HP_STORE(&log_level, level);
}

/* Opens the log for appending: never through a symbolic link, never
 * blocking (a FIFO at the name would stop the program before main), and
 * only a regular file.  Something else at the name is not even opened (a
 * device may act on open); the check after opening closes the race. */
static int open_log(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		hp_fmt(refused_kind, sizeof(refused_kind), "%s", hp_file_kind(st.st_mode));
		errno = 0;
		return -1;
	}
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0) {
		int err = errno;
		if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			hp_fmt(refused_kind, sizeof(refused_kind), "%s", hp_file_kind(st.st_mode));
			err = 0;
		}
		errno = err;
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		hp_fmt(refused_kind, sizeof(refused_kind), "%s", hp_file_kind(st.st_mode));
		close(fd);
		errno = 0;
		return -1;
	}
	(void)fcntl(fd, F_SETFL, O_APPEND);   /* writes to a regular file: blocking as ever */
	return hp_file_fd_above_stdio(fd);
}

/* The lock: "<path>.lock", a regular file of its own; or, when that name
 * is a symbolic link or anything but a regular file (planted, never
 * followed), the log's directory.  Returns the descriptor, or -1. */
static int open_lock(const char *path, int on_dir)
{
	char lp[PATH_MAX + 8];

	if (!on_dir) {
		hp_fmt(lp, sizeof(lp), "%s.lock", path);
		return hp_file_fd_above_stdio(open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
						   O_CLOEXEC | O_NOCTTY, 0600));
	}
	const char *slash = strrchr(path, '/');
	if (slash)
		hp_fmt(lp, sizeof(lp), "%.*s", (int)(slash - path + (slash == path)), path);
	else
		hp_fmt(lp, sizeof(lp), ".");
	return hp_file_fd_above_stdio(open(lp, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

/* Opens the lock for path at configuration: the .lock file when it is a
 * regular file (a FIFO or a device there is not opened), else the
 * directory.  Says why into why (empty: the .lock file is in use). */
static int configure_lock(const char *path, char *why, size_t cap)
{
	char lp[PATH_MAX + 8];
	struct stat st;
	int fd = -1;

	why[0] = '\0';
	hp_fmt(lp, sizeof(lp), "%s.lock", path);
	if (lstat(lp, &st) == 0 && !S_ISREG(st.st_mode)) {
		hp_fmt(why, cap, "is %s", hp_file_kind(st.st_mode));
	} else {
		fd = open_lock(path, 0);
		if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
			hp_fmt(why, cap, "is %s", hp_file_kind(st.st_mode));
			close(fd);
			fd = -1;
		} else if (fd < 0) {
			hp_fmt(why, cap, "cannot be opened (%s)", strerrordesc_np(errno));
		}
	}
	lock_on_dir = fd < 0;
	if (fd < 0)
		fd = open_lock(path, 1);
	return fd;
}

/* Opens log_path again in place of log_fd (kept if that fails). */
static void reopen_log(void)
{
	struct hp_fd_id id;
	int fd = own_fd(open_log(log_path), &id);

	if (fd >= 0) {
		drop_fd(&log_fd, &log_id);
		log_fd = fd;
		log_id = id;
	}
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
	reopen_log();
}

/* Under the flock: make sure log_fd is the file the name refers to, and
 * rotate first if this line would take it past max_bytes. */
static void before_write(size_t len)
{
	struct stat by_name, by_fd;

	if (!still_own(&log_fd, &log_id) || stat(log_path, &by_name) != 0 ||
	    by_name.st_ino != log_id.ino || by_name.st_dev != log_id.dev)
		reopen_log();
	if (log_fd < 0 || fstat(log_fd, &by_fd) != 0)
		return;
	if (max_bytes > 0 && by_fd.st_size > 0 && by_fd.st_size + (off_t)len > max_bytes)
		rotate();
}

/* Standard error, unless it was closed when we started. */
static void to_stderr(const char *line, size_t n)
{
	struct hp_file_xfsz g;

	if (stderr_gone)
		return;
	if (hp_sandbox_on()) {
		(void)hp_out_write_all(STDERR_FILENO, line, n);
		return;
	}
	hp_file_xfsz_block(&g);   /* stderr may be a file at its size limit */
	(void)hp_out_write_all(STDERR_FILENO, line, n);
	hp_file_xfsz_restore(&g);
}

static void write_to_file(const char *msg, size_t len)
{
	char line[1400];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	size_t n = hp_fmt_utc(line, ts.tv_sec, (int)(ts.tv_nsec / 1000000), 0);
	int sandboxed = hp_sandbox_on();
	n += hp_fmt(line + n, sizeof(line) - n, " %d ", hp_sandbox_getpid());
	if (len > sizeof(line) - n)
		len = sizeof(line) - n;
	memcpy(line + n, msg, len);
	n += len;

	hp_spin_lock(&file_lock);
	if (log_fd < 0) {
		hp_spin_unlock(&file_lock);
		to_stderr(msg, len);
		return;
	}
	if (sandboxed) {
		(void)hp_out_write_all(log_fd, line, n);
		hp_spin_unlock(&file_lock);
		return;
	}
	if (lock_fd >= 0 && !still_own(&lock_fd, &lock_id))
		lock_fd = own_fd(open_lock(log_path, lock_on_dir), &lock_id);
	if (lock_fd >= 0)
		while (flock(lock_fd, LOCK_EX) != 0 && errno == EINTR)
			;
	struct hp_file_xfsz g;
	hp_file_xfsz_block(&g);
	before_write(n);
	int lost = log_fd < 0;   /* the program took it and it cannot be reopened */
	if (!lost)
		(void)hp_out_write_all(log_fd, line, n);
	hp_file_xfsz_restore(&g);
	if (lock_fd >= 0)
		flock(lock_fd, LOCK_UN);
	hp_spin_unlock(&file_lock);
	if (lost)
		to_stderr(msg, len);
}

int hp_log_configure(const char *path, int64_t max, int nkeep)
{
	char why[160];
	int err = 0;

	why[0] = '\0';
	hp_spin_lock(&file_lock);
	max_bytes = max;
	keep = nkeep;
	if (path && *path && !strcmp(path, log_path) && log_fd >= 0) {
		hp_spin_unlock(&file_lock);
		return 0;   /* same file: only the limits changed */
	}
	drop_fd(&log_fd, &log_id);
	drop_fd(&lock_fd, &lock_id);
	log_path[0] = '\0';
	if (path && *path) {
		/* Its directory is created as a dump prefix's is (0700). */
		err = hp_file_mkdirs(path);
		log_fd = err ? -1 : own_fd(open_log(path), &log_id);
		if (!err && log_fd < 0)
			err = errno ? errno : HP_LOG_ENOTREG;
		if (!err) {
			hp_fmt(log_path, sizeof(log_path), "%s", path);
			lock_fd = own_fd(configure_lock(path, why, sizeof(why)), &lock_id);
		}
	}
	hp_spin_unlock(&file_lock);
	if (why[0])
		hp_log(HP_LOG_WARN, "log_file %s: %s.lock %s; %s", path, path, why,
		       lock_fd >= 0 ? "not used: writers lock the log's directory instead"
				    : "lines from several processes are not locked against each other");
	return err;
}

const char *hp_log_strerror(int err)
{
	static char msg[96];

	if (err != HP_LOG_ENOTREG)
		return strerrordesc_np(err);
	hp_fmt(msg, sizeof(msg), "%s, not a regular file", refused_kind[0] ? refused_kind : "something");
	return msg;
}

int hp_log_can_print(void)
{
	if (HP_LOAD(&log_fd) >= 0)
		return 1;
	/* Sandboxed, descriptor 2 cannot be asked about: it is taken to be
	 * open when it was at start-up. */
	return !stderr_gone && (hp_sandbox_on() || fcntl(STDERR_FILENO, F_GETFD) != -1);
}


void hp_log_postfork_child(void)
{
	/* flock locks belong to the open file description, which the child
	 * shares with its parent: it needs its own. */
	hp_spin_reset(&file_lock);
	if (hp_sandbox_on())
		return;   /* the parent's lock stays: no system call */
	if (lock_fd >= 0) {
		drop_fd(&lock_fd, &lock_id);
		lock_fd = own_fd(open_lock(log_path, lock_on_dir), &lock_id);
	}
}

void hp_log_hold(int on)
{
	if (on) {
		/* The start of start-up: is standard error there at all? */
		stderr_gone = !hp_sandbox_on() && fcntl(STDERR_FILENO, F_GETFD) == -1;
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
			to_stderr(held + i, n);
		i += n;
	}
	held_len = 0;
}

/* Formats fmt after the prefix into line (cap bytes, room left for the
 * newline), with every control byte of the result written as \xHH: a
 * quoted value cannot end the line or forge another.  Returns the length. */
static size_t format_line(char *line, size_t cap, const char *fmt, va_list ap)
{
	static const char hex[] = "0123456789abcdef";
	char raw[1100];
	size_t n = hp_fmt(line, cap, "%s", HP_LOG_PREFIX);
	size_t len = hp_fmt_va(raw, sizeof(raw), fmt, ap);

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)raw[i];
		if (c >= 0x20 && c != 0x7f) {
			if (n + 2 > cap)
				break;
			line[n++] = (char)c;
		} else {
			if (n + 5 > cap)
				break;
			line[n++] = '\\';
			line[n++] = 'x';
			line[n++] = hex[c >> 4];
			line[n++] = hex[c & 15];
		}
	}
	return n;
}

/* One finished line (with its newline) to where lines go now. */
static void put_line(const char *line, size_t n)
{
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
		to_stderr(line, n);
}

void hp_log_report(const char *fmt, ...)
{
	char line[1200];
	va_list ap;
	int saved_errno = errno;

	if (HP_LOAD(&log_level) >= HP_LOG_ERROR) {
		va_start(ap, fmt);
		size_t n = format_line(line, sizeof(line), fmt, ap);
		va_end(ap);
		line[n++] = '\n';
		put_line(line, n);
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
	va_start(ap, fmt);
	n = format_line(line, sizeof(line), fmt, ap);
	va_end(ap);
write_line:
	line[n++] = '\n';
	put_line(line, n);
out:
	errno = saved_errno;
}
