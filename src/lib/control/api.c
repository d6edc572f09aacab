/*
 * api.c -- the programmatic interface: heapprof_mallctl() and mallctl().
 *
 * Owns the name table of the controls.  Entry points run on the calling
 * thread, never inside malloc: an API dump is written right there, under
 * the dump lock that serialises dumps, so several threads may dump at
 * once.  include/heapprof.h wraps heapprof_mallctl for programs; mallctl
 * is exported so that a program written for jemalloc gets heapprof's
 * profile when heapprof is preloaded, and names heapprof does not own go
 * to the next mallctl in the chain (jemalloc's).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/types.h>

#include "control/api.h"
#include "base/compiler.h"
#include "conf/conf.h"
#include "output/dump.h"
#include "base/fmt.h"
#include "base/log.h"
#include "control/settings.h"
#include "record/peak.h"
#include "record/sample.h"
#include "record/threads.h"
#include "record/tls.h"
#include "version.h"
#include "record/switches.h"
#include "scan/reach.h"
#include "leak/livecheck.h"
#include "control/requests.h"
#include "record/trigger.h"
#include "stack/entry.h"
#include "base/banned.h"

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);

/* jemalloc's read convention: oldp and *oldlenp must match the type. */
static int read_value(void *oldp, size_t *oldlenp, const void *v, size_t size)
{
	if (!oldp || !oldlenp)
		return 0;
	if (*oldlenp != size) {
		size_t n = *oldlenp < size ? *oldlenp : size;
		memcpy(oldp, v, n);
		*oldlenp = n;
		return EINVAL;
	}
	memcpy(oldp, v, size);
	return 0;
}

static int want_write(void *newp, size_t newlen, size_t size)
{
	if (!newp)
		return 0;
	return newlen == size ? 1 : -EINVAL;
}

static int ctl_bool(const char *opt, void *oldp, size_t *oldlenp, void *newp, size_t newlen,
		    bool cur)
{
	int w = want_write(newp, newlen, sizeof(bool));
	int err = read_value(oldp, oldlenp, &cur, sizeof(bool));

	if (w < 0)
		return -w;
	if (err || !w)
		return err;
	return hp_settings_set(opt, *(bool *)newp ? "true" : "false");
}

HP_EXPORT int heapprof_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

/* heapprof_leak_check(): include/heapprof.h's struct heapprof_leaks, laid
 * out here again (the header is the program's, not the library's). */
struct api_leaks {
	unsigned long long direct_bytes, direct_objects;
	unsigned long long indirect_bytes, indirect_objects;
	unsigned long long pause_us;
	unsigned check;
	unsigned threads_not_stopped;
	int estimated;
	int reserved[5];
};

_Static_assert(sizeof(struct api_leaks) == 72, "struct heapprof_leaks, as include/heapprof.h has it");

/* A leak check now: on the helper thread when there is one (the caller
 * waits, stopped as the other threads); else on the caller's thread.
 * Either way the caller's stack is taken from where the program called,
 * with the registers it had there: heapprof's frames below hold stale
 * copies of the program's pointers. */
static int ctl_leak_check(void *oldp, size_t *oldlenp)
{
	struct hp_tls *t = &hp_tls;
	struct hp_stack_entry e;
	struct hp_livecheck c;
	struct api_leaks out;
	const char *why;

	if (!oldp || !oldlenp || *oldlenp != sizeof(out))
		return EINVAL;
	hp_tls_guard_enter(t);
	if (!hp_stack_entry_of((const void *)heapprof_mallctl, &e))
		e.sp = 0;
	/* The helper thread checks, when there is one; else this thread. */
	int err = HP_LOAD(&hp_trigger_answer_mask) ? -1 : hp_requests_leak_check(&c, &why, e.sp ? &e : NULL);
	if (err == -1)
		err = hp_livecheck_run(&c, HP_LIVECHECK_API, e.sp ? &e : NULL, 0, &why);
	hp_tls_guard_leave(t);
	if (err)
		return err;
	memset(&out, 0, sizeof(out));
	out.direct_bytes = c.v.direct_bytes;
	out.direct_objects = c.v.direct_objects;
	out.indirect_bytes = c.v.indirect_bytes;
	out.indirect_objects = c.v.indirect_objects;
	out.pause_us = c.v.pause_us;
	out.check = c.seq;
	out.threads_not_stopped = c.v.threads - c.v.threads_stopped;
	out.estimated = c.v.sampled_lg != 0;
	return read_value(oldp, oldlenp, &out, sizeof(out));
}

static int ctl_dump(void *oldp, void *newp, size_t newlen)
{
	char path[PATH_MAX];
	const char *target = NULL;

	if (oldp)
		return EPERM;
	if (newp) {
		if (newlen != sizeof(const char *))
			return EINVAL;
		target = *(const char **)newp;
	}
	if (target)
		return hp_dump_path(target);
	return hp_dump_auto('m', 0, path, sizeof(path), NULL);
}

static int ctl_reset(void *newp, size_t newlen)
{
	char lg[24];

	if (newp) {
		if (newlen != sizeof(size_t))
			return EINVAL;
		size_t v = *(size_t *)newp;
		if (v > HP_LG_SAMPLE_MAX)
			return EINVAL;
		hp_fmt(lg, sizeof(lg), "%zu", v);
		int err = hp_settings_set("lg_prof_sample", lg);
		if (err)
			return err;
	}
	/* A new generation: contexts of the old one drop out of dumps, and
	 * frees of blocks sampled before the reset no longer count. */
	HP_ADD(&hp_switches.gen, 1);
	hp_peak_reset();
	hp_switches_new_epoch();
	return 0;
}

static int ctl_thread_name(void *oldp, size_t *oldlenp, void *newp, size_t newlen)
{
	struct hp_tls *t = &hp_tls;
	int err = 0;

	if (oldp && newp)
		return EPERM;   /* jemalloc: read or write, not both */
	hp_tls_guard_enter(t);
	struct hp_thread *th = hp_threads_self();
	if (!th) {
		err = EAGAIN;
	} else if (newp) {
		const char *name = newlen == sizeof(const char *) ? *(const char **)newp : NULL;
		if (!name)
			err = EINVAL;
		for (const char *c = name; !err && *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				err = EINVAL;   /* names sit on one dump line */
		if (!err)
			hp_threads_set_name(th, name);
	} else {
		const char *name = th->name;
		err = read_value(oldp, oldlenp, &name, sizeof(name));
	}
	hp_tls_guard_leave(t);
	return err;
}

static int ctl_thread_active(void *oldp, size_t *oldlenp, void *newp, size_t newlen)
{
	struct hp_tls *t = &hp_tls;
	int err, w = want_write(newp, newlen, sizeof(bool));

	if (w < 0)
		return -w;
	hp_tls_guard_enter(t);
	struct hp_thread *th = hp_threads_self();
	if (!th) {
		err = EAGAIN;
	} else {
		bool cur = HP_LOAD(&th->active);
		err = read_value(oldp, oldlenp, &cur, sizeof(cur));
		if (!err && w) {
			HP_STORE(&th->active, *(bool *)newp);
			hp_tls_leave_lane(t);
			if (!*(bool *)newp)
				HP_STORE(&hp_switches.missed, 1);
		}
	}
	hp_tls_guard_leave(t);
	return err;
}

/* opt.NAME: the option's value, typed as jemalloc types its own. */
static int ctl_opt(const char *name, void *oldp, size_t *oldlenp, void *newp)
{
	const struct hp_conf_desc *d = hp_conf_find(name, strlen(name));

	if (!d)
		return ENOENT;
	if (newp)
		return EPERM;
	const char *field = (const char *)&hp_conf + d->offset;
	switch (d->type) {
	case HP_CONF_T_BOOL:
		return read_value(oldp, oldlenp, field, sizeof(bool));
	case HP_CONF_T_STR: {
		const char *s = field;
		return read_value(oldp, oldlenp, &s, sizeof(s));
	}
	case HP_CONF_T_ENUM: {
		static char names[HP_CONF_NOPTS][32];
		hp_conf_format(&hp_conf, d, names[d - hp_conf_table], 32);
		const char *s = names[d - hp_conf_table];
		return read_value(oldp, oldlenp, &s, sizeof(s));
	}
	case HP_CONF_T_SIGNAL:
		return read_value(oldp, oldlenp, field, sizeof(int));
	default: {
		int64_t v = *(const int64_t *)field;
		if (!strcmp(name, "prof_bt_max")) {
			unsigned u = (unsigned)v;
			return read_value(oldp, oldlenp, &u, sizeof(u));
		}
		if (!strcmp(name, "lg_prof_interval")) {
			ssize_t s = (ssize_t)v;
			return read_value(oldp, oldlenp, &s, sizeof(s));
		}
		if (!strcmp(name, "lg_prof_sample") || d->type == HP_CONF_T_SIZE) {
			size_t z = (size_t)v;
			return read_value(oldp, oldlenp, &z, sizeof(z));
		}
		return read_value(oldp, oldlenp, &v, sizeof(v));
	}
	}
}

/* ENOENT when name is not one of ours. */
static int ctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
{
	if (!name)
		return EINVAL;
	if (!strcmp(name, "prof.dump"))
		return ctl_dump(oldp, newp, newlen);
	if (!strcmp(name, "prof.active")) {
		bool was = HP_LOAD(&hp_switches.active);
		int err = ctl_bool("prof_active", oldp, oldlenp, newp, newlen, was);
		if (!err && newp && *(bool *)newp != was)
			hp_log(HP_LOG_INFO, "sampling %s (API)", *(bool *)newp ? "resumed" : "paused");
		return err;
	}
	if (!strcmp(name, "prof.gdump"))
		return ctl_bool("prof_gdump", oldp, oldlenp, newp, newlen, hp_conf.prof_gdump);
	if (!strcmp(name, "prof.prefix")) {
		if (oldp)
			return EPERM;
		if (!newp || newlen != sizeof(const char *) || !*(const char **)newp)
			return EINVAL;
		return hp_settings_set("prof_prefix", *(const char **)newp);
	}
	if (!strcmp(name, "prof.reset"))
		return oldp ? EPERM : ctl_reset(newp, newlen);
	if (!strcmp(name, "prof.lg_sample")) {
		size_t v = (size_t)HP_LOAD(&hp_switches.lg_sample);
		return newp ? EPERM : read_value(oldp, oldlenp, &v, sizeof(v));
	}
	if (!strcmp(name, "prof.interval")) {
		uint64_t v = hp_conf.lg_prof_interval >= 0 ? (uint64_t)1 << hp_conf.lg_prof_interval : 0;
		return newp ? EPERM : read_value(oldp, oldlenp, &v, sizeof(v));
	}
	if (!strcmp(name, "thread.prof.name"))
		return ctl_thread_name(oldp, oldlenp, newp, newlen);
	if (!strcmp(name, "thread.prof.active"))
		return ctl_thread_active(oldp, oldlenp, newp, newlen);
	if (!strcmp(name, "config.prof")) {
		bool yes = true;
		return newp ? EPERM : read_value(oldp, oldlenp, &yes, sizeof(yes));
	}
	if (!strcmp(name, "heapprof.version")) {
		const char *v = HEAPPROF_VERSION;
		return newp ? EPERM : read_value(oldp, oldlenp, &v, sizeof(v));
	}
	int reg = !strcmp(name, "heapprof.register_root");
	if (reg || !strcmp(name, "heapprof.unregister_root")) {
		/* newp: { const void *p; size_t n; } (n ignored to unregister) */
		if (oldp || !newp || newlen != 2 * sizeof(void *))
			return EINVAL;
		const void *const *r = newp;
		return reg ? hp_reach_add_root(r[0], (size_t)(uintptr_t)r[1]) : hp_reach_remove_root(r[0]);
	}
	if (!strcmp(name, "heapprof.leak_check"))
		return newp ? EPERM : ctl_leak_check(oldp, oldlenp);
	if (!strncmp(name, "opt.", 4))
		return ctl_opt(name + 4, oldp, oldlenp, newp);
	return ENOENT;
}

HP_EXPORT int heapprof_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp,
			       size_t newlen)
{
	int saved = errno;
	int err = ctl(name, oldp, oldlenp, newp, newlen);

	errno = saved;
	return err;
}

HP_EXPORT int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
{
	static mallctl_fn next;
	int err = heapprof_mallctl(name, oldp, oldlenp, newp, newlen);

	if (err != ENOENT || (name && (!strncmp(name, "prof.", 5) || !strncmp(name, "thread.prof.", 12))))
		return err;
	/* Not ours (or an option jemalloc has and we do not): the next one's. */
	mallctl_fn f = HP_LOAD_ACQ(&next);
	if (!f) {
		f = (mallctl_fn)dlsym(RTLD_NEXT, "mallctl");
		if (!f)
			return ENOENT;
		HP_STORE_REL(&next, f);
	}
	return f(name, oldp, oldlenp, newp, newlen);
}
