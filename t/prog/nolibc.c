/*
 * nolibc.c -- a dynamically linked program without any C library: the
 * dynamic loader runs it, and it sleeps SECONDS with raw system calls.
 * For heapprof attach's refusal of a C library it does not know (built
 * -nostdlib, with the loader as its interpreter).
 */
#include <stddef.h>
#include <sys/syscall.h>

static long sys2(long n, long a, long b)
{
	long r;

	__asm__ __volatile__("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b) : "rcx", "r11", "memory");
	return r;
}

void _start(void)
{
	struct { long s, ns; } ts = { 1, 0 };

	for (int i = 0; i < 30; i++)
		sys2(SYS_nanosleep, (long)&ts, 0);
	sys2(SYS_exit_group, 0, 0);
	for (;;)
		;
}
