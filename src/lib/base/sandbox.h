/*
 * sandbox.h -- whether the process is under a seccomp filter, for every
 * layer to read.
 *
 * A program that installs a seccomp allowlist for its own needs kills
 * itself (SIGSYS) or sees EPERM on any other system call: heapprof's too,
 * on whichever thread the filter covers (all of them with TSYNC).  So
 * from the moment a filter may be in place, heapprof makes no system call
 * of its own but those heapprof(7) lists under SANDBOXES: write(2) of its
 * lines, and the memory and futex calls every threaded program's
 * allocator makes.  It writes no file unless the user asks for a dump
 * while the process runs (then a refused call is reported once).
 *
 * Two ways in: intercept/seccomp.c marks the process before it forwards
 * a call that installs a filter (prctl(PR_SET_SECCOMP), syscall(SYS_seccomp)),
 * and start-up reads /proc/self/status for a filter inherited through
 * exec.  A program that makes the system call itself, without the C
 * library (Chromium's sandbox), is not seen: heapprof(7) says so.
 *
 * Lock-free and async-signal-safe: one word, read with a relaxed load.
 * Nothing here is ever cleared for good: filters cannot be removed.
 */
#ifndef HP_SANDBOX_H
#define HP_SANDBOX_H

#include <errno.h>
#include <unistd.h>

#include "base/compiler.h"

/* Bit 0: a filter is in place.  Above it, twice the number of calls that
 * may be installing one right now (sandboxed while they run, for every
 * thread: a filter with TSYNC covers them all before the call returns). */
extern int hp_sandbox_word;

/* The process's pid when it was last free to ask (getpid(2) is not on
 * every list): just before a filter went in, or /proc/self/status's at a
 * start-up already sandboxed; 0 before either.  A fork child of a
 * sandboxed process still holds its parent's. */
extern int hp_sandbox_pid;

/* Whether heapprof must keep to the sandbox's system calls now. */
HP_INLINE int hp_sandbox_on(void)
{
	return HP_LOAD(&hp_sandbox_word) != 0;
}

/* getpid(2); sandboxed, hp_sandbox_pid instead. */
HP_INLINE int hp_sandbox_getpid(void)
{
	return hp_sandbox_on() ? HP_LOAD(&hp_sandbox_pid) : (int)getpid();
}

/* Before forwarding a call that may install a filter: sandboxed from now
 * on, hp_sandbox_pid set first. */
void hp_sandbox_enter(void);

/* After that call: installed says whether it put a filter in place (it
 * succeeded).  A call that failed leaves the process as it found it. */
void hp_sandbox_leave(int installed);

/* At start-up, before heapprof's other system calls: the "Seccomp:" line
 * of /proc/self/status (1 strict, 2 filter), set by a parent before exec.
 * An open or read that the filter refuses (EPERM, EACCES, ENOSYS) says
 * the same.  Marks the process and returns 1 when sandboxed, with what
 * told (for the log) in *why; 0 otherwise, /proc missing included. */
int hp_sandbox_inherited(const char **why);

/* Whether err is what a filter's SCMP_ACT_ERRNO answers for a call it
 * refuses (EPERM, EACCES or ENOSYS, the usual choices). */
HP_INLINE int hp_sandbox_refusal(int err)
{
	return err == EPERM || err == EACCES || err == ENOSYS;
}

#endif
