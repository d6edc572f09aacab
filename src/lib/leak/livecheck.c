/*
 * livecheck.c -- a leak check of the running process (see livecheck.h).
 *
 * Owns the check's lock and count.  Runs on heapprof's helper thread (the
 * bell's request, the interval trigger), on an API caller's thread, or on
 * a thread of a process without a helper at its sample point; never in a
 * signal handler (control/requests.c holds the request back there).
 *
 * In leak/: calls verdict.c, and output/bell.h for the runtime directory.
 */
#include <errno.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/fmt.h"
#include "base/log.h"
#include "base/sandbox.h"
#include "base/sys.h"
#include "conf/conf.h"
#include "leak/livecheck.h"
#include "output/bell.h"
#include "record/sampled.h"
#include "record/switches.h"
#include "record/tls.h"
#include "base/banned.h"

static int lock_word;     /* 0 free, 1 held, 2 held with waiters */
static uint32_t checks;

static void lock(void)
{
	int c = 0;

	if (__atomic_compare_exchange_n(&lock_word, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = HP_XCHG(&lock_word, 2);
	while (c) {
		hp_syscall(SYS_futex, &lock_word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
		c = HP_XCHG(&lock_word, 2);
	}
}

static void unlock(void)
{
	if (HP_XCHG(&lock_word, 0) == 2)
		hp_syscall(SYS_futex, &lock_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* The interval trigger's line: the verdict, and where it is. */
static void log_verdict(const struct hp_livecheck *c)
{
	const struct hp_verdict *v = &c->v;
	uint64_t bytes = v->direct_bytes + v->indirect_bytes, objs = v->direct_objects + v->indirect_objects;
	const char *est = v->sampled_lg ? "~" : "";

	if (!bytes && !objs)
		hp_log(HP_LOG_INFO, "leak check %u: no leaks (threads paused %llu ms)%s%s", (unsigned)c->seq,
		       (unsigned long long)(v->pause_us + 500) / 1000, c->path[0] ? "; verdict " : "", c->path);
	else
		hp_log(HP_LOG_INFO, "leak check %u: %s%llu byte%s leaked in %s%llu allocation%s, %llu context%s "
		       "(direct %llu, indirect %llu bytes)%s (threads paused %llu ms)%s%s", (unsigned)c->seq,
		       est, (unsigned long long)bytes, plural(bytes), est, (unsigned long long)objs, plural(objs),
		       (unsigned long long)v->contexts, plural(v->contexts), (unsigned long long)v->direct_bytes,
		       (unsigned long long)v->indirect_bytes,
		       v->sampled_lg ? ", estimated from samples" : "",
		       (unsigned long long)(v->pause_us + 500) / 1000, c->path[0] ? "; verdict " : "", c->path);
	if (v->threads_stopped < v->threads)
		hp_log(HP_LOG_INFO, "leak check %u: %u of %u other threads did not stop: their stacks were "
		       "scanned whole, so a leak may be missed", (unsigned)c->seq,
		       v->threads - v->threads_stopped, v->threads);
}

int hp_livecheck_run(struct hp_livecheck *out, enum hp_livecheck_origin origin,
		     const struct hp_stack_entry *entry, int with_blocks, const char **why)
{
	struct hp_tls *t = &hp_tls;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	if (hp_conf.leak_check != HP_CONF_LEAK_REACHABLE) {
		*why = "leak_check is live, not reachable: there is no reachability to check";
		return ENOTSUP;
	}
	if (hp_sandbox_on()) {
		*why = "the program is sandboxed (seccomp): the scan needs /proc and signals";
		return ENOTSUP;
	}
	hp_tls_guard_enter(t);
	lock();
	out->seq = ++checks;
	hp_bell_leaks_path(out->path, sizeof(out->path));
	struct hp_verdict_live live = {
		.path = out->path[0] ? out->path : NULL,
		.seq = out->seq,
		.blocks = with_blocks,
		.attached_at = HP_LOAD(&hp_switches.attached) ? HP_LOAD(&hp_switches.attached_at) : 0,
	};
	int err = hp_verdict_live(&out->v, HP_LIVECHECK_WAIT_MS, entry, &live);
	unlock();
	if (err) {
		*why = out->v.error ? out->v.error : "the scan failed";
		hp_log(origin == HP_LIVECHECK_INTERVAL ? HP_LOG_INFO : HP_LOG_DEBUG, "leak check %u: no verdict: %s",
		       (unsigned)out->seq, *why);
	} else if (origin == HP_LIVECHECK_INTERVAL) {
		log_verdict(out);
	} else {
		hp_log(HP_LOG_DEBUG, "leak check %u: %llu bytes leaked; threads paused %llu us",
		       (unsigned)out->seq, (unsigned long long)(out->v.direct_bytes + out->v.indirect_bytes),
		       (unsigned long long)out->v.pause_us);
	}
	hp_sampled_leave(t);
	return err;
}

void hp_livecheck_prefork(void)
{
	lock();
}

void hp_livecheck_postfork_parent(void)
{
	unlock();
}

void hp_livecheck_postfork_child(void)
{
	HP_STORE(&lock_word, 0);
	HP_STORE(&checks, 0);
}
