/*
 * helperthread.c -- the helper thread (see helperthread.h): signal and trigger
 * dumps, the toggle, profiler.ini's live edits, the state file.
 *
 * Owns the thread, its place in glibc's count of threads, the watch on
 * profiler.ini and the triggers' re-arming.  Signal handlers and
 * allocating threads only set request bits and wake it through the
 * request word's futex (record/trigger.h); everything that takes time
 * happens here.  It holds no file descriptor between its tasks.
 *
 * Rate limits: a high-water ('u') dump is written at most once a second
 * and only when live bytes grew 5% (and at least one sampling interval)
 * past the last one, so prof_gdump cannot flood the disk as jemalloc's
 * does.  Requests that arrive while a dump is being written coalesce.
 * Written late, a high-water dump still shows the heap at its peak
 * (record/peak.h), never the lower heap of the moment.
 */
#include <errno.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "control/cgroup.h"
#include "conf/conf.h"
#include "output/dump.h"
#include "base/fmt.h"
#include "control/helperthread.h"
#include "leak/livecheck.h"
#include "control/remote.h"
#include "control/requests.h"
#include "output/bell.h"
#include "conf/inifile.h"
#include "conf/sources.h"
#include "base/log.h"
#include "base/sandbox.h"
#include "control/settings.h"
#include "control/signals.h"
#include "output/statefile.h"
#include "record/peak.h"
#include "record/tls.h"
#include "record/threads.h"
#include "record/trigger.h"
#include "record/switches.h"
#include "stack/stack.h"
#include "next/got.h"
#include "base/sys.h"
#include "base/banned.h"

#define HOUSEKEEPING_MS   1000   /* signal handler check, profiler.ini's look */
#define INI_SETTLE_MS     100    /* let an editor finish writing */
#define GDUMP_MIN_MS      1000
#define CGROUP_POLL_MS    100
#define CGROUP_NEAR_MS    10     /* within 10 points of the threshold */

static pthread_t thread;
/* heapprof detach: the thread is asked to end (stop_asked) and says it
 * has (running back to 0) just before it returns. */
static int stop_asked, running;
static int uncounted;   /* the helper took itself out of glibc's count */
static unsigned *glibc_thread_count(void);

/* The helper's own view of time and of the triggers it re-arms. */
struct helper {
	int registered;               /* the thread said it is heapprof's own */
	int64_t now_ms;
	int64_t next_housekeeping;
	int64_t next_timer;           /* dump_interval_s */
	int64_t next_leak_check;      /* leak_check_interval_s */
	int64_t gdump_after;          /* earliest next 'u' dump */
	int gdump_pending;
	int64_t gdump_dumped_at;      /* live bytes at the last 'u' dump */
	int64_t threshold;            /* next dump_at_bytes level */
	int64_t threshold_base;       /* dump_at_bytes it was computed from */
	int64_t interval_armed_for;   /* lg_prof_interval the arming used */
	struct hp_cgroup cg;
	int cg_looked, cg_armed;
	int64_t next_cgroup;
	struct stat ini_st;           /* profiler.ini at the last look */
	int64_t ini_reload_at;        /* 0: nothing pending */
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void dump(char trigger)
{
	char path[PATH_MAX];

	(void)hp_dump_auto(trigger, 0, path, sizeof(path), NULL);
}

/* ---- profiler.ini watching ------------------------------------------ */

/* Whether the file's identity or times differ from the last look (or,
 * first, from when it was read), remembering this look. */
static bool ini_changed(struct helper *h)
{
	struct stat st;
	bool explicit;

	if (stat(hp_inifile_path(&explicit), &st) != 0)
		memset(&st, 0, sizeof(st));
	bool changed = st.st_ino != h->ini_st.st_ino || st.st_size != h->ini_st.st_size ||
		       st.st_mtim.tv_sec != h->ini_st.st_mtim.tv_sec ||
		       st.st_mtim.tv_nsec != h->ini_st.st_mtim.tv_nsec;
	h->ini_st = st;
	return changed;
}

/* profiler.ini is looked at once a second (a stat(2), no descriptor): an
 * inotify descriptor would be one the program can see, count against its
 * limit, close or dup2 over.  An edit is applied INI_SETTLE_MS after it
 * is seen, so that an editor has finished writing. */
static void watch_ini(struct helper *h)
{
	/* An edit made between start-up, which read the file, and the
	 * first look is an edit too: compare with the file as it was read. */
	h->ini_st = hp_sources_ini.st;
	if (ini_changed(h))
		h->ini_reload_at = h->now_ms + INI_SETTLE_MS;
}

static void look_at_ini(struct helper *h)
{
	if (ini_changed(h) && !h->ini_reload_at)
		h->ini_reload_at = h->now_ms + INI_SETTLE_MS;
}

/* ---- triggers -------------------------------------------------------- */

static void arm(struct helper *h)
{
	int64_t live = hp_trigger_live();

	if (hp_conf.lg_prof_interval >= 0) {
		uint64_t step = (uint64_t)1 << hp_conf.lg_prof_interval;
		uint64_t a = hp_trigger_allocated();
		if (h->interval_armed_for != hp_conf.lg_prof_interval) {
			h->interval_armed_for = hp_conf.lg_prof_interval;
			hp_trigger_arm_interval((a / step + 1) * step);
		}
	} else {
		h->interval_armed_for = -1;
		hp_trigger_arm_interval(UINT64_MAX);
	}
	if (hp_conf.prof_gdump) {
		int64_t grow = h->gdump_dumped_at / 20;
		int64_t min_step = (int64_t)1 << HP_LOAD(&hp_switches.lg_sample);
		hp_trigger_arm_gdump(h->gdump_dumped_at + (grow > min_step ? grow : min_step));
	} else {
		hp_trigger_arm_gdump(INT64_MAX);
	}
	if (hp_conf.dump_at_bytes > 0) {
		if (h->threshold_base != hp_conf.dump_at_bytes) {
			h->threshold_base = hp_conf.dump_at_bytes;
			h->threshold = hp_conf.dump_at_bytes;
		}
		hp_trigger_arm_threshold(h->threshold);
	} else {
		h->threshold_base = 0;
		hp_trigger_arm_threshold(INT64_MAX);
	}
	if (hp_conf.dump_at_cgroup_pct > 0 && h->cg.found)
		hp_trigger_arm_cgroup(h->next_cgroup > live ? h->next_cgroup : live);
	else
		hp_trigger_arm_cgroup(INT64_MAX);
	if (hp_conf.dump_interval_s > 0) {
		int64_t period = hp_conf.dump_interval_s * 1000;
		if (!h->next_timer || h->next_timer > h->now_ms + period)
			h->next_timer = h->now_ms + period;
	} else {
		h->next_timer = 0;
	}
	if (hp_conf.leak_check_interval_s > 0) {
		int64_t period = hp_conf.leak_check_interval_s * 1000;
		if (!h->next_leak_check || h->next_leak_check > h->now_ms + period)
			h->next_leak_check = h->now_ms + period;
	} else {
		h->next_leak_check = 0;
	}
}

/* leak_check_interval_s: a leak check of the running process, its
 * verdict logged (leak/livecheck.h). */
static void leak_check(void)
{
	struct hp_livecheck c;
	const char *why;

	(void)hp_livecheck_run(&c, HP_LIVECHECK_INTERVAL, NULL, 0, &why);
}

static void on_interval(struct helper *h)
{
	uint64_t step = (uint64_t)1 << h->interval_armed_for;

	if (HP_LOAD(&hp_switches.active))
		dump('i');
	hp_trigger_arm_interval((hp_trigger_allocated() / step + 1) * step);
}

static void on_gdump(struct helper *h)
{
	if (h->now_ms < h->gdump_after) {
		h->gdump_pending = 1;   /* rate limit: later */
		return;
	}
	h->gdump_pending = 0;
	h->gdump_after = h->now_ms + GDUMP_MIN_MS;
	/* The dump shows the peak: the next one is for a higher peak. */
	int64_t live = hp_trigger_live(), peak = hp_peak_key();
	h->gdump_dumped_at = peak > live ? peak : live;
	dump('u');
}

static void on_threshold(struct helper *h)
{
	int64_t live = hp_trigger_live();

	if (live < h->threshold)
		return;
	dump('h');
	while (h->threshold <= live && h->threshold < INT64_MAX / 2)
		h->threshold *= 2;   /* again at each doubling */
}

/* Dumps once when the cgroup's use reaches dump_at_cgroup_pct of its
 * limit: the OOM killer sends SIGKILL, after which nothing runs. */
static int64_t check_cgroup(struct helper *h)
{
	int64_t usage, limit;

	if (!h->cg_looked) {
		h->cg_looked = 1;
		h->cg_armed = 1;
		if (!hp_cgroup_find(&h->cg))
			hp_log(HP_LOG_DEBUG, "dump_at_cgroup_pct: no memory cgroup found");
	}
	if (hp_conf.dump_at_cgroup_pct <= 0 || !hp_cgroup_read(&h->cg, &usage, &limit))
		return 0;
	int64_t pct = hp_conf.dump_at_cgroup_pct;
	if (usage >= limit / 100 * pct && h->cg_armed) {
		h->cg_armed = 0;
		char u[32], l[32];
		hp_fmt_bytes(u, sizeof(u), usage);
		hp_fmt_bytes(l, sizeof(l), limit);
		hp_log(HP_LOG_INFO, "cgroup memory at %s of %s (dump_at_cgroup_pct:%lld)", u, l,
		       (long long)pct);
		dump('h');
	} else if (usage < limit / 100 * (pct > 5 ? pct - 5 : 0)) {
		h->cg_armed = 1;   /* below again: the next crossing dumps */
	}
	/* Heap growth of 1% of the limit wakes us before the next poll. */
	h->next_cgroup = hp_trigger_live() + limit / 100;
	hp_trigger_arm_cgroup(h->next_cgroup);
	return usage >= limit / 100 * (pct > 10 ? pct - 10 : 0) ? CGROUP_NEAR_MS : CGROUP_POLL_MS;
}

/* ---- the loop -------------------------------------------------------- */

static int64_t deadline_min(int64_t a, int64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	struct hp_tls *t = &hp_tls;
	int64_t cgroup_due = 0;

	/* Everything this thread does is the profiler's own work. */
	hp_tls_guard_enter(t);
	hp_syscall(SYS_prctl, PR_SET_NAME, "heapprof");   /* no /proc file opened */
	hp_threads_own_add();
	/* From now on this thread answers every request, and the heapprof
	 * command rings the bell without a signal. */
	hp_requests_answer_in_helper();
	hp_bell_set_helper(gettid());
	HP_STORE_REL(&h->registered, 1);
	/* heapprof attach left libunwind's set-up to this thread. */
	if (hp_stack_deferred())
		hp_stack_warm();
	h->now_ms = now_ms();
	watch_ini(h);
	h->next_housekeeping = h->now_ms + HOUSEKEEPING_MS;
	h->interval_armed_for = -1;
	/* A process can reach its cgroup limit within a second of starting:
	 * look now, and arm the heap-growth wake-up at once. */
	if (hp_conf.dump_at_cgroup_pct > 0)
		cgroup_due = h->now_ms + check_cgroup(h);
	arm(h);
	/* The state file was just written, by the constructor or the fork
	 * handler: no need for another now, when a daemon or a fork child
	 * about to exec is likely closing every descriptor (close_range
	 * from 3) while this thread would have one open.  The first
	 * refresh comes with the first housekeeping, a second from now. */
	unsigned early = hp_trigger_take() & ~(unsigned)HP_REQ_STATE;
	for (;;) {
		int64_t deadline = h->next_housekeeping;
		deadline = deadline_min(deadline, h->next_timer);
		deadline = deadline_min(deadline, h->next_leak_check);
		deadline = deadline_min(deadline, h->ini_reload_at);
		if (h->gdump_pending)
			deadline = deadline_min(deadline, h->gdump_after);
		if (hp_conf.dump_at_cgroup_pct > 0)
			deadline = deadline_min(deadline, cgroup_due);
		if (!early)
			hp_trigger_wait(deadline > h->now_ms ? (int)(deadline - h->now_ms) : 0);
		h->now_ms = now_ms();
		if (HP_LOAD_ACQ(&stop_asked))
			break;

		unsigned req = hp_trigger_take() | early;
		early = 0;
		/* Signals, the bell (heapprof dump, pause, resume: no signal
		 * at all), an older command's control files. */
		req = hp_requests_do(req);
		if ((req & HP_REQ_INTERVAL) && h->interval_armed_for >= 0)
			on_interval(h);
		if ((req & HP_REQ_GDUMP) || (h->gdump_pending && h->now_ms >= h->gdump_after))
			on_gdump(h);
		if (req & HP_REQ_THRESHOLD)
			on_threshold(h);
		if (hp_conf.dump_at_cgroup_pct > 0 && ((req & HP_REQ_CGROUP) || h->now_ms >= cgroup_due))
			cgroup_due = h->now_ms + check_cgroup(h);
		if (h->next_timer && h->now_ms >= h->next_timer) {
			h->next_timer = h->now_ms + hp_conf.dump_interval_s * 1000;
			dump('t');
		}
		if (h->next_leak_check && h->now_ms >= h->next_leak_check) {
			leak_check();
			/* From the check's end: a long scan does not pile up. */
			h->now_ms = now_ms();
			h->next_leak_check = h->now_ms + hp_conf.leak_check_interval_s * 1000;
		}
		if (h->ini_reload_at && h->now_ms >= h->ini_reload_at) {
			h->ini_reload_at = 0;
			hp_settings_reload();
		}
		if (h->now_ms >= h->next_housekeeping) {
			h->next_housekeeping = h->now_ms + HOUSEKEEPING_MS;
			/* Under a seccomp filter (base/sandbox.h), no file system
			 * work of its own: the control files and the state file
			 * are off (output/statefile.c), profiler.ini unread. */
			if (!hp_sandbox_on()) {
				hp_signals_check();
				look_at_ini(h);
			}
			/* Attached: objects the program loaded since are
			 * routed too, within a second of their loading. */
			if (HP_LOAD(&hp_switches.attached) == HP_ATTACH_ON && hp_got_objects_changed())
				hp_got_route_more();
			req |= HP_REQ_STATE;
		}
		arm(h);
		if (req & HP_REQ_STATE)
			hp_statefile_publish();
	}
	/* heapprof detach: counted again, as glibc uncounts a thread that
	 * returns; then gone. */
	hp_threads_own_remove();
	hp_bell_set_helper(0);
	unsigned *count = glibc_thread_count();
	if (count && HP_XCHG(&uncounted, 0))
		__atomic_fetch_add(count, 1, __ATOMIC_ACQ_REL);
	HP_STORE_REL(&running, 0);
	return NULL;
}

/* glibc's count of the threads pthread_create started, main's included
 * (GLIBC_PRIVATE, there since NPTL began: libthread_db reads it).  The
 * thread that takes it to zero, by returning from its start routine or
 * by pthread_exit, main's too, calls exit(0): that is how a process whose
 * main called pthread_exit ends when its last thread does.  The helper
 * thread never ends, so it must not be counted: otherwise the process
 * lives on with only the helper, which blocks every signal, and only
 * SIGKILL ends it.  NULL when the C library has no such count. */
static unsigned *glibc_thread_count(void)
{
	static unsigned *count;
	static int looked;

	if (!looked) {
		looked = 1;
		count = dlsym(RTLD_DEFAULT, "__nptl_nthreads");
		if (!count)
			hp_log(HP_LOG_DEBUG, "no __nptl_nthreads in the C library: the helper thread "
			       "keeps a process whose last thread calls pthread_exit");
	}
	return count;
}

/* Takes the helper out of glibc's count, once it is running.  The thread
 * that started it is alive and counted, so the count stays >= 1: no
 * thread can see it reach zero here without calling exit. */
static void uncount(void)
{
	unsigned *count = glibc_thread_count();

	if (count && HP_LOAD(count) >= 2) {
		__atomic_fetch_sub(count, 1, __ATOMIC_ACQ_REL);
		HP_STORE(&uncounted, 1);
	}
}

static int start_thread(void)
{
	static struct helper h;
	pthread_attr_t attr;
	sigset_t all, old;

	glibc_thread_count();   /* dlsym before the thread, not in a fork child */
	memset(&h, 0, sizeof(h));
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 1 << 20);
	/* Created with every signal blocked: it never takes one of the
	 * program's signals (glibc keeps its own SIGCANCEL and SIGSETXID
	 * open, so setuid() still reaches it).  Uncounted, it never outlives
	 * the program's threads, so there is always a thread of the
	 * program's to take a signal whenever the process would take one
	 * bare: the helper never keeps a process alive, never holds up a
	 * signal that would end it, and never runs the program's handlers. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	HP_STORE_REL(&running, 1);
	int err = hp_threads_create(&thread, &attr, helper_main, &h);
	if (err)
		HP_STORE_REL(&running, 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (!err) {
		uncount();
		/* Until it has said it is heapprof's own, a leak scan at an
		 * early exit would take it for a thread of the program's that
		 * blocks signals (a second at the most). */
		for (int i = 0; i < 100000 && !HP_LOAD_ACQ(&h.registered); i++)
			sched_yield();
	}
	return err;
}

/* 0: no helper thread; 1: started (or being started); the fork child's
 * copy is reset by its fork handler. */
static int started;

/* The triggers only a thread of heapprof's can serve: timed, or raised
 * by allocations and rate-limited in time. */
static int timed_work(void)
{
	return hp_conf.dump_interval_s > 0 || hp_conf.dump_at_cgroup_pct > 0 || hp_conf.prof_gdump ||
	       hp_conf.lg_prof_interval >= 0 || hp_conf.dump_at_bytes > 0 || hp_conf.leak_check_interval_s > 0;
}

static void start_now(const char *why)
{
	if (HP_XCHG(&started, 1))
		return;
	int err = start_thread();
	if (err) {
		HP_STORE(&started, 0);
		hp_log(HP_LOG_ERROR, "no helper thread (%s): %s", strerrordesc_np(err),
		       timed_work() ? "timed and trigger dumps are off until the program starts a thread"
				    : "requests are answered on the program's threads");
		return;
	}
	hp_log(HP_LOG_DEBUG, "helper thread started: %s", why);
}

/* Without a helper thread, the program's own threads answer requests
 * (control/requests.c). */
static void start_if_wanted(void)
{
	int mode = hp_conf.helper_thread;

	if (mode == HP_CONF_HELPER_NEVER) {
		if (timed_work())
			hp_log(HP_LOG_WARN, "helper_thread:never: the timed and trigger dumps configured "
			       "(dump_interval_s, dump_at_bytes, dump_at_cgroup_pct, prof_gdump, "
			       "lg_prof_interval, leak_check_interval_s) are not written");
		return;
	}
	if (mode == HP_CONF_HELPER_START)
		start_now("helper_thread:start");
	else if (timed_work())
		start_now("a timed or trigger dump is configured");
}

/* A process allowed few processes (RLIMIT_NPROC, which counts threads)
 * must be able to start as many threads as bare: no helper thread there
 * unless the configuration needs one.  Root is not held to the limit. */
static int few_threads_allowed(void)
{
	struct rlimit rl;

	return geteuid() != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	       rl.rlim_cur < 4096;
}

static void program_started_a_thread(void)
{
	static int declined;

	if (HP_LOAD(&started) || hp_conf.helper_thread != HP_CONF_HELPER_AUTO || HP_LOAD(&declined))
		return;
	if (few_threads_allowed()) {
		HP_STORE(&declined, 1);
		hp_log(HP_LOG_DEBUG, "RLIMIT_NPROC is below 4096: no helper thread, so that the program "
		       "can start as many threads as without heapprof");
		return;
	}
	start_now("the program started a thread");
}

int hp_helperthread_start(void)
{
	hp_threads_on_create(program_started_a_thread);
	hp_requests_answer_here();
	start_if_wanted();
	return 0;
}

void hp_helperthread_start_attached(void)
{
	if (hp_conf.helper_thread == HP_CONF_HELPER_NEVER) {
		hp_requests_answer_here();
		return;
	}
	start_now("heapprof attach");
}

bool hp_helperthread_stop(void)
{
	struct timespec ms = { 0, 1000000 };

	if (!HP_LOAD(&started))
		return true;
	HP_STORE_REL(&stop_asked, 1);
	hp_trigger_request(HP_REQ_STATE);   /* wakes it */
	/* It may be writing a dump: up to 5 s. */
	for (int i = 0; i < 5000 && HP_LOAD_ACQ(&running); i++) {
		hp_trigger_request(HP_REQ_STATE);
		nanosleep(&ms, NULL);
	}
	bool ended = !HP_LOAD_ACQ(&running);
	if (ended) {
		HP_STORE(&started, 0);
		HP_STORE_REL(&stop_asked, 0);
	}
	hp_requests_answer_here();
	return ended;
}

void hp_helperthread_postfork_child(void)
{
	/* glibc has set its count to 1, the forking thread, whichever thread
	 * of the parent's that was: its return ends the child.  The child has
	 * one thread: a helper only if the configuration wants one now. */
	HP_STORE(&started, 0);
	hp_requests_answer_here();
	start_if_wanted();
}
