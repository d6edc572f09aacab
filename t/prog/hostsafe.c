/*
 * hostsafe.c -- what programs beyond the mainstream do that a preloaded
 * profiler must not change, one case per argv[1] (t/0705-host-safe.t).
 * Prints only what does not change from run to run.
 *
 *   getattr N        starts N threads, one after another; each asks for its
 *                    own stack with pthread_getattr_np before it allocates
 *                    (as every HotSpot thread and Rust std::thread does:
 *                    glibc allocates inside, holding the thread's lock),
 *                    then allocates; prints "threads N"
 *   getattr_main     the main thread's first call is pthread_getattr_np
 *                    (glibc reads /proc/self/maps through stdio inside it)
 *   tasks            prints the kernel's count of this process's threads
 *                    and glibc's view (__libc_single_threaded)
 *   eintr SECS       three threads wait SECS in nanosleep, poll and
 *                    sem_timedwait, main in select; prints "ready PID",
 *                    then "eintr none", or "eintr in CALL" and exits 3 as a
 *                    program that treats EINTR as fatal would
 *   eintr1 SECS      the same with main alone, in nanosleep
 *   sigwait SECS     every signal blocked; a thread waits in sigtimedwait
 *                    for any signal and prints "got signal N" for each
 *   title SECS       writes over its environment, as nginx and redis-server
 *                    do with their process title; prints "ready PID"
 *   cancel           a thread with a cancel pending makes 100 allocations
 *                    (no cancellation point in malloc), then tests for
 *                    it; another thread allocates after; prints "victim
 *                    cancelled after 100 of 100 mallocs", "other allocated"
 *   nproc            starts threads that wait until one cannot be started
 *                    (RLIMIT_NPROC); prints "threads N" (at most 1000)
 *   overflow N       N times: recurses, allocating at every level, until
 *                    the stack overflows; the SIGSEGV handler (on its own
 *                    stack) siglongjmps out, often from inside malloc;
 *                    then allocates again; prints "recovered N"
 *   sigfork          SIGALRM every 2 ms; the handler forks, the child
 *                    allocates and _exits 5; prints "forks 300, all 5: yes"
 *   exitheap         fills glibc's fast bins (2,000 blocks of 48 bytes
 *                    freed), loses a block and calls exit (for
 *                    libexitheap.so, which compares the heap then and
 *                    after heapprof's leak check); prints "filling the
 *                    fast bins"
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <unistd.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <malloc.h>

static void *asks_its_stack(void *arg)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return (void *)1;
	if (pthread_attr_getstack(&attr, &addr, &size) != 0 || !size)
		return (void *)1;
	pthread_attr_destroy(&attr);
	void *p = malloc(64 + (size_t)(uintptr_t)arg % 512);
	memset(p, 1, 64);
	free(p);
	return NULL;
}

static int getattr(int n)
{
	int ok = 0;

	for (int i = 0; i < n; i++) {
		pthread_t t;
		void *r = (void *)1;
		if (pthread_create(&t, NULL, asks_its_stack, (void *)(uintptr_t)i) != 0)
			break;
		pthread_join(t, &r);
		ok += r == NULL;
	}
	printf("threads %d\n", ok);
	return ok == n ? 0 : 1;
}

static int count_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static double secs = 2;
static volatile int interrupted;
static const char *where = "";

static void saw(int r, const char *call)
{
	if (r < 0 && errno == EINTR) {
		where = call;
		interrupted = 1;
	}
}

static void *in_nanosleep(void *arg)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

	(void)arg;
	saw(nanosleep(&ts, NULL), "nanosleep");
	return NULL;
}

static void *in_poll(void *arg)
{
	(void)arg;
	saw(poll(NULL, 0, (int)(secs * 1000)), "poll");
	return NULL;
}

static void *in_semwait(void *arg)
{
	sem_t sem;
	struct timespec ts;

	(void)arg;
	sem_init(&sem, 0, 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)secs;
	saw(sem_timedwait(&sem, &ts), "sem_timedwait");
	return NULL;
}

static void ready(void)
{
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
}

static int eintr(int threads)
{
	pthread_t t[3];
	void *(*fns[3])(void *) = { in_nanosleep, in_poll, in_semwait };
	struct timeval tv = { (time_t)secs, 0 };

	free(malloc(100));
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, fns[i], NULL);
	ready();
	if (threads)
		saw(select(0, NULL, NULL, NULL, &tv), "select");
	else
		in_nanosleep(NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	if (interrupted) {
		printf("eintr in %s\n", where);
		return 3;
	}
	printf("eintr none\n");
	return 0;
}

static void *waits_for_signals(void *arg)
{
	sigset_t all;
	struct timespec ts = { 0, 100 * 1000000L };
	double left = secs;

	(void)arg;
	sigfillset(&all);
	for (; left > 0; left -= 0.1) {
		int sig = sigtimedwait(&all, NULL, &ts);
		if (sig > 0) {
			printf("got signal %d\n", sig);
			fflush(stdout);
		}
	}
	return NULL;
}

static int sigwaiter(void)
{
	sigset_t all;
	pthread_t t;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	free(malloc(100));
	pthread_create(&t, NULL, waits_for_signals, NULL);
	ready();
	pthread_join(t, NULL);
	return 0;
}

extern char **environ;

static int title(void)
{
	/* As setproctitle does: the environment's strings are written over
	 * (they follow argv in the same block of memory). */
	for (char **e = environ; *e; e++)
		memset(*e, 'x', strlen(*e));
	free(malloc(100));
	ready();
	in_nanosleep(NULL);
	return 0;
}

static volatile sig_atomic_t forks;

static void fork_in_handler(int sig)
{
	(void)sig;
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 10; i++)
			free(malloc(100));
		_exit(5);
	}
	if (pid > 0)
		forks++;
}

static int sigfork(void)
{
	struct sigaction sa = { .sa_handler = fork_in_handler, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } }, off = { { 0, 0 }, { 0, 0 } };
	long reaped = 0, bad = 0;
	int st;

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	while (forks < 300) {
		for (int i = 0; i < 1000; i++) {
			char *p = malloc(16 + (size_t)i * 7);
			p[0] = 1;
			free(p);
		}
		while (waitpid(-1, &st, WNOHANG) > 0) {
			reaped++;
			bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 5);
		}
	}
	setitimer(ITIMER_REAL, &off, NULL);
	while (waitpid(-1, &st, 0) > 0) {
		reaped++;
		bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 5);
	}
	printf("forks 300, all 5: %s\n", reaped == forks && !bad ? "yes" : "no");
	return 0;
}

static volatile int go, mallocs_done;

static void *victim(void *arg)
{
	while (!go)
		;   /* no cancellation point */
	for (int i = 0; i < 100; i++) {
		free(malloc(100 + (size_t)i));
		mallocs_done++;
	}
	pthread_testcancel();
	return arg;
}

static void *other(void *arg)
{
	free(malloc(200));
	return arg;
}

static int cancel(void)
{
	pthread_t t;
	void *r;

	pthread_create(&t, NULL, victim, NULL);
	pthread_cancel(t);
	go = 1;
	pthread_join(t, &r);
	printf("victim %s after %d of 100 mallocs\n", r == PTHREAD_CANCELED ? "cancelled" : "returned",
	       mallocs_done);
	pthread_create(&t, NULL, other, NULL);
	pthread_join(t, NULL);
	printf("other allocated\n");
	return 0;
}

static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;

static void *held(void *arg)
{
	pthread_mutex_lock(&hold);
	pthread_mutex_unlock(&hold);
	return arg;
}

static int nproc(void)
{
	pthread_t t[1000];
	int n = 0;

	free(malloc(100));
	pthread_mutex_lock(&hold);
	while (n < 1000 && pthread_create(&t[n], NULL, held, NULL) == 0)
		n++;
	pthread_mutex_unlock(&hold);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("threads %d\n", n);
	return 0;
}

#include <setjmp.h>

static sigjmp_buf overflow_jmp;
static void *volatile overflow_sink;
static volatile int overflow_limit = 1 << 30;

static void on_overflow(int sig)
{
	(void)sig;
	siglongjmp(overflow_jmp, 1);
}

__attribute__((noinline)) static int dive(int depth)
{
	char pad[256];
	void *p = malloc(32 + (size_t)(depth % 200));

	if (depth > overflow_limit)
		return 0;
	overflow_sink = p;
	pad[0] = (char)depth;
	int r = dive(depth + 1) + pad[0];
	free(p);
	return r;
}

static int overflow(int n)
{
	static char altstack[1 << 16];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;
	struct rlimit rl = { 1 << 20, 1 << 20 };   /* overflow after a few thousand levels */
	int done = 0;

	setrlimit(RLIMIT_STACK, &rl);
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_overflow;
	sa.sa_flags = SA_ONSTACK | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	for (int i = 0; i < n; i++) {
		if (sigsetjmp(overflow_jmp, 1) == 0)
			dive(0);
		free(malloc(1000));   /* would wait for an arena lock left held */
		done++;
	}
	printf("recovered %d\n", done);
	return 0;
}

static void *lost;

static int exitheap(void)
{
	enum { N = 2000 };
	static void *p[N];

	printf("filling the fast bins\n");   /* stdout's buffer first: 4 KiB would consolidate them */
	fflush(stdout);
	for (int i = 0; i < N; i++)
		p[i] = malloc(48);
	for (int i = 0; i < N; i++)
		free(p[i]);
	lost = malloc(100);
	memset(lost, 1, 100);
	lost = NULL;
	exit(0);   /* seen by libexitheap.so, unlike a return from main */
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";

	if (!strcmp(how, "getattr"))
		return getattr(argc > 2 ? atoi(argv[2]) : 100);
	if (!strcmp(how, "getattr_main")) {
		int r = asks_its_stack(NULL) != NULL;
		printf("main %s\n", r ? "failed" : "ok");
		return r;
	}
	if (!strcmp(how, "tasks")) {
		void *p = malloc(1000);
		printf("tasks %d single %d\n", count_tasks(), (int)__libc_single_threaded);
		free(p);
		return 0;
	}
	if (argc > 2)
		secs = atof(argv[2]);
	if (!strcmp(how, "eintr"))
		return eintr(3);
	if (!strcmp(how, "eintr1"))
		return eintr(0);
	if (!strcmp(how, "sigwait"))
		return sigwaiter();
	if (!strcmp(how, "title"))
		return title();
	if (!strcmp(how, "sigfork"))
		return sigfork();
	if (!strcmp(how, "cancel"))
		return cancel();
	if (!strcmp(how, "nproc"))
		return nproc();
	if (!strcmp(how, "exitheap"))
		return exitheap();
	if (!strcmp(how, "overflow"))
		return overflow(argc > 2 ? atoi(argv[2]) : 10);
	fprintf(stderr, "usage: hostsafe CASE [ARG] (see the source)\n");
	return 2;
}
