/*
 * settings.h -- option values in force, applied to the running profiler.
 *
 * hp_conf holds the values; hp_settings_apply() brings everything that
 * depends on them (sampling rate and switches, the log, the signals, the
 * triggers) in line.  Changes come from profiler.ini edits (the helper
 * thread), the API and the toggle signal; all are made under the dump
 * lock (output/dump.h), so a dump never sees half a change.
 */
#ifndef HP_SETTINGS_H
#define HP_SETTINGS_H

#include "conf/conf.h"

#pragma GCC visibility push(hidden)

/* Applies hp_conf to the running profiler.  Idempotent.  Under the dump
 * lock (or at init). */
/* The log's level and file (log_file, log_max_bytes, log_keep), from
 * hp_conf: part of hp_settings_apply, and alone in a process that starts
 * with profiling off (its lines still go where the log is asked to go:
 * heapprof check's run directory). */
void hp_settings_log(void);
void hp_settings_apply(void);

/* Re-reads profiler.ini and applies the keys that changed in it, logging
 * each.  Helper thread. */
void hp_settings_reload(void);

/* Sets one option from the API (source HP_CONF_SRC_API) and applies it.
 * Returns 0, EINVAL (bad value), ENOENT (no such option) or EPERM (it
 * cannot change while running). */
int hp_settings_set(const char *key, const char *value);

/* Flips prof_active (the toggle signal), logging the new state. */
void hp_settings_toggle(const char *why);
/* Sets prof_active (heapprof pause and resume), logging a change; does
 * nothing when it is already so. */
void hp_settings_set_active(int on, const char *why);

void hp_settings_postfork_child(void);

#pragma GCC visibility pop

#endif
