/*
 * pair.c -- a second thread for the leak scan (see pair.h).
 *
 * Owns nothing past hp_pair_join.  glibc's clone() starts the thread:
 * its child side calls fn on the new stack and ends the thread with the
 * exit system call, touching no TLS; CLONE_CHILD_CLEARTID has the kernel
 * clear the thread id and wake its futex when the thread is gone, which
 * is what hp_pair_join waits for.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>

#include "base/compiler.h"
#include "base/sys.h"
#include "conf/conf.h"
#include "scan/pair.h"
#include "base/banned.h"

#define CLONE_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
		     CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

int hp_pair_possible(void)
{
#if defined(__SANITIZE_THREAD__)
	return 0;
#else
	cpu_set_t set;

	if (hp_conf.helper_thread == HP_CONF_HELPER_NEVER)
		return 0;
	CPU_ZERO(&set);
	if (hp_sys_raw(SYS_sched_getaffinity, 0, sizeof(set), (long)&set, 0, 0, 0) < 0)
		return 0;
	return CPU_COUNT(&set) > 1;
#endif
}

static int child(void *arg)
{
	struct hp_pair *p = arg;

	p->fn(p->arg);
	return 0;
}

int hp_pair_start(struct hp_pair *p, void *stack, size_t n, void (*fn)(void *), void *arg)
{
	sigset_t all, old;

	p->fn = fn;
	p->arg = arg;
	/* Not 0 until the thread has ended, whether or not the thread id is
	 * written first (valgrind does not write it before clone returns). */
	p->tid = -1;
	sigfillset(&all);
	/* The thread starts with the mask in force here: every signal. */
	if (hp_sys_raw(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, _NSIG / 8, 0, 0) < 0)
		return EAGAIN;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	int saved = errno;   /* the program's, which clone() sets when it fails */
	int tid = clone(child, (char *)stack + (n & ~(size_t)15), CLONE_FLAGS, p, &p->tid, NULL, &p->tid);
	int err = tid > 0 ? 0 : EAGAIN;
	errno = saved;
	hp_sys_raw(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, _NSIG / 8, 0, 0);
	return err;
}

void hp_pair_join(struct hp_pair *p)
{
	for (;;) {
		int32_t tid = __atomic_load_n(&p->tid, __ATOMIC_ACQUIRE);
		if (!tid)
			break;
		/* Not FUTEX_PRIVATE_FLAG: the kernel's wake at the thread's
		 * end is a shared one. */
		hp_sys_raw(SYS_futex, (long)&p->tid, FUTEX_WAIT, tid, 0, 0, 0);
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}
