/*
 * attach.c -- heapprof attach and detach, the library's side: the two
 * entry points the command calls inside the process (src/attachabi.h).
 *
 * Owns the order of things.  Attach: the GOT entries first (next/got.c),
 * then the options, the helper thread and the state file
 * (control/lifecycle.c), sampling last.  Detach: the GOT entries first, so that no new call comes,
 * then the rest.  Runs on a thread of the program's that the command
 * stopped at a safe point (no allocator or loader lock held), with the
 * program's signal mask; every other thread runs meanwhile.  Never
 * unloads anything: code may still run in the library after a detach (a
 * thread inside heapprof's malloc at that moment, a pointer to it the
 * program kept).
 */
#include <string.h>

#include "attachabi.h"
#include "base/compiler.h"
#include "base/fmt.h"
#include "base/log.h"
#include "control/lifecycle.h"
#include "next/got.h"
#include "next/next.h"
#include "record/switches.h"
#include "record/tls.h"
#include "base/banned.h"

static void answer(struct hp_attach_result *out, int status, const char *text)
{
	hp_fmt(out->text, sizeof(out->text), "%s", text ? text : "");
	HP_STORE_REL(&out->status, status);
}

HP_EXPORT void heapprof_attach(const char *conf, struct hp_attach_result *out)
{
	const char *why;
	unsigned objects = 0;
	struct hp_tls *t = &hp_tls;

	if (!hp_next_dlopened()) {
		answer(out, HP_ATTACH_PRELOADED, "loaded at start-up");
		return;
	}
	if (HP_LOAD(&hp_switches.attached) == HP_ATTACH_ON) {
		answer(out, HP_ATTACH_ALREADY, "attached already");
		return;
	}
	/* The GOT entries first: until start-up has published its switches,
	 * heapprof's entries forward every call unrecorded, as before a
	 * preloaded constructor; and libunwind's validation pipe, opened
	 * during start-up's first walk, must come through pipe2's. */
	hp_tls_guard_enter(t);
	out->rewritten = hp_got_route(&objects);
	out->objects = objects;
	hp_tls_guard_leave(t);
	if (hp_lifecycle_attach(conf, &why) != 0) {
		hp_tls_guard_enter(t);
		hp_got_restore();
		hp_tls_guard_leave(t);
		answer(out, HP_ATTACH_FAILED, why);
		return;
	}
	hp_log(HP_LOG_INFO, "attached: %u GOT entries of %u objects routed to heapprof; "
	       "allocations before now are not counted", out->rewritten, objects);
	answer(out, HP_ATTACH_DONE, "");
}

HP_EXPORT void heapprof_detach(struct hp_attach_result *out)
{
	struct hp_tls *t = &hp_tls;

	if (!hp_next_dlopened()) {
		answer(out, HP_ATTACH_PRELOADED, "loaded at start-up");
		return;
	}
	if (HP_LOAD(&hp_switches.attached) != HP_ATTACH_ON) {
		answer(out, HP_ATTACH_ALREADY, "not attached");
		return;
	}
	hp_tls_guard_enter(t);
	out->rewritten = hp_got_restore();
	hp_tls_guard_leave(t);
	hp_lifecycle_detach();
	hp_log(HP_LOG_INFO, "detached: %u GOT entries restored; heapprof stays loaded, inert",
	       out->rewritten);
	answer(out, HP_ATTACH_DONE, "");
}
