/*
 * trigger.c -- dump requests and the counters behind them (see trigger.h).
 *
 * Owns the request word, which is also the futex the helper thread sleeps
 * on, and the published counters.  Called from signal handlers (request
 * only), the allocation slow path and the helper thread.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "conf/conf.h"
#include "record/trigger.h"
#include "base/sys.h"
#include "base/banned.h"

static unsigned own_word;
unsigned *hp_trigger_word = &own_word;
static int word_shared;
unsigned hp_trigger_answer_mask;
static hp_trigger_server *server;
static int64_t *live_mirror;
static int64_t live;   /* the published estimate (below) */

void hp_trigger_mirror_live(int64_t *where)
{
	if (where)
		HP_STORE(where, HP_LOAD(&live));
	HP_STORE_REL(&live_mirror, where);
}
static unsigned toggles;
/* A thread has waited on the word (the helper): until then a request is
 * only stored, so that a process without a helper (one started under a
 * seccomp filter, base/sandbox.h) makes no system call for it. */
static int waiter;

#define requests (*hp_trigger_word)

static int op(int private_op)
{
	return HP_LOAD(&word_shared) ? private_op & ~FUTEX_PRIVATE_FLAG : private_op;
}

void hp_trigger_use_word(unsigned *word, int shared)
{
	unsigned *old = HP_LOAD_ACQ(&hp_trigger_word);

	if (!word) {
		word = &own_word;
		shared = 0;
	}
	if (word == old)
		return;
	HP_STORE(&word_shared, shared);
	HP_STORE_REL(&hp_trigger_word, word);
	unsigned moved = __atomic_exchange_n(old, 0, __ATOMIC_ACQ_REL) & 0xffffu;
	if (moved)
		hp_trigger_request(moved);
}

void hp_trigger_set_server(hp_trigger_server *fn)
{
	HP_STORE_REL(&server, fn);
	HP_STORE(&hp_trigger_answer_mask, fn ? (unsigned)HP_REQ_ANSWERABLE : 0u);
}

void hp_trigger_answer_from_handler(void)
{
	if (HP_LOAD(&hp_trigger_answer_mask) && !hp_conf.dump_symbols)
		hp_trigger_answer();
}

void hp_trigger_answer(void)
{
	hp_trigger_server *fn = HP_LOAD_ACQ(&server);

	if (fn)
		fn();
}

static uint64_t allocated;
static int64_t live;
static uint64_t next_interval = UINT64_MAX;
static int64_t next_gdump = INT64_MAX;
static int64_t next_threshold = INT64_MAX;
static int64_t next_cgroup = INT64_MAX;

/* Not inlined into hp_trigger_publish: the system call's set-up would
 * cost every publish, which seldom asks for anything. */
HP_NOINLINE void hp_trigger_request(unsigned reqs)
{
	int saved = errno;

	/* Sequentially consistent with hp_trigger_wait's store and load:
	 * either this sees the waiter or the waiter sees the request. */
	__atomic_fetch_or(&requests, reqs, __ATOMIC_SEQ_CST);
	/* A system call, but no descriptor: nothing the program can close or
	 * reuse, and nothing to wake when the helper thread is not asleep. */
	if (__atomic_load_n(&waiter, __ATOMIC_SEQ_CST))
		hp_syscall(SYS_futex, &requests, op(FUTEX_WAKE_PRIVATE), 1, NULL, NULL, 0);
	errno = saved;
}

void hp_trigger_wait(int timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000 };

	/* Returns at once when a request is already there: the kernel
	 * compares the word with 0 under its own lock, so a request made
	 * between the caller's last look and this call is not missed. */
	__atomic_store_n(&waiter, 1, __ATOMIC_SEQ_CST);
	if (timeout_ms > 0 && !__atomic_load_n(&requests, __ATOMIC_SEQ_CST))
		hp_syscall(SYS_futex, &requests, op(FUTEX_WAIT_PRIVATE), 0, &ts, NULL, 0);
}

void hp_trigger_postfork_child(void)
{
	/* The word may still be the parent's shared page: leave it alone. */
	HP_STORE(&own_word, 0);
	HP_STORE(&word_shared, 0);
	HP_STORE_REL(&hp_trigger_word, &own_word);
	HP_STORE(&live_mirror, NULL);
	HP_STORE(&toggles, 0);
	HP_STORE(&waiter, 0);   /* until the child's helper waits */
}

unsigned hp_trigger_take(void)
{
	return __atomic_exchange_n(&requests, 0, __ATOMIC_ACQ_REL);
}

unsigned hp_trigger_take_some(unsigned mask)
{
	return __atomic_fetch_and(&requests, ~mask, __ATOMIC_ACQ_REL) & mask;
}

void hp_trigger_note_toggle(void)
{
	HP_ADD(&toggles, 1);
}

unsigned hp_trigger_take_toggles(void)
{
	return __atomic_exchange_n(&toggles, 0, __ATOMIC_ACQ_REL);
}

void hp_trigger_publish(struct hp_tls *t)
{
	unsigned reqs = 0;
	/* Before the thread's first publish its bias and span are 0. */
	uint64_t bias = t->live_span ? (uint64_t)t->live_step - 1 : 0;
	int64_t live_acc = (int64_t)(t->live_biased - bias);

	t->alloc_step = hp_trigger_step(HP_TRIGGER_ALLOC_STEP);
	t->live_step = (int64_t)hp_trigger_step(HP_TRIGGER_LIVE_STEP);
	t->live_span = 2 * (uint64_t)t->live_step - 1;
	t->live_biased = (uint64_t)t->live_step - 1;

	if (t->alloc_acc) {
		uint64_t a = HP_ADD(&allocated, t->alloc_acc) + t->alloc_acc;
		t->alloc_acc = 0;
		if (a >= HP_LOAD(&next_interval))
			reqs |= HP_REQ_INTERVAL;
	}
	if (live_acc) {
		int64_t l = HP_ADD(&live, live_acc) + live_acc;
		int64_t *mirror = HP_LOAD_ACQ(&live_mirror);
		if (mirror)
			HP_STORE(mirror, l);   /* the bell's: heapprof ps reads it */
		if (l >= HP_LOAD(&next_gdump))
			reqs |= HP_REQ_GDUMP;
		if (l >= HP_LOAD(&next_threshold))
			reqs |= HP_REQ_THRESHOLD;
		if (l >= HP_LOAD(&next_cgroup))
			reqs |= HP_REQ_CGROUP;
	}
	/* One wake-up per threshold crossing: the helper re-arms it. */
	if (reqs) {
		if (reqs & HP_REQ_INTERVAL)
			HP_STORE(&next_interval, UINT64_MAX);
		if (reqs & HP_REQ_GDUMP)
			HP_STORE(&next_gdump, INT64_MAX);
		if (reqs & HP_REQ_THRESHOLD)
			HP_STORE(&next_threshold, INT64_MAX);
		if (reqs & HP_REQ_CGROUP)
			HP_STORE(&next_cgroup, INT64_MAX);
		hp_trigger_request(reqs);
	}
}

uint64_t hp_trigger_allocated(void)
{
	return HP_LOAD(&allocated);
}

int64_t hp_trigger_live(void)
{
	return HP_LOAD(&live);
}

void hp_trigger_arm_interval(uint64_t v) { HP_STORE(&next_interval, v); }
void hp_trigger_arm_gdump(int64_t v) { HP_STORE(&next_gdump, v); }
void hp_trigger_arm_threshold(int64_t v) { HP_STORE(&next_threshold, v); }
void hp_trigger_arm_cgroup(int64_t v) { HP_STORE(&next_cgroup, v); }
