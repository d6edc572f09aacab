/*
 * signals.c -- the dump and toggle signal handlers (see signals.h).
 *
 * Owns which signals carry our handler.  The handler is async-signal-safe:
 * it touches atomics and writes one byte to a pipe.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "conf/conf.h"
#include "base/log.h"
#include "output/statefile.h"
#include "control/signals.h"
#include "record/trigger.h"
#include "base/banned.h"

#define MAX_SIG 65

static int dump_signo, toggle_signo;
static int ours[MAX_SIG];        /* our handler is installed */
static int replaced[MAX_SIG];    /* the program took it over: logged */

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
	int saved = errno;

	(void)info;
	(void)ctx;
	if (sig == HP_LOAD(&dump_signo))
		hp_trigger_request(HP_REQ_SIGNAL_DUMP);
	if (sig == HP_LOAD(&toggle_signo)) {
		hp_trigger_note_toggle();
		hp_trigger_request(HP_REQ_TOGGLE);
	}
	errno = saved;
}

static int is_ours(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_signal;
}

static const char *name_of(int sig, char *buf, size_t cap)
{
	return hp_conf_signal_name(sig, buf, cap);
}

static void install(int sig, const char *what)
{
	struct sigaction cur, sa;
	char nm[32];

	if (sig <= 0 || sig >= MAX_SIG || ours[sig])
		return;
	if (sigaction(sig, NULL, &cur) != 0)
		return;
	if (cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN && !is_ours(&cur)) {
		hp_log(HP_LOG_WARN, "SIG%s already has the program's handler; the program wins: no %s on SIG%s",
		       name_of(sig, nm, sizeof(nm)), what, name_of(sig, nm, sizeof(nm)));
		replaced[sig] = 1;
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) == 0) {
		ours[sig] = 1;
		replaced[sig] = 0;
	}
}

/* Puts SIG_DFL back, unless the program has taken the signal over. */
static void uninstall(int sig)
{
	struct sigaction cur, sa;

	if (sig <= 0 || sig >= MAX_SIG || !ours[sig])
		return;
	ours[sig] = 0;
	if (sigaction(sig, NULL, &cur) == 0 && is_ours(&cur)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(sig, &sa, NULL);
	}
}

static int installed(int sig)
{
	return sig > 0 && sig < MAX_SIG && ours[sig];
}

/* Tells the state file which signals carry our handler now. */
static void publish(void)
{
	int d = HP_LOAD(&dump_signo), t = HP_LOAD(&toggle_signo);

	hp_statefile_set_signals(installed(d) ? d : 0, installed(t) ? t : 0);
}

void hp_signals_configure(int dump_sig, int toggle_sig)
{
	int old_dump = dump_signo, old_toggle = toggle_signo;

	if (toggle_sig && toggle_sig == dump_sig) {
		hp_log(HP_LOG_WARN, "signal_dump and signal_toggle are the same signal; no toggle signal");
		toggle_sig = 0;
	}
	HP_STORE(&dump_signo, dump_sig);
	HP_STORE(&toggle_signo, toggle_sig);
	if (old_dump && old_dump != dump_sig && old_dump != toggle_sig)
		uninstall(old_dump);
	if (old_toggle && old_toggle != toggle_sig && old_toggle != dump_sig)
		uninstall(old_toggle);
	install(dump_sig, "dump");
	install(toggle_sig, "toggle");
	publish();
}

void hp_signals_check(void)
{
	struct sigaction cur;
	char nm[32];
	int sigs[2] = { HP_LOAD(&dump_signo), HP_LOAD(&toggle_signo) };

	for (int i = 0; i < 2; i++) {
		int sig = sigs[i];
		if (sig <= 0 || sig >= MAX_SIG || !ours[sig] || sigaction(sig, NULL, &cur) != 0)
			continue;
		if (!is_ours(&cur)) {
			ours[sig] = 0;
			replaced[sig] = 1;
			hp_log(HP_LOG_WARN, "the program installed its own SIG%s handler; the program wins: no %s on SIG%s",
			       name_of(sig, nm, sizeof(nm)), i == 0 ? "dump" : "toggle", name_of(sig, nm, sizeof(nm)));
			publish();
		}
	}
}

