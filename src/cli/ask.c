/*
 * ask.c -- asking a running process for a dump or a change of sampling
 * (see ask.h).
 *
 * Owns its mapping of the process's bell and the control files it makes,
 * which it removes when the request is not taken.  It refuses another
 * user's process (unless the caller may ask any user's) and a process
 * without heapprof.  A process with a bell (src/bellpage.h) is asked
 * there: a bit and a futex wake-up for its helper thread, no signal; one
 * without a helper thread that has not taken the request within
 * HP_BELL_POLL_MS gets heapprof's control signal.  An older library's
 * process whose state file names signal_control is asked through a
 * control file in its runtime directory, woken by that real-time signal
 * when heapprof's handler holds it (see the library's control/remote.h):
 * SIGUSR1 and SIGUSR2, which the program may own, are never used.  An
 * older library's process is sent signal_dump or signal_toggle, after
 * checking that heapprof's handler is in place: those signals terminate
 * a process that does not handle them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ask.h"
#include "bellpage.h"

/* Maps pid's bell when it has one that is its own: a regular file of the
 * process's owner, the right size, magic, version and pid. */
static struct hp_bell *open_bell(pid_t pid)
{
	char path[PATH_MAX];
	struct stat st;
	unsigned uid;
	unsigned long inode;

	if (!hp_proc_bell_path(pid, path, sizeof(path), &inode))
		return NULL;
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	void *p = MAP_FAILED;
	/* The file the process maps, not one that replaced it since (a new
	 * image of the same process after exec). */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= HP_BELL_SIZE &&
	    st.st_ino == inode &&
	    hp_proc_owner(pid, &uid) && st.st_uid == uid)
		p = mmap(NULL, HP_BELL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	struct hp_bell *b = p;
	if (__atomic_load_n(&b->magic, __ATOMIC_ACQUIRE) != HP_BELL_MAGIC || b->version != HP_BELL_VERSION ||
	    b->pid != (uint32_t)hp_proc_nspid(pid)) {
		munmap(p, HP_BELL_SIZE);
		return NULL;
	}
	return b;
}

static void close_bell(struct hp_ask *a)
{
	if (a->bell)
		munmap(a->bell, HP_BELL_SIZE);
	a->bell = NULL;
	a->bit = 0;
}

static unsigned bell_load(const unsigned *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

double hp_ask_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void hp_ask_pause_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static enum hp_ask_status denied(struct hp_ask *a)
{
	unsigned uid;
	char who[48] = "another user";

	if (hp_proc_owner(a->pid, &uid))
		snprintf(who, sizeof(who), "user %u", uid);
	snprintf(a->msg, sizeof(a->msg), "process %d (%s) belongs to %s: permission denied (only its "
		 "owner or root may ask it)", (int)a->pid, a->prog, who);
	return HP_ASK_DENIED;
}

enum hp_ask_status hp_ask_check(struct hp_ask *a, pid_t pid, bool any_user)
{
	unsigned uid;

	close_bell(a);
	a->pid = pid;
	a->ctl[0] = a->msg[0] = '\0';
	snprintf(a->prog, sizeof(a->prog), "?");
	if (kill(pid, 0) != 0 && errno == ESRCH) {
		snprintf(a->msg, sizeof(a->msg), "no process %d", (int)pid);
		return HP_ASK_NO_PROCESS;
	}
	hp_proc_program(pid, a->prog, sizeof(a->prog));
	if (!any_user && ((kill(pid, 0) != 0 && errno == EPERM) ||
			  (hp_proc_owner(pid, &uid) && uid != geteuid())))
		return denied(a);
	pid_t parent;
	if (hp_proc_is_zombie(pid, &parent)) {
		/* Its maps are gone: it would look like a process without
		 * heapprof. */
		snprintf(a->msg, sizeof(a->msg), "process %d (%s) is a zombie: it has exited, and its "
			 "parent (%d) has not reaped it; there is nothing to ask", (int)pid, a->prog,
			 (int)parent);
		return HP_ASK_NO_PROCESS;
	}
	if (!hp_proc_has_heapprof(pid)) {
		if (errno == EACCES || errno == EPERM)
			return denied(a);
		snprintf(a->msg, sizeof(a->msg), "process %d (%s) does not have heapprof loaded; not "
			 "signalling it (the signal would terminate it)", (int)pid, a->prog);
		return HP_ASK_NOT_LOADED;
	}
	if (!hp_proc_read_state(pid, &a->st)) {
		snprintf(a->msg, sizeof(a->msg), "process %d (%s) publishes no state (see "
			 "HEAPPROF_RUNTIME_DIR in heapprof(7)); not signalling it", (int)pid, a->prog);
		return HP_ASK_CANNOT;
	}
	a->bell = open_bell(pid);
	return HP_ASK_OK;
}

/* Sends the control signal when heapprof's handler holds it. */
static int control_signal(struct hp_ask *a)
{
	int sig = a->st.signal_control;

	if (sig > 0 && hp_proc_catches(a->pid, sig) && !hp_proc_blocked_everywhere(a->pid, sig) &&
	    kill(a->pid, sig) != 0 && errno != ESRCH)
		return -1;
	return 0;
}

/* Rings the bell: the request's bit, then a futex wake-up for heapprof's
 * helper thread if it sleeps on the word; no signal. */
static enum hp_ask_status ring(struct hp_ask *a, const char *what)
{
	struct hp_bell *b = a->bell;

	a->answered0 = bell_load(&b->answered);
	a->dumps0 = bell_load(&b->dumps);
	a->failures0 = bell_load(&b->failures);
	a->leak_checks0 = bell_load(&b->leak_checks);
	a->leak_failures0 = bell_load(&b->leak_failures);
	if (!strcmp(what, "dump")) {
		a->bit = HP_BELL_DUMP;
	} else if (!strcmp(what, "leaks")) {
		a->bit = HP_BELL_LEAKS;
	} else {
		__atomic_store_n(&b->want_active, !strcmp(what, "resume") ? 1u : 0u, __ATOMIC_RELEASE);
		a->bit = HP_BELL_ACTIVE;
	}
	__atomic_fetch_or(&b->requests, a->bit, __ATOMIC_RELEASE);
	syscall(SYS_futex, &b->requests, FUTEX_WAKE, 1, NULL, NULL, 0);
	a->rung_at = hp_ask_now();
	a->nudged = false;
	return HP_ASK_OK;
}

enum hp_ask_status hp_ask_stats_ring(struct hp_ask *a)
{
	struct hp_bell *b = a->bell;

	if (!b || !bell_load(&b->helper_tid)) {
		snprintf(a->msg, sizeof(a->msg), "process %d (%s) has no helper thread to give its totals",
			 (int)a->pid, a->prog);
		return HP_ASK_CANNOT;
	}
	a->stats_seq0 = bell_load(&b->stats_seq);
	__atomic_fetch_or(&b->requests, HP_BELL_STATS, __ATOMIC_RELEASE);
	syscall(SYS_futex, &b->requests, FUTEX_WAKE, 1, NULL, NULL, 0);
	return HP_ASK_OK;
}

enum hp_ask_status hp_ask_stats_wait(struct hp_ask *a, double deadline, struct hp_ask_stats *out)
{
	struct hp_bell *b = a->bell;

	while (bell_load(&b->stats_seq) == a->stats_seq0) {
		if (hp_ask_now() >= deadline) {
			snprintf(a->msg, sizeof(a->msg), "process %d (%s) gave no totals in time", (int)a->pid,
				 a->prog);
			return HP_ASK_TIMEOUT;
		}
		hp_ask_pause_ms(1);
	}
	out->live_objects = __atomic_load_n(&b->stats_live_objects, __ATOMIC_RELAXED);
	out->live_bytes = __atomic_load_n(&b->stats_live_bytes, __ATOMIC_RELAXED);
	out->alloc_objects = __atomic_load_n(&b->stats_alloc_objects, __ATOMIC_RELAXED);
	out->alloc_bytes = __atomic_load_n(&b->stats_alloc_bytes, __ATOMIC_RELAXED);
	out->peak_bytes = __atomic_load_n(&b->stats_peak_bytes, __ATOMIC_RELAXED);
	return HP_ASK_OK;
}

void hp_ask_nudge(struct hp_ask *a)
{
	struct hp_bell *b = a->bell;

	if (!b || !a->bit || a->nudged || bell_load(&b->helper_tid) ||
	    bell_load(&b->answered) != a->answered0 || !(bell_load(&b->requests) & a->bit) ||
	    hp_ask_now() < a->rung_at + HP_BELL_POLL_MS / 1000.0)
		return;
	a->nudged = true;
	(void)control_signal(a);
}

/* The control file's path for request what ("dump", "pause", "resume"). */
static void ctl_path(const struct hp_proc_state *st, const char *what, char *buf, size_t cap)
{
	const char *slash = strrchr(st->path, '/');
	int dlen = slash ? (int)(slash - st->path) : 1;

	snprintf(buf, cap, "%.*s/ctl.%d.%s", dlen, slash ? st->path : ".", (int)st->nspid, what);
}

enum hp_ask_status hp_ask_send(struct hp_ask *a, const char *what, int which_sig, const char *opt)
{
	const struct hp_proc_state *st = &a->st;
	pid_t pid = a->pid;

	a->ctl[0] = '\0';
	if (a->bell)
		return ring(a, what);
	if (!st->has_control) {
		if (!which_sig || !hp_proc_catches(pid, which_sig)) {
			snprintf(a->msg, sizeof(a->msg), "process %d (%s) has no %s signal (%s is none, or "
				 "the program handles that signal itself); not signalling it", (int)pid,
				 a->prog, !strcmp(opt, "signal_dump") ? "dump" : "toggle", opt);
			return HP_ASK_CANNOT;
		}
		if (kill(pid, which_sig) != 0)
			goto fail;
		return HP_ASK_OK;
	}
	if (!strcmp(what, "pause") || !strcmp(what, "resume")) {
		char other[PATH_MAX];
		ctl_path(st, !strcmp(what, "pause") ? "resume" : "pause", other, sizeof(other));
		unlink(other);   /* the newer request wins anyway; this one is stale */
	}
	ctl_path(st, what, a->ctl, sizeof(a->ctl));
	int fd = open(a->ctl, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
	if (fd < 0) {
		int err = errno;
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s", a->ctl);
		a->ctl[0] = '\0';
		if (err == EACCES || err == EPERM)
			return denied(a);
		snprintf(a->msg, sizeof(a->msg), "cannot ask process %d: %s: %s", (int)pid, path,
			 strerror(err));
		return HP_ASK_FAILED;
	}
	close(fd);
	/* Wake it now, when the signal cannot reach anything but heapprof's
	 * handler; otherwise its helper thread finds the file within a
	 * second. */
	if (control_signal(a) != 0)
		goto fail;
	return HP_ASK_OK;
fail:;
	int err = errno;
	hp_ask_withdraw(a);
	if (err == EPERM)
		return denied(a);
	snprintf(a->msg, sizeof(a->msg), "cannot signal process %d: %s", (int)pid, strerror(err));
	return HP_ASK_FAILED;
}

void hp_ask_withdraw(struct hp_ask *a)
{
	if (a->bell && a->bit)
		__atomic_fetch_and(&a->bell->requests, ~a->bit, __ATOMIC_ACQ_REL);
	if (a->bell)
		a->bit = 0;
	if (a->ctl[0])
		unlink(a->ctl);
	a->ctl[0] = '\0';
}

/* The bell's answer to a dump request: the dump (HP_ASK_OK), its failure
 * with the library's own words (HP_ASK_FAILED), or none yet
 * (HP_ASK_TIMEOUT). */
static enum hp_ask_status bell_answer(struct hp_ask *a, char *path, size_t cap)
{
	struct hp_bell *b = a->bell;

	if (bell_load(&b->answered) == a->answered0)
		return HP_ASK_TIMEOUT;
	if (bell_load(&b->dumps) != a->dumps0) {
		char own[sizeof(b->last_dump)];
		snprintf(own, sizeof(own), "%.*s", (int)sizeof(b->last_dump) - 1, b->last_dump);
		hp_proc_host_path(a->pid, own, path, cap);
		a->bit = 0;
		return HP_ASK_OK;
	}
	if (bell_load(&b->failures) != a->failures0) {
		snprintf(a->msg, sizeof(a->msg), "process %d could not dump: %.*s", (int)a->pid,
			 (int)sizeof(b->last_error) - 1, b->last_error);
		a->bit = 0;
		return HP_ASK_FAILED;
	}
	snprintf(a->msg, sizeof(a->msg), "process %d answered without a dump (see its standard error "
		 "or log_file)", (int)a->pid);
	a->bit = 0;
	return HP_ASK_FAILED;
}

enum hp_ask_status hp_ask_dump(struct hp_ask *a, double timeout, volatile sig_atomic_t *stop,
			       char *path, size_t cap)
{
	struct hp_proc_state now_st;
	enum hp_ask_status r;

	if (!a->st.prefix[0]) {
		snprintf(a->msg, sizeof(a->msg), "process %d has an empty prof_prefix: it writes no dumps",
			 (int)a->pid);
		return HP_ASK_CANNOT;
	}
	if ((r = hp_ask_send(a, "dump", a->st.signal_dump, "signal_dump")) != HP_ASK_OK)
		return r;
	double deadline = hp_ask_now() + timeout;
	while (hp_ask_now() < deadline) {
		if (a->bell) {
			enum hp_ask_status b = bell_answer(a, path, cap);
			if (b != HP_ASK_TIMEOUT)
				return b;
			hp_ask_nudge(a);
		} else if (hp_proc_read_state(a->pid, &now_st) && now_st.dumps > a->st.dumps &&
		    now_st.last_dump[0]) {
			/* The library renames the dump into place before it
			 * counts it: the file is complete. */
			snprintf(path, cap, "%s", now_st.last_dump);
			return HP_ASK_OK;
		}
		if (kill(a->pid, 0) != 0 && errno == ESRCH) {
			/* The bell stays mapped here: a dump written just before
			 * the exit is still seen. */
			if (a->bell && bell_answer(a, path, cap) != HP_ASK_TIMEOUT)
				return bell_answer(a, path, cap);
			hp_ask_withdraw(a);
			snprintf(a->msg, sizeof(a->msg), "process %d exited before dumping", (int)a->pid);
			return HP_ASK_EXITED;
		}
		if (stop && *stop) {
			hp_ask_withdraw(a);
			snprintf(a->msg, sizeof(a->msg), "stopped before process %d dumped", (int)a->pid);
			return HP_ASK_STOPPED;
		}
		hp_ask_pause_ms(10);
	}
	hp_ask_withdraw(a);
	if (a->bell && !bell_load(&a->bell->helper_tid) && !a->nudged)
		snprintf(a->msg, sizeof(a->msg), "no dump from process %d within %g s: it has no helper "
			 "thread and took heapprof's control signal, so it answers only at its next "
			 "sampled allocation (helper_thread:start in heapprof(7) avoids this)", (int)a->pid,
			 timeout);
	else
		snprintf(a->msg, sizeof(a->msg), "no dump from process %d within %g s", (int)a->pid, timeout);
	return HP_ASK_TIMEOUT;
}

/* A process without a helper thread answers at its next sample point:
 * given up on after this long. */
#define HP_ASK_LEAKS_NO_HELPER_S 2.0

enum hp_ask_status hp_ask_leaks(struct hp_ask *a, double timeout, volatile sig_atomic_t *stop,
				bool blocks, char *path, size_t cap)
{
	char bell[PATH_MAX];
	unsigned long inode;

	if (!a->bell || !hp_proc_bell_path(a->pid, bell, sizeof(bell), &inode)) {
		snprintf(a->msg, sizeof(a->msg), "process %d (%s) has no bell in a runtime directory (an older "
			 "heapprof, or none it could use: HEAPPROF_RUNTIME_DIR in heapprof(7)); a leak check is "
			 "asked there", (int)a->pid, a->prog);
		return HP_ASK_CANNOT;
	}
	char *slash = strrchr(bell, '/');
	snprintf(path, cap, "%.*s/leaks.%d", slash ? (int)(slash - bell) : 1, slash ? bell : ".", (int)a->pid);
	if (blocks)
		__atomic_store_n(&a->bell->leak_blocks, 1u, __ATOMIC_RELEASE);
	enum hp_ask_status r = ring(a, "leaks");
	if (r != HP_ASK_OK)
		return r;
	double deadline = hp_ask_now() + timeout;
	while (hp_ask_now() < deadline) {
		struct hp_bell *b = a->bell;
		if (stop && *stop) {
			hp_ask_withdraw(a);
			return HP_ASK_STOPPED;
		}
		if (bell_load(&b->leak_checks) != a->leak_checks0) {
			a->bit = 0;
			return HP_ASK_OK;
		}
		if (bell_load(&b->leak_failures) != a->leak_failures0) {
			snprintf(a->msg, sizeof(a->msg), "process %d could not check for leaks: %.*s", (int)a->pid,
				 (int)sizeof(b->last_error) - 1, b->last_error);
			a->bit = 0;
			return HP_ASK_FAILED;
		}
		if (kill(a->pid, 0) != 0 && errno == ESRCH) {
			snprintf(a->msg, sizeof(a->msg), "process %d exited before its leak check was done", (int)a->pid);
			a->bit = 0;
			return HP_ASK_EXITED;
		}
		hp_ask_nudge(a);
		/* No helper thread, and no sample point came: it may never
		 * come (a process that sleeps). */
		if (!bell_load(&b->helper_tid) && (bell_load(&b->requests) & a->bit) &&
		    hp_ask_now() > a->rung_at + HP_ASK_LEAKS_NO_HELPER_S)
			break;
		hp_ask_pause_ms(5);
	}
	int taken = !(bell_load(&a->bell->requests) & a->bit);
	hp_ask_withdraw(a);
	if (taken)
		snprintf(a->msg, sizeof(a->msg), "process %d did not finish its leak check within %g s (--timeout)",
			 (int)a->pid, timeout);
	else
		snprintf(a->msg, sizeof(a->msg), "process %d did not take the leak check within %g s: %s", (int)a->pid,
			 bell_load(&a->bell->helper_tid) ? timeout : HP_ASK_LEAKS_NO_HELPER_S, bell_load(&a->bell->helper_tid) ? "its helper thread is busy" :
			 "it has no helper thread (a single-threaded program; helper_thread:start gives it one) "
			 "and reached no sample point (heapprof(1): leaks)");
	return HP_ASK_TIMEOUT;
}
