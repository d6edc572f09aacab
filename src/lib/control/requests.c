/*
 * requests.c -- what the signals and the heapprof command ask for, done
 * (see requests.h): signal_dump's dump, signal_toggle's flip, the bell's
 * dump, pause, resume and leak check, the control files of an older
 * command.
 *
 * Owns the answering of these requests, on heapprof's helper thread when
 * the process has one, and otherwise on the program's own thread that
 * meets them: at its next sample point (record/trigger.h's poll), or in
 * heapprof's signal handler when that thread is outside heapprof.  Never
 * more than one thread answers at a time; another that finds the work
 * taken goes on with its own.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>

#include "base/fmt.h"
#include "base/log.h"
#include "base/sys.h"
#include "conf/conf.h"
#include "control/remote.h"
#include "control/requests.h"
#include "control/settings.h"
#include "control/signals.h"
#include "leak/livecheck.h"
#include "output/bell.h"
#include "output/dump.h"
#include "output/statefile.h"
#include "record/sampled.h"
#include "record/tls.h"
#include "record/trigger.h"
#include "base/banned.h"

static void dump_asked(unsigned by_signal, unsigned by_command)
{
	char path[PATH_MAX];
	unsigned flags = by_command ? HP_DUMP_ASKED | (by_signal ? HP_DUMP_SIGNAL : 0) : 0;

	(void)hp_dump_auto('s', flags, path, sizeof(path), NULL);
}

/* heapprof leaks: a leak check now; its verdict file, or why not, on the
 * bell. */
static void leaks_asked(void)
{
	struct hp_livecheck c;
	const char *why;

	struct hp_bell *b = hp_bell_page();
	int blocks = b && HP_LOAD_ACQ(&b->leak_blocks);

	if (hp_livecheck_run(&c, HP_LIVECHECK_COMMAND, NULL, blocks, &why))
		hp_bell_note_leaks(why);
	else if (!c.path[0])
		hp_bell_note_leaks("no verdict file: no runtime directory");
	else
		hp_bell_note_leaks(NULL);
}

/* heapprof_leak_check() handed to the helper thread: its result, and a
 * count of those given (a futex the caller waits on).  One caller at a
 * time (api_lock). */
static struct hp_livecheck api_check;
static struct hp_stack_entry api_entry;   /* the caller's, or sp 0 */
static const char *api_why;
static int api_err;
static unsigned api_done;
static int api_lock;

static long futex(unsigned *w, int op, unsigned val, const struct timespec *ts)
{
	return hp_syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

static void api_checked(void)
{
	api_err = hp_livecheck_run(&api_check, HP_LIVECHECK_API, api_entry.sp ? &api_entry : NULL, 0, &api_why);
	__atomic_add_fetch(&api_done, 1, __ATOMIC_RELEASE);
	futex(&api_done, FUTEX_WAKE_PRIVATE, 1 << 30, NULL);
}

int hp_requests_leak_check(struct hp_livecheck *out, const char **why, const struct hp_stack_entry *entry)
{
	struct timespec second = { 1, 0 };
	int err = -1;

	while (HP_XCHG(&api_lock, 1))
		futex((unsigned *)&api_lock, FUTEX_WAIT_PRIVATE, 1, &second);
	unsigned seen = HP_LOAD_ACQ(&api_done);
	if (entry)
		api_entry = *entry;
	else
		api_entry.sp = 0;
	hp_trigger_request(HP_REQ_LEAKCHECK);
	while (HP_LOAD_ACQ(&api_done) == seen) {
		/* No helper thread any more (heapprof detach): taken back. */
		if (HP_LOAD(&hp_trigger_answer_mask) && hp_trigger_take_some(HP_REQ_LEAKCHECK))
			break;
		futex(&api_done, FUTEX_WAIT_PRIVATE, seen, &second);
	}
	if (HP_LOAD_ACQ(&api_done) != seen) {
		*out = api_check;
		*why = api_why;
		err = api_err;
	}
	HP_STORE_REL(&api_lock, 0);
	futex((unsigned *)&api_lock, FUTEX_WAKE_PRIVATE, 1, NULL);
	return err;
}

void hp_requests_postfork_child(void)
{
	HP_STORE(&api_lock, 0);
}

unsigned hp_requests_do(unsigned req)
{
	unsigned asked = 0;

	/* An older heapprof command's control files, woken by the control
	 * signal. */
	if (req & HP_REQ_CONTROL) {
		unsigned remote = hp_remote_take();
		asked |= remote & HP_REQ_SIGNAL_DUMP;
		req |= remote & HP_REQ_STATE;
	}
	if (req & HP_BELL_DUMP)
		asked |= HP_REQ_SIGNAL_DUMP;
	if (req & HP_BELL_ACTIVE) {
		struct hp_bell *b = hp_bell_page();
		int on = b ? (int)HP_LOAD_ACQ(&b->want_active) : 1;
		hp_settings_set_active(on, on ? "heapprof resume" : "heapprof pause");
		req |= HP_REQ_STATE;
	}
	if (req & HP_REQ_TOGGLE) {
		unsigned n = hp_trigger_take_toggles();
		if (n & 1) {
			char nm[32], why[48];
			hp_fmt(why, sizeof(why), "SIG%s", hp_conf_signal_name(hp_conf.signal_toggle, nm, sizeof(nm)));
			hp_settings_toggle(why);
		}
		req |= HP_REQ_STATE;
	}
	if ((req | asked) & HP_REQ_SIGNAL_DUMP)
		dump_asked(req & HP_REQ_SIGNAL_DUMP, asked);
	if (req & HP_BELL_LEAKS)
		leaks_asked();
	if (req & HP_REQ_LEAKCHECK)
		api_checked();
	if (req & HP_BELL_STATS)
		hp_bell_publish_stats();
	if (req & (HP_BELL_DUMP | HP_BELL_ACTIVE | HP_BELL_LEAKS))
		hp_bell_note_answered();
	/* Last: the process dies by the final signal soon after. */
	if (req & HP_REQ_FINAL)
		hp_signals_final();

	return req | asked;
}

static int answering;

/* A process without a helper thread: the thread that meets a request
 * answers it, outside the guard and holding no lock of heapprof's. */
static void answer_here(void)
{
	struct hp_tls *t = &hp_tls;

	if (t->guard || HP_XCHG(&answering, 1))
		return;
	hp_tls_guard_enter(t);
	for (int round = 0; round < 8; round++) {
		/* A leak check is not answered in a signal handler: the
		 * thread's next sample point takes it. */
		unsigned req = hp_trigger_take_some(hp_signals_in_handler() ?
						    HP_REQ_ANSWERABLE & ~(unsigned)HP_BELL_LEAKS :
						    HP_REQ_ANSWERABLE);
		if (!req)
			break;
		/* What the helper's once-a-second look would have said: a
		 * signal of heapprof's the program took (the control signal
		 * moves); not for a mere change of state, which a program that
		 * sets a handler for a moment and puts ours back makes. */
		if (req & ~(unsigned)HP_REQ_STATE)
			hp_signals_check();
		if (hp_requests_do(req) & HP_REQ_STATE)
			hp_statefile_publish();
	}
	hp_sampled_leave(t);
	HP_STORE_REL(&answering, 0);
}

void hp_requests_answer_here(void)
{
	hp_trigger_set_server(answer_here);
}

void hp_requests_answer_in_helper(void)
{
	hp_trigger_set_server(NULL);
}
