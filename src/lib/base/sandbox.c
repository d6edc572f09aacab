/*
 * sandbox.c -- the process's seccomp state (see sandbox.h).
 *
 * Owns the sandbox word and the pid kept with it.  Calls no other file:
 * every file that locks (base/spin.h), logs or names a file reads them,
 * so nothing here may lock, log or use base/file.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/sandbox.h"
#include "base/banned.h"

int hp_sandbox_word;
int hp_sandbox_pid;

void hp_sandbox_enter(void)
{
	if (!hp_sandbox_on())
		HP_STORE(&hp_sandbox_pid, (int)getpid());
	__atomic_fetch_add(&hp_sandbox_word, 2, __ATOMIC_SEQ_CST);
}

void hp_sandbox_leave(int installed)
{
	if (installed)
		__atomic_fetch_or(&hp_sandbox_word, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_sub(&hp_sandbox_word, 2, __ATOMIC_SEQ_CST);
}

/* The start of /proc/self/status into buf; an errno value.  Not
 * base/file.c's hp_file_read_all: file.c asks this file whether the
 * process is sandboxed, and the layers allow no circle of calls. */
static int read_status(char *buf, size_t cap)
{
	size_t len = 0;
	int err = 0, fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	while (len < cap - 1) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return err;
}

int hp_sandbox_inherited(const char **why)
{
	char buf[4096];
	int err = read_status(buf, sizeof(buf));

	*why = "";
	if (hp_sandbox_refusal(err)) {
		*why = "reading /proc/self/status was refused";
		goto sandboxed;
	}
	if (err)
		return 0;   /* no /proc: nothing to go by */
	/* "Pid:\t4242" comes before "Seccomp:\t2" (0 none, 1 strict, 2
	 * filter). */
	int pid = 0;
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (!strncmp(p, "Pid:", 4)) {
			for (p += 4; *p == ' ' || *p == '\t'; p++)
				;
			for (; *p >= '0' && *p <= '9'; p++)
				pid = pid * 10 + (*p - '0');
			continue;
		}
		if (strncmp(p, "Seccomp:", 8))
			continue;
		for (p += 8; *p == ' ' || *p == '\t'; p++)
			;
		if (*p != '1' && *p != '2')
			return 0;
		*why = *p == '1' ? "/proc/self/status: Seccomp: 1 (strict)" : "/proc/self/status: Seccomp: 2 (filter)";
		HP_STORE(&hp_sandbox_pid, pid);
		goto sandboxed;
	}
	return 0;
sandboxed:
	__atomic_fetch_or(&hp_sandbox_word, 1, __ATOMIC_SEQ_CST);
	return 1;
}
