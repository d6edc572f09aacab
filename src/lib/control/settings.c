/*
 * runtime.c -- applying option values while the program runs (see
 * runtime.h).
 *
 * Owns the options lock.  Runs at init, on the helper thread and on
 * threads that call the API; never inside malloc.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "base/fmt.h"
#include "conf/inifile.h"
#include "conf/sources.h"
#include "base/log.h"
#include "base/pages.h"
#include "control/settings.h"
#include "control/signals.h"
#include "stack/stack.h"
#include "record/trigger.h"
#include "stack/unwind.h"
#include "output/dump.h"
#include "record/switches.h"
#include "base/banned.h"

static char log_file_applied[HP_OPT_STR_MAX];
static int log_failed;

void hp_runtime_postfork_child(void)
{
	hp_log_postfork_child();
}

void hp_runtime_apply(void)
{
	HP_STORE(&hp_switches.active, hp_opt.prof_active);
	HP_STORE(&hp_switches.bt_max, (int)hp_opt.prof_bt_max);
	HP_STORE(&hp_switches.thread_active_init, hp_opt.prof_thread_active_init);
	hp_stack_set_unwinder(hp_opt.prof_unwinder);
	if (HP_LOAD(&hp_switches.lg_sample) != (int)hp_opt.lg_prof_sample) {
		HP_STORE(&hp_switches.lg_sample, (int)hp_opt.lg_prof_sample);
		hp_switches_new_epoch();
	}
	hp_log_set_level(hp_opt.log_level);
	HP_STORE(&hp_unwind_counting, hp_opt.log_level >= HP_LOG_DEBUG || hp_opt.prof_unwinder == HP_UNWIND_CHECK);
	int same_file = !strcmp(log_file_applied, hp_opt.log_file);
	int err = hp_log_configure(hp_opt.log_file, hp_opt.log_max_bytes, (int)hp_opt.log_keep);
	if (err && (!same_file || !log_failed))
		hp_log(HP_LOG_ERROR, "cannot open log_file %s: %s; messages go to standard error",
		       hp_opt.log_file, strerrordesc_np(err));
	log_failed = err != 0;
	memcpy(log_file_applied, hp_opt.log_file, strlen(hp_opt.log_file) + 1);
	hp_sig_configure(hp_opt.signal_dump, hp_opt.signal_toggle);
	hp_trigger_request(HP_REQ_STATE);   /* the helper re-arms and republishes */
}

static void describe(const struct hp_opts *o, const struct hp_opt_desc *d, char *buf, size_t cap)
{
	size_t n = hp_conf_format(o, d, buf, cap);

	if (d->type == HP_OT_STR && n == 0)
		hp_fmt(buf, cap, "(empty)");
}

void hp_runtime_reload(void)
{
	struct hp_ini *next = hp_pages_alloc(sizeof(*next));
	struct hp_opts *defaults = hp_pages_alloc(sizeof(*defaults));
	uint8_t srcs[HP_NOPTS];
	char oldv[300], newv[300];
	bool explicit;
	int changed = 0;

	if (!next || !defaults)
		goto out;
	const char *path = hp_ini_path(&explicit);
	hp_ini_read(next, path, explicit, hp_ini_program(), false);
	if (next->problems) {
		/* All or nothing: a half-good edit could drop keys the operator
		 * meant to keep (a typo in a section header hides the section). */
		hp_log(HP_LOG_WARN, "%s: edit not applied (%u problem%s above); the running configuration is unchanged",
		       path, next->problems, next->problems == 1 ? "" : "s");
		goto out;
	}
	hp_conf_defaults(defaults, srcs);
	hp_dump_lock();
	for (size_t i = 0; i < HP_NOPTS; i++) {
		const struct hp_opt_desc *d = &hp_opt_table[i];
		int was = hp_sources_ini.set[i], now = next->set[i];
		if (!was && !now)
			continue;
		if (was == now && hp_conf_equal(&hp_sources_ini.opts, &next->opts, d))
			continue;   /* not edited */
		const struct hp_opts *src = now ? &next->opts : defaults;
		if (hp_opt_source[i] == HP_SRC_MALLOC_CONF || hp_opt_source[i] == HP_SRC_HEAPPROF_CONF) {
			hp_log(HP_LOG_WARN, "%s: %s changed, but %s sets it: ignored", path, d->name,
			       hp_conf_source_name(hp_opt_source[i]));
			continue;
		}
		if (hp_conf_equal(&hp_opt, src, d))
			continue;
		describe(&hp_opt, d, oldv, sizeof(oldv));
		describe(src, d, newv, sizeof(newv));
		if (!(d->flags & HP_OPT_LIVE)) {
			hp_log(HP_LOG_WARN, "%s: %s cannot change while the program runs (now %s, file says %s); restart it to apply",
			       path, d->name, oldv, newv);
			continue;
		}
		hp_conf_copy(&hp_opt, src, d);
		hp_opt_source[i] = now ? HP_SRC_INI : HP_SRC_DEFAULT;
		hp_log(HP_LOG_INFO, "%s: %s changed from %s to %s", path, d->name, oldv, newv);
		changed++;
	}
	memcpy(&hp_sources_ini, next, sizeof(*next));
	if (changed) {
		hp_conf_finish(&hp_opt, hp_opt_source);
		hp_runtime_apply();
	}
	hp_dump_unlock();
out:
	hp_pages_free(next, sizeof(*next));
	hp_pages_free(defaults, sizeof(*defaults));
}

int hp_runtime_set(const char *key, const char *value)
{
	const struct hp_opt_desc *d = hp_conf_find(key, strlen(key));
	int err = 0;

	if (!d)
		return ENOENT;
	if (!(d->flags & HP_OPT_LIVE))
		return EPERM;
	hp_dump_lock();
	if (hp_conf_set(&hp_opt, d, value, strlen(value)) != HP_CONF_OK) {
		err = EINVAL;
	} else {
		hp_opt_source[d - hp_opt_table] = HP_SRC_API;
		hp_conf_finish(&hp_opt, hp_opt_source);
		hp_runtime_apply();
	}
	hp_dump_unlock();
	return err;
}

void hp_runtime_toggle(const char *why)
{
	hp_dump_lock();
	hp_opt.prof_active = !hp_opt.prof_active;
	hp_opt_source[HP_O_prof_active] = HP_SRC_API;
	hp_runtime_apply();
	hp_dump_unlock();
	hp_log(HP_LOG_INFO, "sampling %s (%s)", hp_opt.prof_active ? "resumed" : "paused", why);
}
