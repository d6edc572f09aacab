/*
 * inject.h -- calling a function inside another running process with
 * ptrace: one thread is stopped at a safe point, made to call the
 * function, and left to restore itself (see inject.c's design note).
 */
#ifndef HP_CLI_INJECT_H
#define HP_CLI_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "procmem.h"

struct hp_inject {
	pid_t pid;
	pid_t tid;                /* the thread that makes the calls */
	int sysno;                /* the system call it was stopped in */
	uintptr_t restorer;       /* the C library's rt_sigreturn trampoline */
	struct hp_pm_object libc;
	struct hp_pm_object ldso;  /* the dynamic loader (head 0: none found) */
	bool futex_ok;             /* glibc's malloc: a futex wait may be a safe point */
	double stopped_ms;        /* how long the thread has been held so far */
	double t0;                /* when it was stopped */
	char why[512];            /* the cause of the last failure */
	void *arch;               /* saved registers and FP state (inject.c) */
};

/* What went wrong, for the command's message and exit status. */
enum hp_inject_err {
	HP_INJECT_OK = 0,
	HP_INJECT_EPERM,          /* ptrace refused: privilege, Yama, seccomp */
	HP_INJECT_GONE,           /* the process or thread ended */
	HP_INJECT_NOSAFE,         /* no thread reached a safe point in time */
	HP_INJECT_FAIL,           /* anything else; why says what */
};

/* Stops one thread of pid at a safe point: blocked in (or entering) a
 * system call of an allow-list, made by the C library (libc, which must
 * be mapped), waiting at most timeout_ms for one.  Every other thread
 * runs on.  The pause of the chosen thread starts here. */
enum hp_inject_err hp_inject_stop(struct hp_inject *ij, pid_t pid, const struct hp_pm_object *libc,
				  int timeout_ms);

/* Where the call's data goes in the thread's stack (below its red zone):
 * len bytes at the returned address, valid for the next hp_inject_call. */
uintptr_t hp_inject_data_addr(struct hp_inject *ij, size_t len);

/* Calls fn(args[0], ... args[nargs-1]) (integers or addresses, at most 6)
 * on the stopped thread, with data (len bytes) written at
 * hp_inject_data_addr(ij, len) first and back bytes read back from the
 * same address when the call has returned (the callee's results).  The
 * thread returns through the C library's signal return trampoline, which
 * restores its registers, FP state and signal mask exactly: if this
 * command dies at any moment the thread finishes the call and goes on as
 * before on its own.  The thread is stopped again afterwards. */
enum hp_inject_err hp_inject_call(struct hp_inject *ij, uintptr_t fn, const uintptr_t *args, int nargs,
				  const void *data, size_t len, void *back, size_t backlen, int timeout_ms);

/* Lets the thread go on where it was stopped (PTRACE_DETACH), and frees
 * what hp_inject_stop allocated (also after it failed). */
void hp_inject_release(struct hp_inject *ij);

/* Milliseconds on CLOCK_MONOTONIC. */
double hp_inject_now_ms(void);

/* A named step at which HEAPPROF_ATTACH_PAUSE=<step>[:<n>] makes the
 * command wait, the nth time it gets there (for the tests' kill -9 at
 * that very moment): it prints "heapprof: paused at <step>[:<n>]" on
 * stderr and sleeps. */
void hp_inject_step(const char *step);

#endif
