/*
 * sandboxed.c -- a program that installs a seccomp allowlist of what it
 * needs itself (through libseccomp, as most programs do), for t/0750.
 * It allocates and leaks a little, installs the filter, keeps allocating
 * (and leaks once more), and exits.  Output is the same from run to run
 * but for the first line, "ready PID", for tests to send signals.
 *
 *   sandboxed kill|errno|allow|inherited [tsync] [thread] [_exit] [linger]
 *             [exec] [trap]
 *
 *   kill      a call outside the list kills the process (SIGSYS)
 *   errno     it fails with EPERM instead
 *   allow     a denylist, as container runtimes install: everything is
 *             allowed but ptrace(2) (EPERM), which nothing here makes
 *   inherited installs nothing: run by "exec" under its filter
 *   tsync     SECCOMP_FILTER_FLAG_TSYNC: every thread gets the filter, the
 *             ones already running too (without it, only this one)
 *   thread    a second thread, started before the filter, that makes its
 *             first allocation after it and keeps allocating until main
 *             has finished
 *   _exit     ends with _exit(0) rather than returning from main
 *   linger    allocates on for 1.5 s under the filter (a helper thread's
 *             once-a-second work would be refused by then)
 *   exec      installs the filter, with what the dynamic loader needs to
 *             start a program, and execs "sandboxed inherited" with the
 *             other words, as a sandboxing parent does
 *   trap      (for finding what a program needs) a call outside the list
 *             prints its number and the process exits 99
 *
 * The allowlist: what this program and glibc need for it, bare: write,
 * brk, mmap, munmap, mremap, madvise and mprotect for memory, futex for
 * the thread's lock and join, rt_sigreturn, rt_sigprocmask (a thread's
 * end), clock_gettime (linger's clock), exit and exit_group.  Nothing
 * opens a file or asks for its pid.
 */
#include <errno.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;
static volatile int leaks = 3;     /* keeps the loop rolled: one call site */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int started, go, stop;

/* stdout through write(2) alone: stdio would fstat it first. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && write(1, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) < 0)
		_exit(98);
}

__attribute__((noinline)) static void leak_some(size_t size)
{
	for (int i = 0; i < leaks; i++)
		sink = malloc(size);
}

/* Small, medium and mmap-sized blocks, freed; a realloc chain too. */
__attribute__((noinline)) static unsigned long churn(int rounds)
{
	unsigned long sum = 0;

	for (int r = 0; r < rounds; r++) {
		for (size_t n = 1; n < 300000; n = n * 3 + 1) {
			char *p = malloc(n);
			if (!p)
				_exit(97);
			memset(p, (int)(n & 0x7f), n < 4096 ? n : 4096);
			sum += (unsigned char)p[n / 2 < 4096 ? n / 2 : 0];
			free(p);
		}
		char *q = NULL;
		for (size_t n = 16; n < 200000; n *= 2) {
			char *bigger = realloc(q, n);
			if (!bigger)
				_exit(97);
			q = bigger;
			q[n - 1] = 1;
		}
		free(q);
	}
	return sum;
}

static void *worker(void *arg)
{
	unsigned long sum = 0;

	(void)arg;
	pthread_mutex_lock(&lock);
	started = 1;
	pthread_cond_broadcast(&cond);
	while (!go)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	/* Its first allocation, sandboxed: live until the end, in dumps. */
	char *held = malloc(4096);
	if (!held)
		_exit(97);
	for (;;) {
		sum += churn(1);
		pthread_mutex_lock(&lock);
		int done = stop;
		pthread_mutex_unlock(&lock);
		if (done)
			break;
	}
	free(held);
	return sum ? NULL : NULL;
}

static void on_sigsys(int sig, siginfo_t *info, void *ctx)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "refused system call %d\n", info->si_syscall);

	(void)sig;
	(void)ctx;
	if (write(2, line, (size_t)n) < 0)
		_exit(96);
	_exit(99);
}

static int has(int argc, char **argv, const char *word)
{
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], word))
			return 1;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int install(const char *how, int tsync, int trap, int exec)
{
	static const int allowed[] = {
		SCMP_SYS(write), SCMP_SYS(brk), SCMP_SYS(mmap), SCMP_SYS(munmap),
		SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(mprotect), SCMP_SYS(futex),
		SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigprocmask), SCMP_SYS(clock_gettime),
		SCMP_SYS(exit), SCMP_SYS(exit_group),
	};
	/* execve, and the dynamic loader's and libc's start-up. */
	static const int to_start[] = {
		SCMP_SYS(execve), SCMP_SYS(openat), SCMP_SYS(read), SCMP_SYS(close),
		SCMP_SYS(newfstatat), SCMP_SYS(fstat), SCMP_SYS(pread64), SCMP_SYS(arch_prctl),
		SCMP_SYS(set_tid_address), SCMP_SYS(set_robust_list), SCMP_SYS(rseq),
		SCMP_SYS(prlimit64), SCMP_SYS(access), SCMP_SYS(getrandom),
	};
	int deny = !strcmp(how, "allow");
	scmp_filter_ctx ctx = seccomp_init(trap ? SCMP_ACT_TRAP :
					   !strcmp(how, "kill") ? SCMP_ACT_KILL_PROCESS :
					   deny ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO(EPERM));

	if (!ctx) {
		say("seccomp_init failed\n");
		return -1;
	}
	if (deny && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ptrace), 0)) {
		say("seccomp_rule_add failed\n");
		return -1;
	}
	for (size_t i = 0; !deny && i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0)) {
			say("seccomp_rule_add failed\n");
			return -1;
		}
	for (size_t i = 0; !deny && exec && i < sizeof(to_start) / sizeof(to_start[0]); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, to_start[i], 0)) {
			say("seccomp_rule_add failed\n");
			return -1;
		}
	if (tsync && seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1)) {
		say("no TSYNC\n");
		return -1;
	}
	int err = seccomp_load(ctx);
	if (err) {
		say("seccomp_load: %s\n", strerror(-err));
		return -1;
	}
	/* libseccomp's context is freed while sandboxed: free(3) only. */
	seccomp_release(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t th;

	if (argc < 2 || (strcmp(argv[1], "kill") && strcmp(argv[1], "errno") && strcmp(argv[1], "allow") &&
			 strcmp(argv[1], "inherited"))) {
		fprintf(stderr, "usage: sandboxed kill|errno|allow|inherited [tsync] [thread] [_exit] [linger] "
			"[exec] [trap]\n");
		return 2;
	}
	int tsync = has(argc, argv, "tsync"), thread = has(argc, argv, "thread");
	int trap = has(argc, argv, "trap"), underscore = has(argc, argv, "_exit");
	int linger = has(argc, argv, "linger"), exec = has(argc, argv, "exec");
	int inherited = !strcmp(argv[1], "inherited");

	if (!inherited)
		say("ready %d\n", (int)getpid());   /* before the filter */
	leak_some(100);
	sink = malloc(8 << 20);   /* sampled at any rate: e^-16 to miss it */
	say("leaked 3 x 100 bytes and 8 MiB\n");
	if (thread && pthread_create(&th, NULL, worker, NULL)) {
		say("pthread_create failed\n");
		return 3;
	}
	/* Running before the filter: glibc's start of a thread (rseq) is
	 * not on the list. */
	if (thread) {
		pthread_mutex_lock(&lock);
		while (!started)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
	}
	if (trap) {
		struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
		sigaction(SIGSYS, &sa, NULL);
	}

	if (!inherited && install(argv[1], tsync, trap, exec))
		return 3;
	if (exec) {
		char *args[16] = { argv[0], "inherited" };
		int n = 2;
		for (int i = 2; i < argc && n < 15; i++)
			if (strcmp(argv[i], "exec"))
				args[n++] = argv[i];
		say("sandboxed (%s): exec\n", argv[1]);
		execv(argv[0], args);
		say("execv: %s\n", strerror(errno));
		return 3;
	}
	say("sandboxed (%s%s%s)\n", argv[1], tsync ? ", tsync" : "", thread ? ", a thread" : "");

	if (thread) {
		pthread_mutex_lock(&lock);
		go = 1;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
	unsigned long sum = churn(40);
	leak_some(200);
	say("churned (%lu) and leaked 3 x 200 bytes more\n", sum);
	if (linger) {
		double until = now_s() + 1.5;
		while (now_s() < until)
			churn(1);
		say("lingered 1.5 s\n");
	}
	if (thread) {
		pthread_mutex_lock(&lock);
		stop = 1;
		pthread_mutex_unlock(&lock);
		pthread_join(th, NULL);
		say("the thread is done\n");
	}
	say("exiting with %s\n", underscore ? "_exit(0)" : "exit(0)");
	if (underscore)
		_exit(0);
	return 0;
}
