/*
 * world.c -- stopping and resuming the other threads (see world.h).
 *
 * Owns the stop signal's handler and the one stop in progress.  The
 * handler is async-signal-safe: it reads its thread id, stores two words
 * and waits on a futex.  Nothing here allocates or takes a lock; the
 * thread array comes from the caller (hp_world_prepare), mapped before
 * the caller took the locks that a stopped thread could hold.
 *
 * The signal is a real-time one that the program leaves at its default
 * action, chosen the first time (from SIGRTMAX - 2 down); once installed
 * the handler stays, so that a signal still pending in a thread that
 * blocked it cannot terminate the process later: outside a stop the
 * handler returns at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/file.h"
#include "base/fmt.h"
#include "base/log.h"
#include "base/pages.h"
#include "next/sigview.h"
#include "record/threads.h"
#include "scan/world.h"
#include "base/sys.h"
#include "base/banned.h"

static struct {
	int active;                  /* a stop is in progress */
	int release;                 /* futex: stopped threads may go */
	int arrived;                 /* futex: threads in the handler */
	struct hp_world_thread *threads;
	unsigned n;
} cur;

static int stop_signal;

static long futex(int *word, int op, int val, const struct timespec *ts)
{
	return hp_syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

static pid_t my_tid(void)
{
	return (pid_t)hp_syscall(SYS_gettid);
}

static void on_stop(int sig, siginfo_t *info, void *ctx)
{
	int saved = errno;
	volatile uintptr_t here = 0;

	(void)sig;
	(void)info;
	(void)ctx;
	if (HP_LOAD_ACQ(&cur.active)) {
		pid_t tid = my_tid();
		unsigned n = HP_LOAD(&cur.n);
		for (unsigned i = 0; i < n; i++) {
			struct hp_world_thread *t = &cur.threads[i];
			if (t->tid != tid || HP_LOAD(&t->stopped))
				continue;
			/* Below the kernel's signal frame, which holds the
			 * interrupted registers. */
			t->sp = (uintptr_t)&here;
			t->tp = (uintptr_t)pthread_self();
			HP_STORE_REL(&t->stopped, 1);
			__atomic_add_fetch(&cur.arrived, 1, __ATOMIC_RELEASE);
			futex(&cur.arrived, FUTEX_WAKE_PRIVATE, 1, NULL);
			while (!HP_LOAD_ACQ(&cur.release))
				futex(&cur.release, FUTEX_WAIT_PRIVATE, 0, NULL);
			break;
		}
	}
	errno = saved;
}

/* A real-time signal the program leaves at its default action. */
static int install(void)
{
	struct sigaction cur_sa, sa;

	/* Still ours?  A running process is scanned again and again (heapprof
	 * leaks): one that took the signal since gets another. */
	if (stop_signal && sigaction(stop_signal, NULL, &cur_sa) == 0 &&
	    (cur_sa.sa_flags & SA_SIGINFO) && cur_sa.sa_sigaction == on_stop)
		return 0;
	stop_signal = 0;
	for (int sig = SIGRTMAX - 2; sig > SIGRTMIN + 2; sig--) {
		/* Not one heapprof claimed for itself (the control signal):
		 * through the interposed sigaction, that would be taken for
		 * the program's own. */
		if (hp_sigview_state(sig) != HP_SIGVIEW_NONE)
			continue;
		if (sigaction(sig, NULL, &cur_sa) != 0 || cur_sa.sa_handler != SIG_DFL ||
		    (cur_sa.sa_flags & SA_SIGINFO))
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_stop;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigfillset(&sa.sa_mask);
		if (sigaction(sig, &sa, NULL) == 0) {
			stop_signal = sig;
			return 0;
		}
	}
	return EAGAIN;
}

/* heapprof's own threads (the helper) are not the program's: they are
 * never stopped, and block every signal anyway. */
static int is_own(pid_t tid)
{
	const struct hp_threads_own *own;
	unsigned n = hp_threads_own(&own);

	for (unsigned i = 0; i < n; i++)
		if (HP_LOAD_ACQ(&own[i].tid) == tid)
			return 1;
	return 0;
}

/* A thread that has exited but whose task stays listed: the main thread
 * after pthread_exit, a zombie until the process ends.  It cannot stop,
 * and holds no stack the program still uses. */
/* A thread that will not stop: gone (a zombie), or the kernel's own. */
static int exited(pid_t tid)
{
	char path[64], stat[256];
	size_t n = 0;

	hp_fmt(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	int err = hp_file_read_all(path, stat, sizeof(stat) - 1, &n);
	if ((err && err != EFBIG) || !n)
		return 0;
	stat[n] = '\0';
	const char *rp = strrchr(stat, ')');
	if (!rp || rp[1] != ' ')
		return 0;
	if (rp[2] == 'Z' || rp[2] == 'X')
		return 1;
	/* The kernel's io_uring workers (iou-wrk, iou-sqp) are tasks of the
	 * process that never run its code nor take its signals: waiting for
	 * one to stop cost the whole timeout.  Their flags (the 7th field
	 * after the name) carry PF_IO_WORKER. */
	const char *f = rp + 2;
	for (int field = 1; field < 7 && *f; field++) {
		while (*f && *f != ' ')
			f++;
		while (*f == ' ')
			f++;
	}
	unsigned long flags = 0;
	for (; *f >= '0' && *f <= '9'; f++)
		flags = flags * 10 + (unsigned long)(*f - '0');
	return (flags & 0x10) != 0;   /* PF_IO_WORKER */
}

/* Adds the threads of /proc/self/task not yet in w; returns how many. */
static unsigned list_new(struct hp_world *w, pid_t self)
{
	char buf[4096] __attribute__((aligned(8)));
	unsigned added = 0;
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	for (;;) {
		long got = hp_syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (got <= 0)
			break;
		for (long off = 0; off < got;) {
			/* struct linux_dirent64: ino, off, reclen, type, name */
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			const char *name = buf + off + 19;
			off += reclen;
			pid_t tid = 0;
			for (const char *c = name; *c >= '0' && *c <= '9'; c++)
				tid = tid * 10 + (*c - '0');
			if (tid <= 0 || tid == self || is_own(tid))
				continue;
			int known = 0;
			for (unsigned i = 0; i < w->n && !known; i++)
				known = w->threads[i].tid == tid;
			if (known || exited(tid))
				continue;
			if (w->n == HP_WORLD_MAX) {
				w->missed++;
				continue;
			}
			w->threads[w->n].tid = tid;
			w->threads[w->n].stopped = 0;
			HP_STORE_REL(&cur.n, w->n + 1);
			w->n++;
			added++;
		}
	}
	close(fd);
	return added;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Signals threads [from, w->n) and waits until they arrive or wait_ms
 * passes. */
static void signal_and_wait(struct hp_world *w, unsigned from, int wait_ms)
{
	pid_t pid = getpid();
	unsigned sent = 0;

	for (unsigned i = from; i < w->n; i++) {
		if (hp_syscall(SYS_tgkill, pid, w->threads[i].tid, stop_signal) == 0)
			sent++;
		else
			w->threads[i].tid = -w->threads[i].tid;   /* gone */
	}
	int64_t deadline = now_ms() + wait_ms;
	unsigned target = HP_LOAD(&w->stopped) + sent;
	for (;;) {
		int a = HP_LOAD_ACQ(&cur.arrived);
		if ((unsigned)a >= target)
			break;
		int64_t left = deadline - now_ms();
		if (left <= 0)
			break;
		struct timespec ts = { left / 1000, (left % 1000) * 1000000 };
		futex(&cur.arrived, FUTEX_WAIT_PRIVATE, a, &ts);
	}
	w->stopped = (unsigned)HP_LOAD_ACQ(&cur.arrived);
}

int hp_world_prepare(struct hp_world *w)
{
	memset(w, 0, sizeof(*w));
	w->threads = hp_pages_alloc(HP_WORLD_MAX * sizeof(*w->threads));
	return w->threads ? 0 : ENOMEM;
}

void hp_world_release(struct hp_world *w)
{
	hp_pages_free(w->threads, HP_WORLD_MAX * sizeof(*w->threads));
	w->threads = NULL;
}

int hp_world_stop(struct hp_world *w, int wait_ms)
{
	pid_t self = my_tid();

	if (!w->threads)
		return ENOMEM;
	if (install() != 0)
		return EAGAIN;
	cur.threads = w->threads;
	HP_STORE(&cur.n, 0);
	HP_STORE(&cur.arrived, 0);
	HP_STORE(&cur.release, 0);
	HP_STORE_REL(&cur.active, 1);
	unsigned from = 0;
	/* Threads may start while we signal: list again until no new one
	 * shows up (three rounds at the most, as a bound). */
	for (int round = 0; round < 3; round++) {
		if (!list_new(w, self) && round > 0)
			break;
		signal_and_wait(w, from, wait_ms);
		from = w->n;
	}
	return 0;
}

void hp_world_resume(struct hp_world *w)
{
	(void)w;
	HP_STORE_REL(&cur.active, 0);
	HP_STORE_REL(&cur.release, 1);
	futex(&cur.release, FUTEX_WAKE_PRIVATE, 1 << 30, NULL);
}
