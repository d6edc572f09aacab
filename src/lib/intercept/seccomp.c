/*
 * seccomp.c -- the interposed prctl() and syscall(): the C library's ways
 * in to installing a seccomp filter.
 *
 * Owns nothing.  libseccomp and most programs install their filter with
 * syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, ...) or
 * prctl(PR_SET_SECCOMP, ...); glibc has no seccomp() of its own (a C
 * library that has one is not covered).  Before forwarding a call that
 * may install one, the process is marked sandboxed (base/sandbox.h): from
 * then on, on every thread, heapprof keeps to the system calls heapprof(7)
 * lists, and the helper thread does no file system work.  What needs the
 * file system once more is done first, while the process is still free
 * to (leak/leak.h).  After the call, whether a filter is in place.
 *
 * Every call, these and all the others, is forwarded as glibc's syscall()
 * and prctl() make it: the variadic arguments read as six longs (four),
 * the raw system call, and -1 with errno for a result in [-4095, -1].
 * Raw (base/sys.h), not the next definition: syscall() is
 * async-signal-safe, and other libraries' constructors may call it before
 * ours has run.  heapprof's own calls go straight to base/sys.h, never
 * through these.  The test on each call is one comparison.
 */
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/sandbox.h"
#include "base/sys.h"
#include "leak/leak.h"
#include "next/sigview.h"

/* What a call is, for the sandbox: */
enum install {
	NOT_AN_INSTALL,   /* anything else, probes with no program included */
	INSTALL,          /* succeeds with 0 */
	INSTALL_LISTENER, /* SECCOMP_FILTER_FLAG_NEW_LISTENER: succeeds with a descriptor */
};

/* seccomp(op, flags, args).  libseccomp probes with what the kernel
 * refuses before it looks any further: strict mode with flags (EINVAL),
 * a filter without a program (EFAULT).  Not installs. */
static enum install seccomp_call(long op, long flags, long args)
{
	if (op == SECCOMP_SET_MODE_STRICT)
		return flags || args ? NOT_AN_INSTALL : INSTALL;
	if (op != SECCOMP_SET_MODE_FILTER || !args)
		return NOT_AN_INSTALL;
	return flags & SECCOMP_FILTER_FLAG_NEW_LISTENER ? INSTALL_LISTENER : INSTALL;
}

/* prctl(PR_SET_SECCOMP, mode, program). */
static enum install prctl_call(long option, long mode, long prog)
{
	if (option != PR_SET_SECCOMP)
		return NOT_AN_INSTALL;
	return mode == SECCOMP_MODE_STRICT || (mode == SECCOMP_MODE_FILTER && prog) ? INSTALL
										   : NOT_AN_INSTALL;
}

/* The call that may install a filter, made sandboxed.  With TSYNC a
 * positive result is the thread that could not be synchronized: nothing
 * was installed then. */
static HP_COLD long install(enum install how, long n, long a, long b, long c, long d, long e, long f)
{
	/* The last moment the file system is heapprof's. */
	if (!hp_sandbox_on()) {
		hp_leak_before_sandbox();
		hp_sigview_before_sandbox();   /* the final signals' handler */
	}
	hp_sandbox_enter();
	long r = hp_sys_raw(n, a, b, c, d, e, f);
	hp_sandbox_leave(r == 0 || (r > 0 && how == INSTALL_LISTENER));
	return hp_sys_result(r);
}

HP_EXPORT long syscall(long n, ...)
{
	va_list ap;

	va_start(ap, n);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
	long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
	va_end(ap);
	if (HP_UNLIKELY(n == SYS_seccomp || n == SYS_prctl)) {
		enum install how = n == SYS_seccomp ? seccomp_call(a, b, c) : prctl_call(a, b, c);
		if (how != NOT_AN_INSTALL)
			return install(how, n, a, b, c, d, e, f);
	}
	return hp_sys_result(hp_sys_raw(n, a, b, c, d, e, f));
}

HP_EXPORT int prctl(int option, ...)
{
	va_list ap;

	va_start(ap, option);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
	long d = va_arg(ap, long);
	va_end(ap);
	enum install how = prctl_call(option, a, b);
	if (HP_UNLIKELY(how != NOT_AN_INSTALL))
		return (int)install(how, SYS_prctl, option, a, b, c, d, 0);
	return (int)hp_sys_result(hp_sys_raw(SYS_prctl, option, a, b, c, d, 0));
}
