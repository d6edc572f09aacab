/*
 * record-trigger.c -- unit tests of record/trigger: counters published in
 * steps, thresholds that raise a request once per crossing, the request
 * word, toggles, and the futex wake-up of the helper thread.
 *
 * The module's state is global: the tests run in order and each starts
 * from what the previous one left (taken requests, disarmed thresholds).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "record/switches.h"
#include "record/tls.h"
#include "record/trigger.h"

#include "tap.h"

#define AS HP_TRIGGER_ALLOC_STEP
#define LS ((int64_t)HP_TRIGGER_LIVE_STEP)

/* A thread's steps are set by its first publish. */
static void test_publish(void)
{
	struct hp_tls t = { 0 };

	hp_trigger_publish(&t);

	hp_trigger_note_alloc(&t, AS - 1);
	ok(hp_trigger_allocated() == 0 && t.alloc_acc == AS - 1, "allocations below a step stay with the thread");
	hp_trigger_note_alloc(&t, 1);
	ok(hp_trigger_allocated() == AS && t.alloc_acc == 0, "a full step is published");
	hp_trigger_note_live(&t, LS - 1);
	ok(hp_trigger_live() == 0 && t.live_biased == (uint64_t)(LS - 1) + (uint64_t)(LS - 1), "live bytes below a step stay with the thread");
	hp_trigger_note_live(&t, -(LS - 1));
	hp_trigger_note_live(&t, -LS);
	ok(hp_trigger_live() == -LS && t.live_biased == (uint64_t)LS - 1, "a step down is published too");
	hp_trigger_note_live(&t, LS);
	ok(hp_trigger_live() == 0, "and a step back up");
	t.alloc_acc = 5;
	hp_trigger_publish(&t);
	ok(hp_trigger_allocated() == AS + 5 && t.alloc_acc == 0, "hp_trigger_publish flushes what is left");
	ok(hp_trigger_take() == 0, "no threshold armed: no request");
}

static void test_interval(void)
{
	struct hp_tls t = { 0 };

	hp_trigger_publish(&t);
	uint64_t base = hp_trigger_allocated();

	hp_trigger_arm_interval(base + 3 * AS);
	hp_trigger_note_alloc(&t, 2 * AS);
	ok(hp_trigger_take() == 0, "interval: no request below the threshold");
	hp_trigger_note_alloc(&t, AS);
	is_int(hp_trigger_take(), HP_REQ_INTERVAL, "interval: crossing it asks once");
	ok(hp_trigger_take() == 0, "interval: taking clears the bit");
	hp_trigger_note_alloc(&t, 10 * AS);
	ok(hp_trigger_take() == 0, "interval: disarmed after firing, until re-armed");
	hp_trigger_arm_interval(hp_trigger_allocated() + AS);
	hp_trigger_note_alloc(&t, AS);
	is_int(hp_trigger_take(), HP_REQ_INTERVAL, "interval: re-armed, it fires again");
}

static void test_live(void)
{
	struct hp_tls t = { 0 };

	hp_trigger_publish(&t);
	int64_t base = hp_trigger_live();

	hp_trigger_arm_gdump(base + LS);
	hp_trigger_arm_threshold(base + 2 * LS);
	hp_trigger_arm_cgroup(base + 4 * LS);
	hp_trigger_note_live(&t, LS);
	is_int(hp_trigger_take(), HP_REQ_GDUMP, "live: the gdump mark alone");
	hp_trigger_note_live(&t, LS);
	is_int(hp_trigger_take(), HP_REQ_THRESHOLD, "live: then dump_at_bytes alone (gdump disarmed)");
	hp_trigger_note_live(&t, -LS);
	hp_trigger_note_live(&t, 3 * LS);
	is_int(hp_trigger_take(), HP_REQ_CGROUP, "live: then the cgroup check");
	hp_trigger_arm_gdump(base);
	hp_trigger_arm_threshold(base);
	hp_trigger_note_live(&t, LS);
	is_int(hp_trigger_take(), HP_REQ_GDUMP | HP_REQ_THRESHOLD, "live: marks crossed together ask together");
	hp_trigger_arm_gdump(base + 6 * LS);
	hp_trigger_note_live(&t, -5 * LS);
	ok(hp_trigger_take() == 0 && hp_trigger_live() == base, "live: falling below a mark asks nothing");
	hp_trigger_note_live(&t, 6 * LS);
	is_int(hp_trigger_take(), HP_REQ_GDUMP, "live: the mark stays armed until crossed");
}

/* At a sampled rate R a sample moves the estimate by about R: the steps
 * are 8 R, so that sampled allocations and frees do not each publish. */
static void test_rate_step(void)
{
	struct hp_tls t = { 0 };
	int64_t live = hp_trigger_live();
	uint64_t allocated = hp_trigger_allocated();
	int64_t r = (int64_t)1 << 19;

	hp_switches.lg_sample = 19;
	hp_trigger_publish(&t);   /* the thread's first: its steps at this rate */
	hp_trigger_note_live(&t, r);
	hp_trigger_note_live(&t, -r);
	hp_trigger_note_live(&t, -7 * r);
	ok(hp_trigger_live() == live, "rate 2^19: seven samples' worth of live bytes stays with the thread");
	hp_trigger_note_live(&t, -r);
	ok(hp_trigger_live() == live - 8 * r && t.live_biased == (uint64_t)(8 * r) - 1, "rate 2^19: eight are published");
	hp_trigger_note_alloc(&t, 7 * (uint64_t)r);
	ok(hp_trigger_allocated() == allocated, "rate 2^19: so are allocated bytes, not seven");
	hp_trigger_note_alloc(&t, (uint64_t)r);
	ok(hp_trigger_allocated() == allocated + 8 * (uint64_t)r, "rate 2^19: but eight");
	hp_switches.lg_sample = 0;
	hp_trigger_note_live(&t, 8 * r);
	ok(hp_trigger_live() == live, "back in exact mode, the next publish comes at the old step");
	hp_trigger_note_live(&t, LS);
	ok(hp_trigger_live() == live + LS, "and sets the fixed steps again");
	hp_trigger_note_live(&t, -LS);
}

static void test_first_note(void)
{
	struct hp_tls t = { 0 };
	uint64_t allocated = hp_trigger_allocated();

	hp_trigger_note_alloc(&t, 1);
	ok(hp_trigger_allocated() == allocated + 1 && t.alloc_step == AS,
	   "a thread's first note publishes, and sets its steps");
}

static void test_requests(void)
{
	hp_trigger_request(HP_REQ_SIGNAL_DUMP);
	hp_trigger_request(HP_REQ_STATE);
	hp_trigger_request(HP_REQ_SIGNAL_DUMP);
	is_int(hp_trigger_take(), HP_REQ_SIGNAL_DUMP | HP_REQ_STATE, "requests: ORed until taken");
	ok(hp_trigger_take() == 0, "requests: taken once");
	hp_trigger_note_toggle();
	hp_trigger_note_toggle();
	hp_trigger_note_toggle();
	ok(hp_trigger_take_toggles() == 3 && hp_trigger_take_toggles() == 0, "toggles: counted, taken once");
	hp_trigger_request(HP_REQ_SIGNAL_DUMP);
	hp_trigger_note_toggle();
	hp_trigger_postfork_child();
	ok(hp_trigger_take() == 0 && hp_trigger_take_toggles() == 0,
	   "a fork child starts with nothing asked: the parent's requests are the parent's");
}

static int64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *sleeper(void *arg)
{
	int64_t *slept = arg;
	int64_t t0 = ms_now();

	hp_trigger_wait(10000);
	*slept = ms_now() - t0;
	return NULL;
}

static void test_wake(void)
{
	struct hp_tls t = { 0 };
	pthread_t th;
	int64_t slept = -1;

	hp_trigger_request(HP_REQ_TOGGLE);
	int64_t t0 = ms_now();
	hp_trigger_wait(10000);
	ok(ms_now() - t0 < 1000, "wake: a waiting request: the wait returns at once");
	is_int(hp_trigger_take(), HP_REQ_TOGGLE, "wake: and the request is still there to take");
	t0 = ms_now();
	hp_trigger_wait(150);
	int64_t waited = ms_now() - t0;
	ok(waited >= 100 && waited < 5000, "wake: no request: the wait ends at its timeout (%lld ms)", (long long)waited);
	hp_trigger_wait(0);
	ok(hp_trigger_take() == 0, "wake: a zero timeout does not wait");

	/* A sleeping helper is woken by a request... */
	pthread_create(&th, NULL, sleeper, &slept);
	usleep(100 * 1000);
	errno = EBADF;
	hp_trigger_request(HP_REQ_STATE);
	ok(errno == EBADF, "wake: a request leaves errno alone (signal handlers)");
	pthread_join(th, NULL);
	ok(slept >= 0 && slept < 5000, "wake: a request wakes the sleeping thread (%lld ms)", (long long)slept);
	is_int(hp_trigger_take(), HP_REQ_STATE, "wake: which then takes it");
	/* ... and by a threshold crossing. */
	slept = -1;
	pthread_create(&th, NULL, sleeper, &slept);
	usleep(100 * 1000);
	hp_trigger_arm_interval(hp_trigger_allocated() + 1);
	hp_trigger_note_alloc(&t, AS);
	pthread_join(th, NULL);
	ok(slept >= 0 && slept < 5000, "wake: so does a threshold crossing (%lld ms)", (long long)slept);
	is_int(hp_trigger_take(), HP_REQ_INTERVAL, "wake: the crossing's request is in the word");
	/* No descriptor is involved: the program can close every one. */
	int fds_before = 0;
	for (int fd = 0; fd < 64; fd++)
		fds_before += fcntl(fd, F_GETFD) >= 0;
	hp_trigger_request(HP_REQ_STATE);
	int fds_after = 0;
	for (int fd = 0; fd < 64; fd++)
		fds_after += fcntl(fd, F_GETFD) >= 0;
	ok(fds_before == fds_after && hp_trigger_take() == HP_REQ_STATE, "wake: no descriptor opened or used");
}

int main(void)
{
	hp_switches.lg_sample = 0;   /* the fixed steps, until test_rate_step */
	test_publish();
	test_interval();
	test_live();
	test_rate_step();
	test_first_note();
	test_requests();
	test_wake();
	return done_testing();
}
