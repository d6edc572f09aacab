/* clone3 without glibc: (1) CLONE_VM|CLONE_VFORK on a stack of our own,
 * the child execs /bin/echo at once (posix_spawn's way, no fork
 * handlers); (2) a fork-like clone3 (no CLONE_VM, no fork handlers) whose
 * child allocates and then calls exit(), which runs the exit handlers it
 * copied; (3) a raw CLONE_VM|CLONE_THREAD task glibc does not know of,
 * alive while the process exits, that only makes system calls.
 * Mode from argv[1]: vfork-exec, fork, thread, all (default). */
#define _GNU_SOURCE
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long clone3_raw(struct clone_args *a)
{
	return syscall(SYS_clone3, a, sizeof(*a));
}

/* clone3 whose child starts on a new stack: it cannot return through
 * syscall(), so the child calls fn(arg) from here and never returns.
 * x86-64 only. */
static long clone3_stack(struct clone_args *a, void (*fn)(long), long arg)
{
	long ret;
	register void (*r12)(long) __asm__("r12") = fn;
	register long r13 __asm__("r13") = arg;
	__asm__ volatile(
		"syscall\n\t"
		"test %%rax, %%rax\n\t"
		"jnz 1f\n\t"
		"xor %%ebp, %%ebp\n\t"
		"and $-16, %%rsp\n\t"
		"mov %%r13, %%rdi\n\t"
		"call *%%r12\n\t"
		"hlt\n"
		"1:"
		: "=a"(ret)
		: "0"((long)SYS_clone3), "D"(a), "S"(sizeof(*a)), "r"(r12), "r"(r13)
		: "rcx", "r11", "memory");
	return ret;
}

extern char **environ;

/* The child of a CLONE_VM clone3 returns here on its new stack: it must
 * not return from this function, and makes only system calls. */
static __attribute__((noinline)) void vfork_exec_child(long i)
{
	char num[16];
	int len = 0;
	char rev[16];
	do rev[len++] = (char)('0' + i % 10); while ((i /= 10) && len < 15);
	for (int k = 0; k < len; k++) num[k] = rev[len - 1 - k];
	num[len] = 0;
	char *argv[] = { "/bin/echo", "child", num, NULL };
	syscall(SYS_execve, argv[0], argv, environ);
	syscall(SYS_exit, 127);
}

static int vfork_exec(int n)
{
	size_t sz = 64 * 1024;
	char *stk = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	int bad = 0;
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		struct clone_args a = {
			.flags = CLONE_VM | CLONE_VFORK,
			.exit_signal = SIGCHLD,
			.stack = (uintptr_t)stk,
			.stack_size = sz,
		};
		long pid = clone3_stack(&a, vfork_exec_child, i);
		if (pid < 0) { perror("clone3"); return 1; }
		int st;
		waitpid(pid, &st, 0);
		bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	munmap(stk, sz);
	printf("vfork-exec: %d children, %d bad\n", n, bad);
	return bad != 0;
}

static int fork_like(int n)
{
	int bad = 0;
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		struct clone_args a = { .exit_signal = SIGCHLD };
		long pid = clone3_raw(&a);
		if (pid == 0) {
			long s = 0;
			for (int k = 0; k < 2000; k++) {
				char *p = malloc(32 + k);
				s += (long)(uintptr_t)p & 1;
				free(p);
			}
			char *keep = malloc(100);   /* reachable from a global */
			static char *g; g = keep;
			exit(i & 3);
		}
		if (pid < 0) { perror("clone3"); return 1; }
		int st;
		waitpid(pid, &st, 0);
		bad += !(WIFEXITED(st) && WEXITSTATUS(st) == (i & 3));
	}
	printf("fork-like: %d children, %d bad\n", n, bad);
	return bad != 0;
}

static int spin_word;
static __attribute__((noinline)) void raw_thread_body(long unused)
{
	/* waits until the process exits; only system calls */
	(void)unused;
	for (;;) {
		struct timespec ts = { 0, 1000000 };
		syscall(SYS_nanosleep, &ts, NULL);
		__atomic_add_fetch(&spin_word, 1, __ATOMIC_RELAXED);
	}
}

static int raw_thread(void)
{
	size_t sz = 64 * 1024;
	char *stk = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	struct clone_args a = {
		.flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM,
		.stack = (uintptr_t)stk,
		.stack_size = sz,
	};
	long tid = clone3_stack(&a, raw_thread_body, 0);
	if (tid < 0) { perror("clone3"); return 1; }
	while (__atomic_load_n(&spin_word, __ATOMIC_RELAXED) < 3)
		usleep(1000);
	for (int i = 0; i < 10000; i++)
		free(malloc(64));
	printf("raw thread: running, process exits with it alive\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "all";
	int rc = 0;
	if (!strcmp(m, "vfork-exec") || !strcmp(m, "all"))
		rc |= vfork_exec(200);
	if (!strcmp(m, "fork") || !strcmp(m, "all"))
		rc |= fork_like(200);
	if (!strcmp(m, "thread") || !strcmp(m, "all"))
		rc |= raw_thread();
	fflush(stdout);
	return rc;
}
