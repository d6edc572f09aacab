/*
 * signals.c -- the dump, toggle and control signal handlers (see
 * signals.h).
 *
 * Owns which signals carry our handler and what the log has said about
 * them, and the final signals (SIGTERM, SIGINT: a final dump, then the
 * death they would have brought).  The handler is async-signal-safe: it
 * touches atomics and wakes the helper thread (a final signal's also
 * waits on a futex for it).  The program's view of these signals, and
 * the interposed sigaction that keeps it, are next/sigview.c's.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "conf/conf.h"
#include "base/log.h"
#include "base/sandbox.h"
#include "base/sys.h"
#include "output/dump.h"
#include "next/sigview.h"
#include "output/statefile.h"
#include "control/signals.h"
#include "record/tls.h"
#include "record/trigger.h"
#include "record/switches.h"
#include "base/banned.h"

#define MAX_SIG 65

static int dump_signo, toggle_signo, control_signo;
static int known[MAX_SIG];        /* the state the log last described */
static unsigned long long avoid;  /* control candidates the program took */
static unsigned long long final_mask;  /* bit sig-1: claimed as a final signal */
static int final_signo;           /* the final signal being answered, or 0 */
static int final_sent;            /* futex: 1 once it was sent again */

static int is_final(int sig)
{
	return sig > 0 && sig < MAX_SIG && (HP_LOAD(&final_mask) >> (sig - 1) & 1);
}

/* The death the final signal would have brought bare: the program's view
 * of it (SIG_DFL, or ours would not have run) back in the kernel, and the
 * signal again, to the process.  A thread of the program's takes it (the
 * helper thread blocks every signal; the handler's own thread once the
 * handler returns), so the status and the core are what they are bare. */
static void die_by(int sig)
{
	__atomic_fetch_and(&final_mask, ~(1ull << (sig - 1)), __ATOMIC_RELEASE);
	hp_sigview_release(sig);
	kill(hp_sandbox_getpid(), sig);
	HP_STORE_REL(&final_sent, 1);
	hp_syscall(SYS_futex, &final_sent, FUTEX_WAKE_PRIVATE, 1 << 30, NULL, NULL, 0);
}

/* The thread that took the final signal waits in the handler while the
 * helper thread writes the dump: bare, it would never have run on (a
 * nanosleep or poll cut short by the signal would return to the
 * program).  The signal sent again is then pending for it, blocked in its
 * own handler, or taken by another thread: either way the process dies.
 * Not a thread inside heapprof, which may hold what the dump needs; and
 * at most 5 s, after which the signal kills without the dump. */
static void hold_until_sent(int sig)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };

	if (hp_tls.guard)
		return;
	for (int i = 0; i < 50 && !HP_LOAD_ACQ(&final_sent); i++)
		hp_syscall(SYS_futex, &final_sent, FUTEX_WAIT_PRIVATE, 0, &tick, NULL, 0);
	if (!HP_LOAD_ACQ(&final_sent))
		die_by(sig);
}

/* SIGTERM or SIGINT on our handler: the final dump is asked of whoever
 * answers requests, which then dies by it (hp_signals_final).  A process
 * without a helper thread answers here when this thread is outside
 * heapprof; when it cannot (inside heapprof, dump_symbols), or under a
 * seccomp filter, the signal kills at once, without the dump, rather than
 * waiting for a sample point that may never come. */
/* Set while this thread answers requests from one of heapprof's signal
 * handlers: a leak check waits for a sample point (hp_signals_in_handler). */
static __thread int in_handler;

int hp_signals_in_handler(void)
{
	return in_handler;
}

static void answer_from_handler(void)
{
	in_handler++;
	hp_trigger_answer_from_handler();
	in_handler--;
}

static void on_final(int sig)
{
	int none = 0;

	/* A second one (^C twice, a supervisor that insists) or a sandbox:
	 * the death at once. */
	if (!HP_CAS(&final_signo, &none, sig) || hp_sandbox_on()) {
		die_by(sig);
		return;
	}
	hp_trigger_request(HP_REQ_FINAL);
	if (!HP_LOAD(&hp_trigger_answer_mask)) {
		hold_until_sent(sig);   /* a helper thread answers */
		return;
	}
	answer_from_handler();
	if (hp_trigger_take_some(HP_REQ_FINAL))
		die_by(sig);
}

void hp_signals_final(void)
{
	int sig = HP_LOAD(&final_signo);
	char path[PATH_MAX], nm[32];

	if (!sig)
		return;
	hp_log(HP_LOG_INFO, "SIG%s: the final dump, then the signal's default action",
	       hp_conf_signal_name(sig, nm, sizeof(nm)));
	if (hp_conf.prof_final && !hp_sandbox_on())
		(void)hp_dump_auto('f', 0, path, sizeof(path), NULL);
	die_by(sig);
}

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
	int saved = errno;

	(void)info;
	(void)ctx;
	if (is_final(sig)) {
		on_final(sig);
		errno = saved;
		return;
	}
	if (sig == HP_LOAD(&dump_signo))
		hp_trigger_request(HP_REQ_SIGNAL_DUMP);
	if (sig == HP_LOAD(&toggle_signo)) {
		hp_trigger_note_toggle();
		hp_trigger_request(HP_REQ_TOGGLE);
	}
	if (sig == HP_LOAD(&control_signo))
		hp_trigger_request(HP_REQ_CONTROL);
	/* No helper thread: this thread answers, if it is outside heapprof
	 * (otherwise at its next sample point). */
	answer_from_handler();
	errno = saved;
}

static const char *name_of(int sig, char *buf, size_t cap)
{
	return hp_conf_signal_name(sig, buf, cap);
}

/* One line when a signal's state differs from what the log last said:
 * "start" for the state found at start-up or on a new configuration. */
static void describe(int sig, const char *what, int st, int start)
{
	char nm[32];
	const char *n = name_of(sig, nm, sizeof(nm));

	if (sig <= 0 || sig >= MAX_SIG || known[sig] == st)
		return;
	known[sig] = st;
	switch (st) {
	case HP_SIGVIEW_PROGRAMS:
		hp_log(HP_LOG_INFO, "%s SIG%s handler; the program wins: no %s on SIG%s "
		       "(heapprof %s PID still works)",
		       start ? "the program already has its own" : "the program installed its own",
		       n, what, n, what);
		break;
	case HP_SIGVIEW_IGNORED:
		/* Inherited (nohup, a shell's trap '' USR1): it stays ignored,
		 * as it would without heapprof, and so in the program's
		 * children. */
		hp_log(start ? HP_LOG_DEBUG : HP_LOG_INFO, "SIG%s is ignored%s and stays ignored: no %s on "
		       "SIG%s (heapprof %s PID still works)", n, start ? " (inherited)" : " by the program",
		       what, n, what);
		break;
	case HP_SIGVIEW_OURS:
		if (!start)
			hp_log(HP_LOG_DEBUG, "the program set SIG%s back to its default action: %s on SIG%s again",
			       n, what, n);
		break;
	}
}

static int state(int sig)
{
	return sig > 0 && sig < MAX_SIG ? hp_sigview_state(sig) : HP_SIGVIEW_NONE;
}

/* Tells the state file which signals carry our handler now. */
static void publish(void)
{
	int d = HP_LOAD(&dump_signo), t = HP_LOAD(&toggle_signo), c = HP_LOAD(&control_signo);

	hp_statefile_set_signals(state(d) == HP_SIGVIEW_OURS ? d : 0,
				 state(t) == HP_SIGVIEW_OURS ? t : 0,
				 state(c) == HP_SIGVIEW_OURS ? c : 0);
}

/* The program took one of our signals or gave it back (next/sigview.c):
 * the state file says so at once, so that heapprof dump never sends a
 * signal the program now owns.  Any thread, maybe in a signal handler. */
static void on_change(int sig)
{
	(void)sig;
	publish();
	hp_trigger_request(HP_REQ_STATE);
}

static void release(int sig)
{
	if (sig <= 0 || sig >= MAX_SIG)
		return;
	hp_sigview_release(sig);
	known[sig] = HP_SIGVIEW_NONE;
}

/*
 * The control signal: a real-time signal that only wakes the helper thread
 * to read the control files (control/remote.h), for heapprof dump and
 * toggle.  Chosen where the program does not look: the top two real-time
 * signals and two just above SIGRTMIN, outside the range the leak scan
 * takes its own from (scan/world.c).  One the program takes is given up,
 * and the next one free is used.
 */
static void pick_control(void)
{
	int cur = HP_LOAD(&control_signo);
	int d = HP_LOAD(&dump_signo), t = HP_LOAD(&toggle_signo);
	int cands[] = { SIGRTMAX - 1, SIGRTMAX, SIGRTMIN + 2, SIGRTMIN + 1 };

	if (cur && cur != d && cur != t && state(cur) == HP_SIGVIEW_OURS)
		return;
	if (cur) {
		if (cur != d && cur != t) {
			if (state(cur) != HP_SIGVIEW_OURS)
				avoid |= 1ull << (cur - 1);
			release(cur);
		}
		HP_STORE(&control_signo, 0);
	}
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		int sig = cands[i];
		if (sig <= 0 || sig >= MAX_SIG || sig == d || sig == t || (avoid >> (sig - 1) & 1))
			continue;
		if (hp_sigview_claim(sig, on_signal) == HP_SIGVIEW_OURS) {
			HP_STORE(&control_signo, sig);
			break;
		}
		hp_sigview_release(sig);
		avoid |= 1ull << (sig - 1);
	}
	if (cur && cur != HP_LOAD(&control_signo)) {
		char a[32], b[32];
		int now = HP_LOAD(&control_signo);
		hp_log(HP_LOG_INFO, "the program took SIG%s, heapprof's control signal; %s%s",
		       name_of(cur, a, sizeof(a)), now ? "now SIG" : "heapprof dump and toggle now answer within a second",
		       now ? name_of(now, b, sizeof(b)) : "");
	}
}

/* SIGTERM and SIGINT carry our handler when prof_final and
 * prof_final_signals are on and the program would have SIG_DFL there (a
 * handler of the program's, or SIG_IGN, wins, as for the dump signal);
 * never one that is signal_dump or signal_toggle.  Not in process 1 of a
 * PID namespace (a container's entrypoint): the kernel spares it a signal
 * at SIG_DFL, so bare SIGTERM does nothing there, and a handler would
 * make it cut the program's calls short. */
static void configure_final(int dump_sig, int toggle_sig)
{
	static const int sigs[] = { SIGTERM, SIGINT };
	int want = hp_conf.prof_final && hp_conf.prof_final_signals && getpid() != 1;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		int sig = sigs[i];
		unsigned long long bit = 1ull << (sig - 1);
		if (sig == dump_sig || sig == toggle_sig) {
			__atomic_fetch_and(&final_mask, ~bit, __ATOMIC_RELEASE);
			hp_sigview_release_before_sandbox(sig, 0);
			continue;
		}
		if (want && !HP_LOAD(&final_signo)) {
			(void)hp_sigview_claim(sig, on_signal);
			__atomic_fetch_or(&final_mask, bit, __ATOMIC_RELEASE);
			hp_sigview_release_before_sandbox(sig, 1);
		} else if (is_final(sig)) {
			__atomic_fetch_and(&final_mask, ~bit, __ATOMIC_RELEASE);
			hp_sigview_release_before_sandbox(sig, 0);
			hp_sigview_release(sig);
		}
	}
}

void hp_signals_configure(int dump_sig, int toggle_sig)
{
	int old_dump = dump_signo, old_toggle = toggle_signo;

	/* Attached (heapprof attach), no signal's action is ever changed:
	 * the program's sigaction calls do not come to heapprof, which could
	 * not keep its view of them.  The bell and the helper thread serve
	 * heapprof dump, pause and resume. */
	if (HP_LOAD(&hp_switches.attached) != HP_ATTACH_NONE)
		return;

	if (toggle_sig && toggle_sig == dump_sig) {
		hp_log(HP_LOG_WARN, "signal_dump and signal_toggle are the same signal; no toggle signal");
		toggle_sig = 0;
	}
	hp_sigview_set_notify(on_change);
	HP_STORE(&dump_signo, dump_sig);
	HP_STORE(&toggle_signo, toggle_sig);
	if (old_dump && old_dump != dump_sig && old_dump != toggle_sig)
		release(old_dump);
	if (old_toggle && old_toggle != toggle_sig && old_toggle != dump_sig)
		release(old_toggle);
	/* A signal claimed before keeps its story: what changed since is
	 * the program's doing, not what it had at start. */
	if (dump_sig > 0 && dump_sig < MAX_SIG)
		describe(dump_sig, "dump", hp_sigview_claim(dump_sig, on_signal),
			 dump_sig != old_dump && dump_sig != old_toggle);
	if (toggle_sig > 0 && toggle_sig < MAX_SIG)
		describe(toggle_sig, "toggle", hp_sigview_claim(toggle_sig, on_signal),
			 toggle_sig != old_dump && toggle_sig != old_toggle);
	configure_final(dump_sig, toggle_sig);
	pick_control();
	publish();
}

void hp_signals_leave(void)
{
	int sigs[] = { HP_XCHG(&dump_signo, 0), HP_XCHG(&toggle_signo, 0), HP_XCHG(&control_signo, 0),
		       SIGTERM, SIGINT };

	__atomic_store_n(&final_mask, 0, __ATOMIC_RELEASE);
	hp_sigview_release_before_sandbox(SIGTERM, 0);
	hp_sigview_release_before_sandbox(SIGINT, 0);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		release(sigs[i]);
}

void hp_signals_check(void)
{
	int d = HP_LOAD(&dump_signo), t = HP_LOAD(&toggle_signo);

	if (HP_LOAD(&hp_switches.attached) != HP_ATTACH_NONE)
		return;

	describe(d, "dump", state(d), 0);
	describe(t, "toggle", state(t), 0);
	pick_control();
	publish();
}
