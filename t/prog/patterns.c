/*
 * patterns.c -- the ways a program's threads and processes end, and what
 * programs do to their descriptors and privileges, one per argv[1], for
 * tests that compare the preloaded run with the bare one (t/070x).  Each
 * prints only what does not change from run to run, except "ready PID"
 * lines, which tests read to send signals.
 *
 *   pthread_exit [SECS]  a worker runs SECS (0.2), main calls pthread_exit
 *   pthread_exit_wait    the same, the worker sleeps until signalled;
 *                        prints "ready PID" once main has left
 *   thread_exit          a worker calls exit(3); main waits in join
 *   thread__exit         a worker calls _exit(5); main waits in join
 *   main__exit           main calls _exit(4) while a worker sleeps
 *   thread_exec          a worker execs this program: "exec_target"
 *                        prints "exec'd, same pid: yes" and exits 7
 *   thread_fork [SECS]   a worker forks; the child prints "child ready
 *                        PID", sleeps SECS (0.2) and its only thread
 *                        returns (glibc then exits 0); the parent's worker
 *                        reports the child's status, main joins and returns
 *   vfork_exec           vfork, and the child execs sh (status 3)
 *   daemon               daemon(1, 1): the daemon prints "daemon PID",
 *                        runs 0.2 s and exits 0; the parent exits 0 at once
 *   clone, clone_exit    a child process made by clone(2) without
 *                        CLONE_THREAD or CLONE_VM, which allocates and
 *                        returns 9 (or calls exit(9))
 *   clone_storm [SECS]   such children calling exit(9), one after the
 *                        other, for SECS (1.5)
 *   blockall [SECS]      main blocks every signal before starting two
 *                        allocating workers; prints "ready PID"; runs SECS
 *                        (1) and returns 0
 *   closefrom            closes fds from 3 on (close_range), as daemons
 *                        do, then sends itself data through new pipes
 *                        (printing "ready PID" while the data waits)
 *   closefiles A B       closes fds from 3 on, opens A and B (fds 3 and 4,
 *                        where heapprof's log and lock were), forks a
 *                        child that writes "child" to B, writes "parent"
 *                        to A, leaks a block and exits with both open
 *   closeall FILE        closes every descriptor, 0 to 2 too; reports to
 *                        FILE (opened afterwards: fd 0)
 *   dup2                 dup2s its pipe's ends over fds 3 to 20
 *   fds                  lists its open descriptors
 *   nofile               opens /dev/null until it cannot: prints the count
 *   fd2                  says whether fd 2 is open
 *   setuid               drops root for nobody (65534) with setgid and
 *                        setuid, allocates; prints "ready PID" and runs 1 s
 *   chroot DIR           chroots into DIR (and cd /), allocates; prints
 *                        "ready PID" and runs 1 s
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static __thread void *volatile sink;   /* each thread frees only its own */
static const char *self;
static double secs_arg = -1;

__attribute__((noinline)) static void allocate(int n)
{
	for (int i = 0; i < n; i++) {
		free(sink);
		sink = malloc(100 + (size_t)i % 5000);
	}
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static pthread_t start(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, arg) != 0) {
		say("pthread_create failed\n");
		exit(99);
	}
	return t;
}

static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- threads ending -------------------------------------------------- */

static volatile int main_left;

static void *worker_runs(void *arg)
{
	allocate(1000);
	sleep_s(secs_arg >= 0 ? secs_arg : 0.2);
	allocate(1000);
	say("worker done\n");
	return arg;
}

static void *worker_waits(void *arg)
{
	while (!main_left)
		sleep_s(0.01);
	/* Main's thread is gone (a zombie leader); this one takes signals. */
	say("ready %d\n", (int)getpid());
	for (;;)
		pause();
	return arg;
}

static void *worker_exits(void *arg)
{
	allocate(1000);
	sleep_s(0.1);
	say("worker calls %s\n", (const char *)arg);
	if (!strcmp(arg, "_exit"))
		_exit(5);
	exit(3);
}

static void *worker_sleeps(void *arg)
{
	for (;;)
		sleep_s(10);
	return arg;
}

static void *worker_execs(void *arg)
{
	allocate(1000);
	sleep_s(0.05);
	execl(self, self, "exec_target", (char *)NULL);
	say("exec failed: %s\n", strerror(errno));
	exit(98);
	return arg;
}

static void *worker_forks(void *arg)
{
	allocate(1000);
	pid_t pid = fork();
	if (pid < 0) {
		say("fork failed\n");
		exit(97);
	}
	if (pid == 0) {
		/* The child's only thread is this one, not its main. */
		allocate(1000);
		say("child ready %d\n", (int)getpid());
		sleep_s(secs_arg >= 0 ? secs_arg : 0.2);
		allocate(1000);
		say("child's thread returns\n");
		return NULL;
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	say("child exited %d\n", status_of(st));
	return arg;
}

/* ---- processes -------------------------------------------------------- */

static int clone_child(void *arg)
{
	allocate(1000);
	say("clone child\n");
	if (arg)
		exit(9);
	return 9;
}

static int clone_child_quiet(void *arg)
{
	allocate(10);
	exit(9);
	return arg != NULL;
}

static int do_clone(int use_exit)
{
	size_t size = 1 << 20;
	char *stack = malloc(size);

	allocate(1000);
	pid_t pid = clone(clone_child, stack + size, SIGCHLD, use_exit ? (void *)1 : NULL);
	if (pid < 0) {
		say("clone failed\n");
		return 96;
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	say("clone child exited %d\n", status_of(st));
	free(stack);
	return 0;
}

/* Children of clone(2) calling exit, one after the other for secs: one
 * of them is made while the helper thread holds a lock (it rewrites the
 * state file once a second). */
static int clone_storm(double secs)
{
	size_t size = 1 << 16;
	char *stack = malloc(size);
	struct timespec t0, t;
	int n = 0, bad = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		pid_t pid = clone(clone_child_quiet, stack + size, SIGCHLD, NULL);
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || status_of(st) != 9)
			bad++;
		n++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	say("clone children: %s, %s\n", n > 100 ? "many" : "few", bad ? "some failed" : "all exited 9");
	free(stack);
	return 0;
}

static int do_vfork_exec(void)
{
	allocate(1000);
	pid_t pid = vfork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "echo vfork child; exit 3", (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	say("vfork child exited %d\n", status_of(st));
	return 0;
}

static int do_daemon(void)
{
	allocate(1000);
	if (daemon(1, 1) != 0) {
		say("daemon failed\n");
		return 95;
	}
	say("daemon %d\n", (int)getpid());
	allocate(1000);
	sleep_s(0.2);
	say("daemon done\n");
	return 0;
}

/* ---- signals ----------------------------------------------------------- */

static volatile int stop;

static void *worker_allocates(void *arg)
{
	while (!stop) {
		allocate(100);
		sleep_s(0.001);
	}
	return arg;
}

static int do_blockall(double secs)
{
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	pthread_t a = start(worker_allocates, NULL), b = start(worker_allocates, NULL);
	say("ready %d\n", (int)getpid());
	sleep_s(secs);
	stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	sigset_t pending;
	sigpending(&pending);
	say("pending at the end:%s%s%s\n", sigismember(&pending, SIGTERM) ? " TERM" : "",
	    sigismember(&pending, SIGUSR1) ? " USR1" : "", sigismember(&pending, SIGUSR2) ? " USR2" : "");
	return 0;
}

/* ---- descriptors ------------------------------------------------------- */

static void *allocates_once(void *arg)
{
	allocate(500);
	return arg;
}

/* A new thread that allocates: its first sampled stacks are on pages no
 * unwinder has seen yet. */
static void new_thread_allocates(void)
{
	pthread_join(start(allocates_once, NULL), NULL);
}

/* Sends 4000 bytes through a fresh non-blocking pipe, prints "ready
 * PID", waits half a second (a test may signal it meanwhile) while a new
 * thread allocates, reads back what is there and counts the bytes that
 * are not its own; then 50 round trips through a blocking pipe, each
 * with a new allocating thread (an alarm ends a hang with status 142). */
static int own_pipes(const char *why)
{
	int p[2], first[2];
	char buf[8192];

	memset(buf, 'x', sizeof(buf));
	/* A first pipe, so that the data goes through the next numbers too. */
	if (pipe(first) != 0 || pipe2(p, O_NONBLOCK) != 0) {
		say("pipe failed\n");
		return 94;
	}
	ssize_t w = write(p[1], buf, 4000);
	say("ready %d\n", (int)getpid());
	new_thread_allocates();
	sleep_s(0.5);
	memset(buf, 0, sizeof(buf));
	ssize_t r = read(p[0], buf, sizeof(buf));
	int foreign = 0;
	for (ssize_t i = 0; i < r; i++)
		foreign += buf[i] != 'x';
	say("%s: read %zd of %zd bytes sent through fds %d,%d, %d not sent\n", why, r < 0 ? 0 : r, w,
	    p[0], p[1], foreign);
	close(p[0]);
	close(p[1]);
	if (pipe(p) != 0)
		return 94;
	alarm(5);
	int trips = 0;
	for (int i = 0; i < 50; i++) {
		char c = (char)i, d;
		if (write(p[1], &c, 1) != 1)
			break;
		new_thread_allocates();
		if (read(p[0], &d, 1) != 1 || d != c)
			break;
		trips++;
	}
	alarm(0);
	say("%s: %d of 50 blocking round trips\n", why, trips);
	close(first[0]);
	close(first[1]);
	return 0;
}

static int close_from(int lo)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, lo, ~0U, 0) == 0)
		return 0;
#endif
	for (int fd = lo; fd < 65536; fd++)
		close(fd);
	return 0;
}

/* Files the program opens after close-from-3 take the lowest numbers: the
 * ones heapprof's log had.  What it writes there is its own, in the
 * child after a fork too. */
static int close_files(const char *a, const char *b)
{
	close_from(3);
	int fa = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int fb = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fa != 3 || fb != 4)
		return 91;
	pid_t pid = fork();
	if (pid == 0) {
		allocate(1000);
		_exit(write(fb, "child\n", 6) == 6 ? 0 : 92);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
		return 93;
	allocate(1000);
	sink = NULL;   /* the last block leaks: the summary has a line */
	return write(fa, "parent\n", 7) == 7 ? 0 : 94;
}

static int do_dup2(void)
{
	int p[2];
	char buf[8192];

	memset(buf, 'y', sizeof(buf));
	/* A program that puts its own files at fixed numbers, as shells do. */
	if (pipe2(p, O_NONBLOCK) != 0)
		return 94;
	int rd = fcntl(p[0], F_DUPFD, 100), wr = fcntl(p[1], F_DUPFD, 100);
	close(p[0]);
	close(p[1]);
	for (int fd = 3; fd <= 20; fd++)
		dup2(fd % 2 ? rd : wr, fd);
	ssize_t w = write(4, buf, 4000);
	allocate(2000);
	sleep_s(0.5);
	ssize_t r = read(3, buf, sizeof(buf));
	say("dup2: read %zd of %zd bytes through fds 3..20\n", r < 0 ? 0 : r, w);
	return 0;
}

static int list_fds(void)
{
	char path[64], target[256];
	int n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ssize_t len = readlink(path, target, sizeof(target) - 1);
		target[len > 0 ? len : 0] = '\0';
		/* Where the test redirected stdio is the test's business. */
		say("fd %d%s%s\n", fd, fd > 2 ? " " : "", fd > 2 ? target : "");
		n++;
	}
	say("%d open\n", n);
	return 0;
}

static int nofile(void)
{
	int n = 0;

	allocate(1000);
	while (open("/dev/null", O_RDONLY) >= 0)
		n++;
	say("opened %d (%s)\n", n, strerror(errno));
	return 0;
}

/* ---- privileges -------------------------------------------------------- */

static int run_then_exit(void)
{
	say("ready %d\n", (int)getpid());
	for (int i = 0; i < 100; i++) {
		allocate(100);
		sleep_s(0.01);
	}
	say("done\n");
	return 0;
}

static int do_setuid(void)
{
	allocate(1000);
	if (setgid(65534) != 0 || setuid(65534) != 0) {
		say("cannot drop privileges: %s\n", strerror(errno));
		return 93;
	}
	say("uid %d gid %d\n", (int)getuid(), (int)getgid());
	return run_then_exit();
}

static int do_chroot(const char *dir)
{
	allocate(1000);
	if (chroot(dir) != 0 || chdir("/") != 0) {
		say("cannot chroot: %s\n", strerror(errno));
		return 92;
	}
	say("chrooted\n");
	return run_then_exit();
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";

	self = argv[0];
	if (argc > 2)
		secs_arg = atof(argv[2]);
	allocate(100);
	if (!strcmp(how, "pthread_exit")) {
		start(worker_runs, NULL);
		say("main leaves\n");
		pthread_exit(NULL);
	}
	if (!strcmp(how, "pthread_exit_wait")) {
		start(worker_waits, NULL);
		main_left = 1;
		pthread_exit(NULL);
	}
	if (!strcmp(how, "thread_exit") || !strcmp(how, "thread__exit")) {
		pthread_t t = start(worker_exits, (void *)(how[7] == '_' ? "_exit" : "exit"));
		pthread_join(t, NULL);
		return 90;
	}
	if (!strcmp(how, "main__exit")) {
		start(worker_sleeps, NULL);
		allocate(1000);
		sleep_s(0.1);
		say("main calls _exit\n");
		_exit(4);
	}
	if (!strcmp(how, "thread_exec")) {
		char pid[32];
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		setenv("PATTERNS_PID", pid, 1);
		start(worker_sleeps, NULL);
		pthread_t t = start(worker_execs, NULL);
		pthread_join(t, NULL);
		return 90;
	}
	if (!strcmp(how, "exec_target")) {
		const char *pid = getenv("PATTERNS_PID");
		allocate(1000);
		say("exec'd, same pid: %s\n", pid && atoi(pid) == (int)getpid() ? "yes" : "no");
		return 7;
	}
	if (!strcmp(how, "thread_fork")) {
		pthread_t t = start(worker_forks, NULL);
		pthread_join(t, NULL);
		say("parent returns\n");
		return 0;
	}
	if (!strcmp(how, "vfork_exec"))
		return do_vfork_exec();
	if (!strcmp(how, "daemon"))
		return do_daemon();
	if (!strcmp(how, "clone_storm"))
		return clone_storm(secs_arg >= 0 ? secs_arg : 1.5);
	if (!strcmp(how, "clone") || !strcmp(how, "clone_exit"))
		return do_clone(how[5] == '_');
	if (!strcmp(how, "blockall"))
		return do_blockall(secs_arg >= 0 ? secs_arg : 1);
	if (!strcmp(how, "closefrom")) {
		close_from(3);
		return own_pipes("closefrom");
	}
	if (!strcmp(how, "closefiles") && argc > 3)
		return close_files(argv[2], argv[3]);
	if (!strcmp(how, "closeall") && argc > 2) {
		close_from(0);
		if (open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600) != 0)
			return 91;
		dup2(0, 1);
		return own_pipes("closeall");
	}
	if (!strcmp(how, "dup2"))
		return do_dup2();
	if (!strcmp(how, "fds"))
		return list_fds();
	if (!strcmp(how, "nofile"))
		return nofile();
	if (!strcmp(how, "fd2")) {
		say("fd 2 %s\n", fcntl(2, F_GETFD) < 0 ? "closed" : "open");
		return 0;
	}
	if (!strcmp(how, "setuid"))
		return do_setuid();
	if (!strcmp(how, "chroot") && argc > 2)
		return do_chroot(argv[2]);
	fprintf(stderr, "usage: patterns CASE [ARG] (see the source)\n");
	return 2;
}
