/*
 * sys.h -- system calls made straight, without the C library's syscall()
 * or prctl().
 *
 * heapprof interposes syscall() and prctl() (intercept/seccomp.c, which
 * watches for a seccomp filter going in), so its own calls must not go
 * through them: the layers run down (src/README.md), and heapprof's
 * futex, mmap and thread name are never the program's business.  These
 * make the call as glibc's syscall() does: the arguments in registers,
 * and -1 with errno for the kernel's -4095..-1.  Async-signal-safe; no
 * state.
 */
#ifndef HP_SYS_H
#define HP_SYS_H

#include <errno.h>

#include "base/compiler.h"

#if defined(__x86_64__)
HP_INLINE long hp_sys_raw(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long r;

	__asm__ __volatile__("syscall"
			     : "=a"(r)
			     : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return r;
}
#elif defined(__aarch64__)
HP_INLINE long hp_sys_raw(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ __volatile__("svc 0"
			     : "+r"(x0)
			     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			     : "memory", "cc");
	return x0;
}
#else
#error "base/sys.h: no raw system call for this architecture"
#endif

/* The C library's convention: -1 and errno for the kernel's -4095..-1. */
HP_INLINE long hp_sys_result(long r)
{
	if ((unsigned long)r > -4096UL) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

HP_INLINE long hp_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	return hp_sys_result(hp_sys_raw(n, a, b, c, d, e, f));
}

/* hp_syscall(SYS_x, args...): syscall(SYS_x, args...) with up to six
 * arguments, each passed as a long (pointers included). */
#define HP_SYS_PICK(n, a, b, c, d, e, f, ...) \
	hp_sys6((long)(n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))
#define hp_syscall(...) HP_SYS_PICK(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)

#endif
