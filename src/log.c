/*
 * log.c -- the library's only output channel for messages (see log.h).
 *
 * Owns the log level and the message cap.  Must not allocate or use stdio:
 * it is called inside malloc, at exit and in fork children.
 */
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "fmt.h"
#include "log.h"
#include "banned.h"

#define HP_LOG_PREFIX "<heapprof>: "
/* Errors and warnings past this many are dropped, with one notice. */
#define HP_LOG_NOISY_MAX 200

static int log_level = HP_LOG_INFO;
static unsigned noisy_count;

void hp_log_set_level(int level)
{
	HP_STORE(&log_level, level);
}

void hp_log(enum hp_log_level level, const char *fmt, ...)
{
	char line[1200];
	size_t n;
	va_list ap;
	int saved_errno = errno;

	if ((int)level > HP_LOAD(&log_level))
		return;
	if (level <= HP_LOG_WARN) {
		unsigned k = HP_ADD(&noisy_count, 1);
		if (k > HP_LOG_NOISY_MAX)
			goto out;
		if (k == HP_LOG_NOISY_MAX) {
			fmt = "too many errors and warnings; further ones are not printed";
			n = hp_fmt(line, sizeof(line), HP_LOG_PREFIX "%s", fmt);
			goto write_line;
		}
	}

	n = hp_fmt(line, sizeof(line), "%s", HP_LOG_PREFIX);
	va_start(ap, fmt);
	n += hp_vfmt(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
write_line:
	line[n++] = '\n';
	(void)hp_write_all(STDERR_FILENO, line, n);
out:
	errno = saved_errno;
}
