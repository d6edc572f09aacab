/*
 * lifecycle.c -- the library's lifecycle: start-up, fork and exit.
 *
 * Owns the constructor, the fork handlers and the exit handler.  Start-up
 * runs inside the guard so that whatever dlsym, libunwind and glibc
 * allocate for us passes through unsampled; sampling starts only when
 * hp_switches.ready is published at the very end.
 *
 * Under a seccomp filter (base/sandbox.h), found at start-up or installed
 * later, no helper thread is started (a fork child's included) and the
 * exit handler asks for no pid.
 *
 * The exit handler is registered with on_exit() from the constructor.
 * Preloaded libraries are initialised before the program, so ours is one
 * of the first handlers registered and runs after the program's atexit
 * handlers, its C++ static destructors and the shared libraries'
 * destructors: as late as anything can run.
 */
#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/conf.h"
#include "conf/sources.h"
#include "next/nextcxx.h"
#include "output/dump.h"
#include "output/dumpname.h"
#include "control/helperthread.h"
#include "control/lifecycle.h"
#include "control/remote.h"
#include "control/requests.h"
#include "leak/leak.h"
#include "leak/livecheck.h"
#include "record/live.h"
#include "record/ages.h"
#include "base/log.h"
#include "base/pages.h"
#include "base/sandbox.h"
#include "record/sampled.h"
#include "next/next.h"
#include "next/nextmaps.h"
#include "next/sigview.h"
#include "control/scope.h"
#include "control/signals.h"
#include "control/settings.h"
#include "stack/stack.h"
#include "stack/unwind.h"
#include "stack/unwpipe.h"
#include "record/stacktab.h"
#include "output/statefile.h"
#include "record/counters.h"
#include "record/peak.h"
#include "record/threads.h"
#include "record/trigger.h"
#include "record/tls.h"
#include "version.h"
#include "record/stale.h"
#include "record/switches.h"
#include "base/banned.h"

static int prefork_locked;
/* The process whose exit handler this is: the one that started heapprof,
 * or a fork child (its fork handler sets it).  A child made by clone(2)
 * without fork handlers runs the exit handlers it copied, with whatever
 * locks heapprof's other threads held at that instant copied held: it
 * checks nothing, as its _exit would not (leak/leak.c). */
static pid_t self_pid;

static void prefork(void)
{
	struct hp_tls *t = &hp_tls;

	/* fork() from a signal handler that interrupted the profiler on this
	 * thread: we may hold any of these locks; take none, and reset them
	 * all in the child. */
	prefork_locked = t->guard == 0;
	hp_tls_guard_enter(t);
	if (!prefork_locked)
		return;
	hp_livecheck_prefork();     /* first: a check takes every lock below */
	hp_unwpipe_prefork();       /* a walk may need the locks below */
	hp_unwind_prefork();        /* its holder may take the pages' lock */
	hp_threads_prefork();
	hp_stacktab_prefork();
	hp_counters_prefork();
	hp_live_prefork();
	hp_pages_registry_lock();   /* taken under shard locks */
	hp_nextmaps_lock();         /* taken inside munmap: last */
	hp_sigview_prefork();
}

static void postfork_parent(void)
{
	if (prefork_locked) {
		hp_sigview_postfork_parent();
		hp_nextmaps_unlock();
		hp_pages_registry_unlock();
		hp_live_postfork_parent();
		hp_counters_postfork_parent();
		hp_stacktab_postfork_parent();
		hp_threads_postfork_parent();
		hp_unwind_postfork_parent();
		hp_unwpipe_postfork_parent();
		hp_livecheck_postfork_parent();
	}
	hp_sampled_leave(&hp_tls);
}

static void postfork_child(void)
{
	/* First: the request word may be the parent's shared bell. */
	hp_trigger_postfork_child();
	hp_sigview_postfork_child(prefork_locked);
	hp_pages_postfork_child();
	hp_nextmaps_postfork_child();
	hp_unwpipe_postfork_child();
	hp_live_postfork_child();
	hp_counters_postfork_child();
	hp_peak_postfork_child();
	hp_stacktab_postfork_child();
	hp_threads_postfork_child();
	hp_unwind_postfork_child();
	hp_dump_postfork_child();
	hp_settings_postfork_child();
	hp_statefile_postfork_child();
	hp_remote_forget();
	/* A leak check the parent's helper ran, or an API caller waited on:
	 * neither thread is in the child. */
	hp_livecheck_postfork_child();
	hp_requests_postfork_child();
	/* Out of scope (run_only_top): nothing sampled from now on, and, as
	 * self_pid and the leak gate's owner stay the parent's, no final
	 * dump, no leak check, no state file and no helper thread.  So too
	 * after heapprof detach. */
	if (!hp_scope_fork_profiles() || HP_LOAD(&hp_switches.attached) == HP_ATTACH_OFF) {
		hp_signals_leave();
		HP_STORE(&hp_switches.enabled, 0);
		hp_switches_new_epoch();
		hp_sampled_leave(&hp_tls);
		return;
	}
	hp_leak_set_owner();
	self_pid = hp_sandbox_getpid();
	/* The child keeps profiling: its own bell (made with its state), a
	 * helper thread if it needs one (not under its parent's filter:
	 * pthread_create's calls may be refused), and its state file. */
	if (!hp_sandbox_on())
		hp_helperthread_postfork_child();
	else
		hp_requests_answer_here();
	hp_statefile_publish();
	hp_sampled_leave(&hp_tls);
}

/* heapprof's own memory, for log_level:debug. */
static void log_memory(void)
{
	uint64_t live_now, live_peak;

	hp_live_table_bytes(&live_now, &live_peak);
	hp_log(HP_LOG_DEBUG, "memory: %llu live records in %llu bytes of tables (at most %llu); "
	       "%u stacks of %llu frames in %u nodes; %llu bytes mapped",
	       (unsigned long long)hp_live_records(), (unsigned long long)live_now,
	       (unsigned long long)live_peak, hp_stacktab_count(),
	       (unsigned long long)hp_stacktab_frames(), hp_stacktab_nodes(), (unsigned long long)hp_pages_mapped());
}

/* Where the program entered exit (stack/entry.h): its caller's frame and
 * registers, found by walking out of this handler to exit's frame, or,
 * when that cannot be done, this frame with room below for the registers
 * the entry function spilled. */
static void exit_entry(struct hp_stack_entry *e)
{
	memset(e, 0, sizeof(*e));
	if (!hp_leak_scan_due())
		return;   /* no scan: no walk */
	if (!hp_stack_entry_of((const void *)exit, e))
		e->sp = (uintptr_t)__builtin_frame_address(0) - 256;
}

static void exit_handler(int status, void *arg)
{
	struct hp_stack_entry entry;

	__builtin_unwind_init();
	(void)arg;
	if (HP_LOAD(&hp_switches.attached) == HP_ATTACH_OFF)
		return;   /* heapprof detach: inert */
	/* Sandboxed, getpid(2) may be refused: a clone(2) child without fork
	 * handlers that calls exit is then taken for the process. */
	if (!hp_sandbox_on() && getpid() != HP_LOAD(&self_pid))
		return;
	hp_stack_log_stats();
	log_memory();
	exit_entry(&entry);
	hp_leak_at_exit(status, &entry);
}

/* What start-up does once, whichever way the library came in. */
static void start_once(int sandboxed)
{
	static int done;

	if (done)
		return;
	done = 1;
	hp_threads_init();
	hp_stack_init();
	pthread_atfork(prefork, postfork_parent, postfork_child);
	hp_leak_set_owner();
	self_pid = hp_sandbox_getpid();
	on_exit(exit_handler, NULL);
	(void)sandboxed;
}

/* Ages (prof_age), decided once, before sampling starts: the live
 * table's layout cannot change after its first block.  Not in exact
 * mode unless asked: there every block is in the table, and its tick
 * cost 3.5% more instructions (churn) and a quarter more table memory
 * (the 1 GiB heap: 275 MB instead of 220). */
static void keep_ages(void)
{
	static int decided;

	if (decided)
		return;
	decided = 1;
	/* Under a seccomp filter, no clock read on the allocation path: the
	 * vDSO's, where a kernel has none, is a system call the filter may
	 * answer by killing the process. */
	if (hp_sandbox_on())
		return;
	if (hp_conf.prof_age == HP_CONF_AGE_TRUE ||
	    (hp_conf.prof_age == HP_CONF_AGE_SAMPLED && hp_conf.lg_prof_sample > 0))
		hp_live_keep_ages();
}

/* Start-up: preloaded, from the constructor (extra NULL); attached, from
 * hp_lifecycle_attach, with heapprof attach's -c options. */
static void start(const char *extra, int sandboxed, const char *sandbox_why)
{
	struct hp_tls *t = &hp_tls;
	int attached = HP_LOAD(&hp_switches.attached) == HP_ATTACH_ON;

	hp_tls_guard_enter(t);
	hp_nextcxx_resolve();
	hp_log_hold(1);
	hp_sources_load_with(extra);
	/* The gate counts every block, unless a rate was chosen: then it is
	 * statistical and says so below. */
	if (hp_conf.prof_leak_error && hp_conf_sources[HP_CONF_O_lg_prof_sample] == HP_CONF_SRC_DEFAULT)
		hp_conf.lg_prof_sample = 0;
	hp_ages_begin();
	keep_ages();
	/* A process outside prof_programs or run_only_top starts as with
	 * prof:false. */
	HP_STORE(&hp_switches.enabled, hp_conf.prof && hp_scope_profiles());
	HP_STORE(&hp_switches.lg_sample, (int)hp_conf.lg_prof_sample);
	/* Attached: every block allocated before is unknown; the leak scan
	 * takes what it cannot see for roots (record/switches.h).  And the
	 * borrowed thread is not held for libunwind's set-up: the helper
	 * thread does it (stack/stack.h). */
	if (attached) {
		HP_STORE(&hp_switches.missed, 1);
		if (!sandboxed && hp_conf.helper_thread != HP_CONF_HELPER_NEVER)
			hp_stack_defer_libunwind();
	}
	if (hp_switches.enabled) {
		hp_settings_apply();
		hp_log_hold(0);
		if (hp_conf.prof_leak_error && hp_conf.lg_prof_sample > 0)
			hp_log(HP_LOG_WARN, "prof_leak_error at lg_prof_sample:%d is statistical: a leak "
			       "smaller than about 2^%d bytes can pass; lg_prof_sample:0 records every allocation",
			       (int)hp_conf.lg_prof_sample, (int)hp_conf.lg_prof_sample);
		start_once(sandboxed);
		hp_statefile_init();
		hp_remote_forget();
		if (sandboxed)
			hp_requests_answer_here();
		else if (attached)
			hp_helperthread_start_attached();
		else
			hp_helperthread_start();
		if (sandboxed && hp_conf.leak_report)   /* not heapprof check's */
			hp_log(HP_LOG_INFO, "the program starts under a seccomp filter (%s): no helper thread, "
			       "no state file, and heapprof writes no file of its own (heapprof(7): SANDBOXES)",
			       sandbox_why);
	} else {
		hp_settings_log();
		hp_log_hold(0);
	}
	hp_log(HP_LOG_DEBUG, "heapprof %s: sampling %s, 1 in 2^%d bytes, next allocator %s%s",
	       HEAPPROF_VERSION, hp_switches.enabled ? "on" : "off", hp_switches.lg_sample,
	       hp_next_provider(), attached ? " (attached)" : "");
	hp_tls_guard_leave(t);
	hp_switches_new_epoch();
	HP_STORE_REL(&hp_switches.ready, 1);
}

__attribute__((constructor(101))) static void hp_init(void)
{
	const char *sandbox_why;

	hp_next_resolve();
	/* Loaded by heapprof attach: nothing more until it calls
	 * heapprof_attach (control/attach.c); until then no call of the
	 * program's comes here. */
	if (hp_next_dlopened()) {
		hp_nextcxx_resolve();
		return;
	}
	hp_stale_init();
	/* A filter inherited through exec: before any other system call. */
	int sandboxed = hp_sandbox_inherited(&sandbox_why);
	start(NULL, sandboxed, sandbox_why);
}

int hp_lifecycle_attach(const char *extra, const char **why)
{
	static int stale_done;
	const char *sandbox_why;

	*why = NULL;
	if (hp_sandbox_inherited(&sandbox_why)) {
		*why = "the process runs under a seccomp filter: heapprof would have no helper thread "
		       "and no files; start it under heapprof run instead";
		return -1;
	}
	if (!stale_done) {
		stale_done = 1;
		hp_stale_init();
	}
	if (HP_LOAD(&hp_switches.ready)) {
		/* Again, after a detach: a new generation, as prof.reset
		 * makes (control/api.c): what was recorded before the detach,
		 * freed since behind heapprof's back, drops out of every
		 * figure. */
		HP_ADD(&hp_switches.gen, 1);
		hp_peak_reset();
	}
	HP_STORE(&hp_switches.attached_at, (int64_t)time(NULL));
	HP_STORE_REL(&hp_switches.attached, HP_ATTACH_ON);
	start(extra, 0, "");
	return 0;
}

void hp_lifecycle_detach(void)
{
	struct hp_tls *t = &hp_tls;

	HP_STORE(&hp_switches.enabled, 0);
	hp_switches_new_epoch();
	HP_STORE_REL(&hp_switches.attached, HP_ATTACH_OFF);
	hp_tls_guard_enter(t);
	if (!hp_helperthread_stop())
		hp_log(HP_LOG_WARN, "detach: the helper thread did not end within 5 s");
	hp_statefile_remove();
	hp_tls_guard_leave(t);
}
