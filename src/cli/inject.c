/*
 * inject.c -- calling a function inside another running process (see
 * inject.h): what heapprof attach and detach stand on.
 *
 * Design.
 *
 * Stopping.  Only the thread that makes the call is held; every other
 * thread of the process runs on, so a lock another thread holds (the
 * malloc arena's, the loader's) is released as it would be bare, and the
 * call only waits for it.  Threads are taken with PTRACE_SEIZE (no
 * signal is sent, no SIGSTOP is seen by the process or its parent) and
 * PTRACE_INTERRUPT, one at a time; none is kept stopped while another
 * is looked at.
 *
 * The safe point.  The called code (dlopen, then the library's entry)
 * allocates and takes the loader's lock, so the thread must not hold
 * either, nor be inside the allocator or the loader.  A thread is taken
 * only while it is blocked in, or entering, one of the system calls of
 * an allow-list (read, poll, select, epoll_wait, nanosleep, accept,
 * recvmsg, wait4, sigsuspend, sigtimedwait, ...) made by the C library's
 * own wrapper (the instruction is in libc's text).  glibc's allocator
 * and loader make none of these calls while holding their locks (the
 * loader's own reads are its own code, in ld.so, not libc's wrapper).
 * A futex(2) wait (a condition variable, pthread_join, a program's own
 * mutex) is one too, unless its word could be a lock glibc's allocator
 * or loader waits for while holding another: one in libc's or the
 * loader's data (main_arena's, the arena list's, the loader's, the stack
 * cache's), or in the first page of a 64 MiB-aligned block (another
 * arena's header, where its mutex is); and only over glibc's malloc,
 * whose locks are known (jemalloc, tcmalloc or mimalloc mapped: no
 * futex).  A thread found elsewhere is run with PTRACE_SYSCALL to
 * its next system call entry and looked at again, for at most the
 * caller's timeout; if none gets there, nothing was changed and the
 * command says so.  A thread blocked in such a call is interrupted by
 * PTRACE_INTERRUPT; the call is then restarted after ours as the kernel
 * would restart it after a signal (a relative sleep starts again whole).
 *
 * The call.  The function's address is computed from the process's own
 * memory: libc's dynamic symbol table (dlopen, or __libc_dlopen_mode
 * before glibc 2.34), read through /proc/PID/mem (procmem.c), so that
 * nothing depends on the file in this mount namespace.  Arguments go in
 * registers; strings go on the thread's stack, below its red zone and
 * below a signal frame built there: the thread's saved registers, its
 * whole FP/vector state (XSAVE layout from PTRACE_GETREGSET) and its
 * signal mask, exactly as the kernel builds one for a signal handler.
 * The return address is the C library's own signal return trampoline
 * (__restore_rt: mov $15,%rax; syscall), found by its bytes in libc's
 * text.  So when the function returns, rt_sigreturn(2) puts the thread
 * back exactly as it was, by itself: no breakpoint, no fault, no return
 * to address 0.  The command only watches (PTRACE_SYSCALL) for that
 * rt_sigreturn to read the function's results, which the callee writes
 * into the data area.  The frame's sigaltstack field holds invalid
 * flags, which rt_sigreturn ignores, so the thread's alternate signal
 * stack is left as it is.
 *
 * Killed at any moment.  PTRACE_SEIZE without PTRACE_O_EXITKILL: when
 * the command dies, the kernel detaches its tracees and they run on.
 * Before the registers are set, a thread so released finishes its
 * interrupted system call (restarted by the kernel); after, it runs the
 * call and restores itself through the trampoline; the frame and data
 * below its stack pointer are dead stack memory either way.  Nothing of
 * the command's (no descriptor, no pipe) enters the process: dlopen's
 * descriptors are its own and closed.
 *
 * The pause.  The chosen thread is held from its interrupt to its
 * release: the calls themselves (dlopen and the library's start-up),
 * about 10-30 ms; hp_inject measures it.
 *
 * x86_64 only here; the library's side (next/got.c) has AArch64's
 * relocations.  An AArch64 injector would return through x30 into the
 * vDSO's __kernel_rt_sigreturn with an rt_sigframe (siginfo, then the
 * ucontext with an fpsimd_context record) at sp; but a thread
 * interrupted in a blocking system call has lost its first argument
 * (x0 holds -ERESTART..., and ptrace does not show orig_x0), so the
 * frame could not restart the call: it would have to take threads at a
 * system call's entry only (x0 still the argument), which an idle
 * service blocked in epoll_wait never reaches.  Not written until that
 * is solved (and can be tested): the command refuses on other
 * architectures.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>
#include <linux/ptrace.h>

#include "inject.h"

double hp_inject_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void hp_inject_step(const char *step)
{
	static int seen[16];
	static const char *names[16];
	const char *want = getenv("HEAPPROF_ATTACH_PAUSE");
	size_t n = strlen(step);
	int k;

	/* "STEP" or "STEP:N", its Nth time (the calls' steps come once per
	 * call: dlopen's first, heapprof_attach's second). */
	for (k = 0; k < 16 && names[k] && strcmp(names[k], step); k++)
		;
	if (k == 16)
		return;
	names[k] = step;
	int nth = ++seen[k];
	if (!want || strncmp(want, step, n) || (want[n] && want[n] != ':'))
		return;
	if (want[n] == ':' ? atoi(want + n + 1) != nth : nth != 1)
		return;
	fprintf(stderr, "heapprof: paused at %s\n", want);
	fflush(stderr);
	for (;;)
		pause();
}

#if defined(__x86_64__)

/* ---- waiting with a deadline ---------------------------------------- */

/* waitpid(who, __WALL), giving up at deadline (ms): -1 with EINTR.
 * Polled (WNOHANG, then sleeps growing from 10 us to 1 ms): a stop
 * inside a call is met within microseconds, and no timer signal is
 * needed to leave, whatever the command's signal state. */
static pid_t wait_until(pid_t who, int *st, double deadline)
{
	long nap_ns = 10000;

	for (;;) {
		pid_t got = waitpid(who, st, __WALL | WNOHANG);
		if (got != 0)
			return got;
		if (hp_inject_now_ms() >= deadline) {
			errno = EINTR;
			return -1;
		}
		struct timespec ts = { 0, nap_ns };
		nanosleep(&ts, NULL);
		if (nap_ns < 1000000)
			nap_ns += nap_ns / 4;
	}
}

/* ---- the registers and FP state kept ---------------------------------- */

struct arch {
	struct user_regs_struct regs;     /* what the thread goes back to */
	unsigned char fp[16384] __attribute__((aligned(64)));
	size_t fplen;
	int xsave;                        /* fp is XSAVE (else FXSAVE) */
	uint64_t sigmask;
};

/* The kernel's x86_64 ucontext and sigcontext (asm/ucontext.h,
 * asm/sigcontext.h), spelled out: glibc's ucontext_t is another shape. */
struct ksigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;
	uint64_t reserved1[8];
};

struct kucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct {
		uint64_t ss_sp;
		int32_t ss_flags;
		int32_t pad;
		uint64_t ss_size;
	} uc_stack;
	struct ksigcontext uc_mcontext;
	uint64_t uc_sigmask;
};

#define UC_FP_XSTATE          0x1
#define UC_SIGCONTEXT_SS      0x2
#define UC_STRICT_RESTORE_SS  0x4
#ifndef FP_XSTATE_MAGIC1
#define FP_XSTATE_MAGIC1      0x46505853u
#define FP_XSTATE_MAGIC2      0x46505845u
#endif
#define RED_ZONE              128
#define STACK_MARGIN          512

#define ERESTARTSYS           512
#define ERESTARTNOINTR        513
#define ERESTARTNOHAND        514
#define ERESTART_RESTARTBLOCK 516

static struct arch *A(struct hp_inject *ij)
{
	return ij->arch;
}

/* ---- the safe point ------------------------------------------------- */

/* Blocking system calls made by libc's wrappers that glibc's allocator
 * and loader never make with a lock held. */
static bool allowed(long nr)
{
	static const long ok[] = {
		SYS_read, SYS_readv, SYS_poll, SYS_select, SYS_pause, SYS_nanosleep, SYS_wait4,
		SYS_accept, SYS_recvfrom, SYS_recvmsg, SYS_epoll_wait, SYS_clock_nanosleep,
		SYS_pselect6, SYS_ppoll, SYS_epoll_pwait, SYS_accept4, SYS_rt_sigsuspend,
		SYS_rt_sigtimedwait, SYS_waitid, SYS_msgrcv,
#ifdef SYS_epoll_pwait2
		SYS_epoll_pwait2,
#endif
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (ok[i] == nr)
			return true;
	return false;
}

/* A futex wait whose word is no lock of glibc's allocator or loader
 * (see the design note). */
static bool futex_safe(struct hp_inject *ij, const struct user_regs_struct *r)
{
	uintptr_t word = r->rdi;
	int op = (int)(r->rsi & 0x7f);   /* FUTEX_CMD_MASK: no private, no clock flag */

	if (!ij->futex_ok || (op != 0 && op != 9))   /* FUTEX_WAIT, FUTEX_WAIT_BITSET */
		return false;
	if (word >= ij->libc.lo && word < ij->libc.hi)
		return false;
	if (ij->ldso.head && word >= ij->ldso.lo && word < ij->ldso.hi)
		return false;
	return (word & ((64u << 20) - 1)) >= 4096;
}

/* Whether the instruction before pc is a syscall in libc's text. */
static bool libc_syscall_before(struct hp_inject *ij, uintptr_t pc)
{
	unsigned char insn[2];

	if (pc - 2 < ij->libc.xlo || pc > ij->libc.xhi)
		return false;
	return hp_pm_read(ij->pid, pc - 2, insn, 2) && insn[0] == 0x0f && insn[1] == 0x05;
}

/* A thread in an interrupt stop: safe if blocked in (or just back from)
 * an allowed call of libc's.  On success, regs become the state to go
 * back to: an interrupted call set to be made again. */
static bool safe_interrupted(struct hp_inject *ij, struct user_regs_struct *r)
{
	long nr = (long)r->orig_rax, rv = (long)r->rax;

	if (nr < 0 || !(allowed(nr) || (nr == SYS_futex && futex_safe(ij, r))) ||
	    !libc_syscall_before(ij, r->rip))
		return false;
	if (rv == -ERESTARTSYS || rv == -ERESTARTNOINTR || rv == -ERESTARTNOHAND ||
	    rv == -ERESTART_RESTARTBLOCK) {
		r->rip -= 2;
		r->rax = r->orig_rax;
	}
	ij->sysno = (int)nr;
	r->orig_rax = (unsigned long long)-1;
	return true;
}

/* A thread at a system call's entry: safe if the call is allowed and
 * libc's; the state to go back to makes the call. */
static bool safe_entry(struct hp_inject *ij, struct user_regs_struct *r)
{
	long nr = (long)r->orig_rax;

	if (nr < 0 || !(allowed(nr) || (nr == SYS_futex && futex_safe(ij, r))) ||
	    !libc_syscall_before(ij, r->rip))
		return false;
	r->rip -= 2;
	r->rax = r->orig_rax;
	r->orig_rax = (unsigned long long)-1;
	ij->sysno = (int)nr;
	return true;
}

static bool syscall_entry(pid_t tid)
{
	struct ptrace_syscall_info info;

	memset(&info, 0, sizeof(info));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(info), &info) <= 0)
		return false;
	return info.op == PTRACE_SYSCALL_INFO_ENTRY;
}

/* ---- stopping --------------------------------------------------------- */

static bool is_ldso(const char *base)
{
	return !strncmp(base, "ld-linux", 8) || !strncmp(base, "ld64.so", 7) || !strncmp(base, "ld-2.", 5);
}

static bool is_other_allocator(const char *base)
{
	return !strncmp(base, "libjemalloc", 11) || !strncmp(base, "libtcmalloc", 11) ||
	       !strncmp(base, "libmimalloc", 11) || !strncmp(base, "libhoard", 8) ||
	       !strncmp(base, "libsnmalloc", 11);
}

#define MAX_THREADS 4096

struct seized {
	pid_t tid[MAX_THREADS];
	int sig[MAX_THREADS];       /* a signal to hand back on release */
	int n;
};

static int list_threads(pid_t pid, pid_t *out, int cap)
{
	char fn[64];
	struct dirent *d;
	int n = 0;

	snprintf(fn, sizeof(fn), "/proc/%d/task", (int)pid);
	DIR *dir = opendir(fn);
	if (!dir)
		return -1;
	out[n++] = pid;   /* the main thread first */
	while ((d = readdir(dir)) && n < cap) {
		pid_t t = (pid_t)atoi(d->d_name);
		if (t > 0 && t != pid)
			out[n++] = t;
	}
	closedir(dir);
	return n;
}

static int index_of(struct seized *s, pid_t tid)
{
	for (int i = 0; i < s->n; i++)
		if (s->tid[i] == tid)
			return i;
	return -1;
}

static void forget(struct seized *s, int i)
{
	s->tid[i] = s->tid[s->n - 1];
	s->sig[i] = s->sig[s->n - 1];
	s->n--;
}

/* Lets every seized thread but keep go, each with its pending signal. */
static void release_others(struct seized *s, pid_t keep)
{
	for (int i = 0; i < s->n; i++) {
		pid_t t = s->tid[i];
		int st;
		if (t == keep)
			continue;
		if (ptrace(PTRACE_INTERRUPT, t, 0, 0) != 0)
			continue;
		for (;;) {
			if (wait_until(t, &st, hp_inject_now_ms() + 5000) != t || WIFEXITED(st) || WIFSIGNALED(st))
				break;
			int sig = 0;
			if ((st >> 16) == 0 && WSTOPSIG(st) != (SIGTRAP | 0x80))
				sig = WSTOPSIG(st);
			else if (s->sig[i])
				sig = s->sig[i];
			ptrace(PTRACE_DETACH, t, 0, (void *)(long)sig);
			break;
		}
	}
}

static void failf(struct hp_inject *ij, const char *fmt, const char *arg, int err)
{
	snprintf(ij->why, sizeof(ij->why), fmt, arg, strerror(err));
}

enum hp_inject_err hp_inject_stop(struct hp_inject *ij, pid_t pid, const struct hp_pm_object *libc,
				  int timeout_ms)
{
	static pid_t tids[MAX_THREADS];
	static struct seized s;
	struct user_regs_struct r;
	int st, n;
	pid_t chosen = 0;
	double held_since = 0;   /* when the chosen thread stopped */

	memset(ij, 0, sizeof(*ij));
	ij->pid = pid;
	ij->libc = *libc;
	ij->arch = calloc(1, sizeof(struct arch));
	struct hp_pm_object other;
	if (!hp_pm_find(pid, is_ldso, &ij->ldso))
		memset(&ij->ldso, 0, sizeof(ij->ldso));
	ij->futex_ok = !hp_pm_find(pid, is_other_allocator, &other);
	s.n = 0;
	double deadline = hp_inject_now_ms() + timeout_ms;
	static const unsigned char restore_rt[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };
	ij->restorer = hp_pm_search_text(pid, libc, restore_rt, sizeof(restore_rt));
	if (!ij->restorer) {
		snprintf(ij->why, sizeof(ij->why), "no rt_sigreturn trampoline (__restore_rt) in %.400s", libc->path);
		return HP_INJECT_FAIL;
	}
	if ((n = list_threads(pid, tids, MAX_THREADS)) < 0) {
		failf(ij, "cannot list the threads of %s: %s", "the process", errno);
		return HP_INJECT_GONE;
	}
	/* One at a time: seize, interrupt, look; a thread not at a safe
	 * point runs on to its next system call. */
	for (int i = 0; i < n && !chosen; i++) {
		pid_t t = tids[i];
		if (ptrace(PTRACE_SEIZE, t, 0, (void *)(long)PTRACE_O_TRACESYSGOOD) != 0) {
			if (errno == ESRCH)
				continue;
			int err = errno;
			release_others(&s, 0);
			failf(ij, "ptrace(PTRACE_SEIZE) of %s: %s", "the process", err);
			return err == EPERM ? HP_INJECT_EPERM : HP_INJECT_FAIL;
		}
		s.tid[s.n] = t;
		s.sig[s.n++] = 0;
		held_since = hp_inject_now_ms();
		if (ptrace(PTRACE_INTERRUPT, t, 0, 0) != 0)
			continue;
		/* A thread in an uninterruptible sleep (or a zombie main
		 * thread) does not stop at once: the next is looked at, and
		 * this one's stop comes to the loop below. */
		double mine = hp_inject_now_ms() + 100;
		for (;;) {
			if (wait_until(t, &st, mine < deadline ? mine : deadline) != t)
				break;
			if (WIFEXITED(st) || WIFSIGNALED(st)) {
				forget(&s, s.n - 1);
				break;
			}
			if ((st >> 16) == PTRACE_EVENT_STOP) {
				if (ptrace(PTRACE_GETREGS, t, 0, &r) == 0 && safe_interrupted(ij, &r)) {
					chosen = t;
					A(ij)->regs = r;
				} else {
					ptrace(PTRACE_SYSCALL, t, 0, 0);
				}
				break;
			}
			/* A signal on its way, or a syscall stop: let it go on. */
			int sig = (st >> 16) == 0 && WSTOPSIG(st) != (SIGTRAP | 0x80) ? WSTOPSIG(st) : 0;
			ptrace(PTRACE_SYSCALL, t, 0, (void *)(long)sig);
		}
	}
	/* Then any thread's next allowed system call of libc's. */
	while (!chosen && s.n > 0) {
		pid_t t = wait_until(-1, &st, deadline);
		if (t < 0)
			break;
		int i = index_of(&s, t);
		if (i < 0)
			continue;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			forget(&s, i);
			continue;
		}
		int sig = 0;
		held_since = hp_inject_now_ms();
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			if (syscall_entry(t) && ptrace(PTRACE_GETREGS, t, 0, &r) == 0 && safe_entry(ij, &r)) {
				chosen = t;
				A(ij)->regs = r;
				break;
			}
		} else if ((st >> 16) == PTRACE_EVENT_STOP) {
			if (ptrace(PTRACE_GETREGS, t, 0, &r) == 0 && safe_interrupted(ij, &r)) {
				chosen = t;
				A(ij)->regs = r;
				break;
			}
		} else if ((st >> 16) == 0) {
			sig = WSTOPSIG(st);
		}
		ptrace(PTRACE_SYSCALL, t, 0, (void *)(long)sig);
	}
	release_others(&s, chosen);
	if (!chosen) {
		if (s.n == 0 && kill(pid, 0) != 0)
			return HP_INJECT_GONE;
		snprintf(ij->why, sizeof(ij->why),
			 "no thread reached a safe point (a blocking system call of the C library's, "
			 "outside the allocator and the loader) within %d ms", timeout_ms);
		return HP_INJECT_NOSAFE;
	}
	ij->tid = chosen;
	ij->t0 = held_since;
	struct iovec iov = { A(ij)->fp, sizeof(A(ij)->fp) };
	if (ptrace(PTRACE_GETREGSET, chosen, (void *)NT_X86_XSTATE, &iov) == 0) {
		A(ij)->fplen = iov.iov_len;
		A(ij)->xsave = 1;
	} else if (ptrace(PTRACE_GETFPREGS, chosen, 0, A(ij)->fp) == 0) {
		A(ij)->fplen = 512;
	} else {
		failf(ij, "cannot read the FP state of %s: %s", "the thread", errno);
		hp_inject_release(ij);
		return HP_INJECT_FAIL;
	}
	if (ptrace(PTRACE_GETSIGMASK, chosen, (void *)sizeof(uint64_t), &A(ij)->sigmask) != 0) {
		failf(ij, "cannot read the signal mask of %s: %s", "the thread", errno);
		hp_inject_release(ij);
		return HP_INJECT_FAIL;
	}
	return HP_INJECT_OK;
}

/* ---- the call ----------------------------------------------------------- */

uintptr_t hp_inject_data_addr(struct hp_inject *ij, size_t len)
{
	uintptr_t top = A(ij)->regs.rsp - RED_ZONE - STACK_MARGIN;
	return (top - len) & ~(uintptr_t)63;
}

/* The signal frame under the data: [F] the trampoline, the ucontext at
 * F + 8 (16-aligned), the FP state above it (64-aligned).  Returns F, the
 * stack pointer the function is entered with, and the frame's bytes. */
static uintptr_t build_frame(struct hp_inject *ij, uintptr_t data, unsigned char **out, size_t *outlen)
{
	struct arch *a = A(ij);
	const struct user_regs_struct *s = &a->regs;
	uintptr_t fpaddr = (data - (a->fplen + 4) - 64) & ~(uintptr_t)63;
	uintptr_t uc = (fpaddr - sizeof(struct kucontext)) & ~(uintptr_t)15;
	uintptr_t f = uc - 8;
	size_t len = data - f;
	unsigned char *b = calloc(1, len);
	struct kucontext k;

	memset(&k, 0, sizeof(k));
	k.uc_flags = UC_FP_XSTATE | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	/* Neither 0, SS_ONSTACK nor SS_DISABLE: rt_sigreturn's
	 * restore_altstack fails on it quietly and leaves the thread's
	 * alternate stack as it is. */
	k.uc_stack.ss_flags = 3;
	struct ksigcontext *c = &k.uc_mcontext;
	c->r8 = s->r8; c->r9 = s->r9; c->r10 = s->r10; c->r11 = s->r11;
	c->r12 = s->r12; c->r13 = s->r13; c->r14 = s->r14; c->r15 = s->r15;
	c->rdi = s->rdi; c->rsi = s->rsi; c->rbp = s->rbp; c->rbx = s->rbx;
	c->rdx = s->rdx; c->rax = s->rax; c->rcx = s->rcx; c->rsp = s->rsp;
	c->rip = s->rip; c->eflags = s->eflags;
	c->cs = (uint16_t)s->cs; c->ss = (uint16_t)s->ss;
	c->fpstate = fpaddr;
	k.uc_sigmask = a->sigmask;
	memcpy(b, &ij->restorer, 8);
	memcpy(b + (uc - f), &k, sizeof(k));
	unsigned char *fp = b + (fpaddr - f);
	memcpy(fp, a->fp, a->fplen);
	if (a->xsave) {
		/* The software bytes rt_sigreturn checks (struct _fpx_sw_bytes):
		 * ptrace gives XCR0 in their first word. */
		uint64_t xcr0;
		uint32_t w[2] = { FP_XSTATE_MAGIC1, (uint32_t)a->fplen + 4 };
		uint32_t size = (uint32_t)a->fplen, magic2 = FP_XSTATE_MAGIC2;
		memcpy(&xcr0, a->fp + 464, 8);
		memset(fp + 464, 0, 48);
		memcpy(fp + 464, w, 8);
		memcpy(fp + 472, &xcr0, 8);
		memcpy(fp + 480, &size, 4);
		memcpy(fp + a->fplen, &magic2, 4);
	}
	*out = b;
	*outlen = len;
	return f;
}

enum hp_inject_err hp_inject_call(struct hp_inject *ij, uintptr_t fn, const uintptr_t *args, int nargs,
				  const void *data, size_t len, void *back, size_t backlen, int timeout_ms)
{
	struct arch *a = A(ij);
	struct user_regs_struct r = a->regs;
	uintptr_t daddr = hp_inject_data_addr(ij, len ? len : 1);
	unsigned char *frame;
	size_t flen;
	int st, sig = 0;

	uintptr_t f = build_frame(ij, daddr, &frame, &flen);
	bool ok = hp_pm_write(ij->pid, f, frame, flen) && (!len || hp_pm_write(ij->pid, daddr, data, len));
	free(frame);
	if (!ok) {
		failf(ij, "cannot write below the stack pointer of %s: %s", "the thread", errno);
		return HP_INJECT_FAIL;
	}
	unsigned long long *regs[] = { &r.rdi, &r.rsi, &r.rdx, &r.rcx, &r.r8, &r.r9 };
	for (int i = 0; i < nargs && i < 6; i++)
		*regs[i] = args[i];
	r.rip = fn;
	r.rsp = f;
	r.rax = 0;
	r.orig_rax = (unsigned long long)-1;
	r.eflags &= ~0x400ull;   /* DF clear, as the ABI wants at a call */
	hp_inject_step("before-call");
	if (ptrace(PTRACE_SETREGS, ij->tid, 0, &r) != 0) {
		failf(ij, "cannot set the registers of %s: %s", "the thread", errno);
		return HP_INJECT_FAIL;
	}
	hp_inject_step("in-call");
	double deadline = hp_inject_now_ms() + timeout_ms;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, ij->tid, 0, (void *)(long)sig) != 0)
			return HP_INJECT_GONE;
		sig = 0;
		if (wait_until(ij->tid, &st, deadline) != ij->tid) {
			snprintf(ij->why, sizeof(ij->why), "the call did not return within %d ms "
				 "(the thread finishes it and goes on by itself)", timeout_ms);
			hp_inject_release(ij);
			return HP_INJECT_FAIL;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return HP_INJECT_GONE;
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			struct user_regs_struct now;
			/* Ours, not a signal handler of the program's returning
			 * through the same trampoline meanwhile: the stack
			 * pointer is just above our frame's return address. */
			if (ptrace(PTRACE_GETREGS, ij->tid, 0, &now) == 0 && (long)now.orig_rax == SYS_rt_sigreturn &&
			    now.rip == ij->restorer + 9 && now.rsp == f + 8 && syscall_entry(ij->tid))
				break;
		} else if ((st >> 16) == 0) {
			sig = WSTOPSIG(st);   /* the program's signal: delivered */
		}
	}
	if (backlen && !hp_pm_read(ij->pid, daddr, back, backlen))
		memset(back, 0, backlen);
	hp_inject_step("after-call");
	/* Through the rt_sigreturn, to be stopped in the restored state. */
	if (ptrace(PTRACE_SYSCALL, ij->tid, 0, 0) != 0 || wait_until(ij->tid, &st, deadline + 5000) != ij->tid)
		return HP_INJECT_GONE;
	struct user_regs_struct now;
	if (ptrace(PTRACE_GETREGS, ij->tid, 0, &now) != 0 || now.rip != a->regs.rip || now.rsp != a->regs.rsp) {
		snprintf(ij->why, sizeof(ij->why), "the thread did not come back to where it was");
		return HP_INJECT_FAIL;
	}
	return HP_INJECT_OK;
}

void hp_inject_release(struct hp_inject *ij)
{
	int st;

	if (!ij->tid) {
		free(ij->arch);
		ij->arch = NULL;
		return;
	}
	if (ptrace(PTRACE_DETACH, ij->tid, 0, 0) != 0 && errno == ESRCH) {
		/* Running (a call that timed out): stop it to let it go. */
		if (ptrace(PTRACE_INTERRUPT, ij->tid, 0, 0) == 0 &&
		    wait_until(ij->tid, &st, hp_inject_now_ms() + 5000) == ij->tid) {
			int sig = (st >> 16) == 0 && WSTOPSIG(st) != (SIGTRAP | 0x80) ? WSTOPSIG(st) : 0;
			ptrace(PTRACE_DETACH, ij->tid, 0, (void *)(long)sig);
		}
	}
	ij->stopped_ms = hp_inject_now_ms() - ij->t0;
	ij->tid = 0;
	free(ij->arch);
	ij->arch = NULL;
}

#else   /* not x86_64 */

enum hp_inject_err hp_inject_stop(struct hp_inject *ij, pid_t pid, const struct hp_pm_object *libc,
				  int timeout_ms)
{
	(void)libc;
	(void)timeout_ms;
	memset(ij, 0, sizeof(*ij));
	ij->pid = pid;
	snprintf(ij->why, sizeof(ij->why), "heapprof attach is written for x86_64 only");
	return HP_INJECT_FAIL;
}

uintptr_t hp_inject_data_addr(struct hp_inject *ij, size_t len)
{
	(void)ij;
	(void)len;
	return 0;
}

enum hp_inject_err hp_inject_call(struct hp_inject *ij, uintptr_t fn, const uintptr_t *args, int nargs,
				  const void *data, size_t len, void *back, size_t backlen, int timeout_ms)
{
	(void)fn; (void)args; (void)nargs; (void)data; (void)len; (void)back; (void)backlen; (void)timeout_ms;
	snprintf(ij->why, sizeof(ij->why), "heapprof attach is written for x86_64 only");
	return HP_INJECT_FAIL;
}

void hp_inject_release(struct hp_inject *ij)
{
	(void)ij;
}

#endif
