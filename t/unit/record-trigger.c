/*
 * record-trigger.c -- unit tests of record/trigger: counters published in
 * steps, thresholds that raise a request once per crossing, the request
 * word, toggles, and the byte that wakes the helper thread.
 *
 * The module's state is global: the tests run in order and each starts
 * from what the previous one left (taken requests, disarmed thresholds).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "record/tls.h"
#include "record/trigger.h"

#include "tap.h"

#define AS HP_TRIGGER_ALLOC_STEP
#define LS ((int64_t)HP_TRIGGER_LIVE_STEP)

static void test_publish(void)
{
	struct hp_tls t = { 0 };

	hp_trigger_note_alloc(&t, AS - 1);
	ok(hp_trigger_allocated() == 0 && t.alloc_acc == AS - 1, "allocations below a step stay with the thread");
	hp_trigger_note_alloc(&t, 1);
	ok(hp_trigger_allocated() == AS && t.alloc_acc == 0, "a full step is published");
	hp_trigger_note_live(&t, LS - 1);
	ok(hp_trigger_live() == 0 && t.live_acc == LS - 1, "live bytes below a step stay with the thread");
	hp_trigger_note_live(&t, -(LS - 1));
	hp_trigger_note_live(&t, -LS);
	ok(hp_trigger_live() == -LS && t.live_acc == 0, "a step down is published too");
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
}

static void test_wake(void)
{
	struct hp_tls t = { 0 };
	int p[2];
	char buf[8];

	ok(pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0, "wake: a pipe");
	hp_trigger_set_wake_fd(p[1]);
	hp_trigger_request(HP_REQ_TOGGLE);
	ok(read(p[0], buf, sizeof(buf)) == 1 && buf[0] == 1, "wake: a request writes one byte");
	hp_trigger_arm_interval(hp_trigger_allocated() + 1);
	hp_trigger_note_alloc(&t, AS);
	ok(read(p[0], buf, sizeof(buf)) == 1, "wake: so does a threshold crossing");
	is_int(hp_trigger_take(), HP_REQ_TOGGLE | HP_REQ_INTERVAL, "wake: both requests are in the word");
	hp_trigger_set_wake_fd(-1);
	hp_trigger_request(HP_REQ_STATE);
	errno = 0;
	ok(read(p[0], buf, sizeof(buf)) == -1 && errno == EAGAIN && hp_trigger_take() == HP_REQ_STATE,
	   "wake: no descriptor, no byte; the request still stands");
	/* A full pipe: the writer must not block (the helper is awake). */
	hp_trigger_set_wake_fd(p[1]);
	int full = 0;
	while (write(p[1], buf, 1) == 1)
		full++;
	hp_trigger_request(HP_REQ_STATE);
	ok(full > 0 && hp_trigger_take() == HP_REQ_STATE, "wake: a full pipe does not block the request");
	hp_trigger_set_wake_fd(-1);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	test_publish();
	test_interval();
	test_live();
	test_requests();
	test_wake();
	return done_testing();
}
