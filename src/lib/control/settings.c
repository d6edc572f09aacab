/*
 * settings.c -- applying option values while the program runs (see
 * settings.h).
 *
 * Owns the log file name last applied, and the secure-execution rule for
 * paths.  Changes are made under the dump lock (output/dump.h).  Runs at
 * init, on the helper thread and on threads that call the API; never
 * inside malloc.
 */
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>

#include "base/fmt.h"
#include "conf/inifile.h"
#include "conf/sources.h"
#include "base/log.h"
#include "base/sandbox.h"
#include "base/pages.h"
#include "control/settings.h"
#include "control/signals.h"
#include "stack/stack.h"
#include "record/trigger.h"
#include "stack/unwind.h"
#include "output/dump.h"
#include "record/switches.h"
#include "base/banned.h"

static char log_file_applied[HP_CONF_STR_MAX];
static int log_failed;

void hp_settings_postfork_child(void)
{
	hp_log_postfork_child();
}

/* In a secure-exec process (setuid, setgid, file capabilities: AT_SECURE)
 * the environment is never read (conf/sources.c uses secure_getenv), and
 * a relative path would be resolved in the directory the invoking user
 * started the program from: writing a dump or a log there, or reading
 * suppressions from there, with the program's privileges is refused.
 * The default prefix goes quietly (a setuid program under a system-wide
 * preload must print nothing new); a value someone set says why. */
static void secure_path(char *value, int opt, const char *consequence)
{
	if (!value[0] || value[0] == '/')
		return;
	if (hp_conf_sources[opt] != HP_CONF_SRC_DEFAULT)
		hp_log(HP_LOG_WARN, "secure execution (setuid, setgid or capabilities): relative %s %s "
		       "refused, it would name a file in the directory the program was started from; %s",
		       hp_conf_table[opt].name, value, consequence);
	value[0] = '\0';
}

static void secure_paths(void)
{
	if (!getauxval(AT_SECURE))
		return;
	secure_path(hp_conf.prof_prefix, HP_CONF_O_prof_prefix, "no automatic dumps");
	secure_path(hp_conf.leak_suppressions, HP_CONF_O_leak_suppressions, "no suppressions");
}

void hp_settings_log(void)
{
	if (getauxval(AT_SECURE))
		secure_path(hp_conf.log_file, HP_CONF_O_log_file, "messages go to standard error");
	hp_log_set_level(hp_conf.log_level);
	int same_file = !strcmp(log_file_applied, hp_conf.log_file);
	/* Started under a seccomp filter (base/sandbox.h): no file is opened,
	 * open(2) may kill the process; the lines go to standard error. */
	int err = hp_sandbox_on() ? 0 :
		  hp_log_configure(hp_conf.log_file, hp_conf.log_max_bytes, (int)hp_conf.log_keep);
	if (err && (!same_file || !log_failed))
		hp_log(HP_LOG_ERROR, "cannot open log_file %s: %s; messages go to standard error",
		       hp_conf.log_file, hp_log_strerror(err));
	log_failed = err != 0;
	memcpy(log_file_applied, hp_conf.log_file, strlen(hp_conf.log_file) + 1);
}

void hp_settings_apply(void)
{
	secure_paths();
	hp_switches_set(hp_conf.prof_active, hp_conf.lg_prof_interval >= 0);
	HP_STORE(&hp_switches.bt_max, (int)hp_conf.prof_bt_max);
	HP_STORE(&hp_switches.thread_active_init, hp_conf.prof_thread_active_init);
	hp_stack_set_unwinder(hp_conf.prof_unwinder);
	if (!hp_conf.prof_active || !hp_conf.prof_thread_active_init || hp_conf.lg_prof_sample > 0)
		HP_STORE(&hp_switches.missed, 1);
	if (HP_LOAD(&hp_switches.lg_sample) != (int)hp_conf.lg_prof_sample) {
		HP_STORE(&hp_switches.lg_sample, (int)hp_conf.lg_prof_sample);
		hp_switches_new_epoch();
	}
	HP_STORE(&hp_unwind_counting, hp_conf.log_level >= HP_LOG_DEBUG || hp_conf.prof_unwinder == HP_UNWIND_CHECK);
	hp_settings_log();
	/* Under a seccomp filter (base/sandbox.h) no signal's action changes:
	 * sigaction(2) may be refused (and a process started sandboxed has
	 * no helper thread to dump). */
	if (!hp_sandbox_on())
		hp_signals_configure(hp_conf.signal_dump, hp_conf.signal_toggle);
	hp_trigger_request(HP_REQ_STATE);   /* the helper re-arms and republishes */
}

static void describe(const struct hp_conf_values *o, const struct hp_conf_desc *d, char *buf, size_t cap)
{
	size_t n = hp_conf_format(o, d, buf, cap);

	if (d->type == HP_CONF_T_STR && n == 0)
		hp_fmt(buf, cap, "(empty)");
}

void hp_settings_reload(void)
{
	struct hp_inifile *next = hp_pages_alloc(sizeof(*next));
	struct hp_conf_values *defaults = hp_pages_alloc(sizeof(*defaults));
	uint8_t srcs[HP_CONF_NOPTS];
	char oldv[300], newv[300];
	bool explicit;
	int changed = 0;

	/* Under a seccomp filter (base/sandbox.h) profiler.ini is not read:
	 * an edit seen just before the filter went in is dropped. */
	if (!next || !defaults || hp_sandbox_on())
		goto out;
	const char *path = hp_inifile_path(&explicit);
	hp_inifile_read(next, path, explicit, hp_inifile_program(), false);
	if (next->problems) {
		/* All or nothing: a half-good edit could drop keys the operator
		 * meant to keep (a typo in a section header hides the section). */
		hp_log(HP_LOG_WARN, "%s: edit not applied (%u problem%s above); the running configuration is unchanged",
		       path, next->problems, next->problems == 1 ? "" : "s");
		goto out;
	}
	hp_conf_defaults(defaults, srcs);
	hp_dump_lock();
	for (size_t i = 0; i < HP_CONF_NOPTS; i++) {
		const struct hp_conf_desc *d = &hp_conf_table[i];
		int was = hp_sources_ini.set[i], now = next->set[i];
		if (!was && !now)
			continue;
		if (was == now && hp_conf_equal(&hp_sources_ini.opts, &next->opts, d))
			continue;   /* not edited */
		const struct hp_conf_values *src = now ? &next->opts : defaults;
		if (hp_conf_sources[i] == HP_CONF_SRC_MALLOC_CONF || hp_conf_sources[i] == HP_CONF_SRC_HEAPPROF_CONF) {
			hp_log(HP_LOG_WARN, "%s: %s changed, but %s sets it: ignored", path, d->name,
			       hp_conf_source_name(hp_conf_sources[i]));
			continue;
		}
		if (hp_conf_equal(&hp_conf, src, d))
			continue;
		describe(&hp_conf, d, oldv, sizeof(oldv));
		describe(src, d, newv, sizeof(newv));
		if (!(d->flags & HP_CONF_LIVE)) {
			hp_log(HP_LOG_WARN, "%s: %s cannot change while the program runs (now %s, file says %s); restart it to apply",
			       path, d->name, oldv, newv);
			continue;
		}
		hp_conf_copy(&hp_conf, src, d);
		hp_conf_sources[i] = now ? HP_CONF_SRC_INI : HP_CONF_SRC_DEFAULT;
		hp_log(HP_LOG_INFO, "%s: %s changed from %s to %s", path, d->name, oldv, newv);
		changed++;
	}
	memcpy(&hp_sources_ini, next, sizeof(*next));
	if (changed) {
		hp_conf_finish(&hp_conf, hp_conf_sources);
		hp_settings_apply();
	}
	hp_dump_unlock();
out:
	hp_pages_free(next, sizeof(*next));
	hp_pages_free(defaults, sizeof(*defaults));
}

int hp_settings_set(const char *key, const char *value)
{
	const struct hp_conf_desc *d = hp_conf_find(key, strlen(key));
	int err = 0;

	if (!d)
		return ENOENT;
	if (!(d->flags & HP_CONF_LIVE))
		return EPERM;
	hp_dump_lock();
	if (hp_conf_set(&hp_conf, d, value, strlen(value)) != HP_CONF_OK) {
		err = EINVAL;
	} else {
		hp_conf_sources[d - hp_conf_table] = HP_CONF_SRC_API;
		hp_conf_finish(&hp_conf, hp_conf_sources);
		hp_settings_apply();
	}
	hp_dump_unlock();
	return err;
}

void hp_settings_toggle(const char *why)
{
	hp_dump_lock();
	hp_conf.prof_active = !hp_conf.prof_active;
	hp_conf_sources[HP_CONF_O_prof_active] = HP_CONF_SRC_API;
	hp_settings_apply();
	hp_dump_unlock();
	hp_log(HP_LOG_INFO, "sampling %s (%s)", hp_conf.prof_active ? "resumed" : "paused", why);
}

void hp_settings_set_active(int on, const char *why)
{
	int changed;

	hp_dump_lock();
	changed = !hp_conf.prof_active != !on;
	if (changed) {
		hp_conf.prof_active = on;
		hp_conf_sources[HP_CONF_O_prof_active] = HP_CONF_SRC_API;
		hp_settings_apply();
	}
	hp_dump_unlock();
	if (changed)
		hp_log(HP_LOG_INFO, "sampling %s (%s)", on ? "resumed" : "paused", why);
}
