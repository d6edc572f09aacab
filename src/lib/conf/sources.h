/*
 * sources.h -- reading the option values at start-up, and what they were
 * read from.
 *
 * Sources are applied in order of precedence, lowest first: built-in
 * defaults, profiler.ini, MALLOC_CONF, HEAPPROF_CONF (same syntax;
 * overrides MALLOC_CONF key by key so that a program that also runs
 * jemalloc keeps MALLOC_CONF for jemalloc).  Live changes later
 * (control/settings.c) re-read profiler.ini and skip the keys that the
 * environment set (hp_conf_sources).
 */
#ifndef HP_SOURCES_H
#define HP_SOURCES_H

#include "conf/conf.h"
#include "conf/inifile.h"

/* Reads defaults, profiler.ini and the environment into hp_conf.  Called
 * once at init. */
void hp_sources_load(void);
/* The same, then extra (heapprof attach's -c options, MALLOC_CONF's
 * syntax) over the environment, as HEAPPROF_CONF would be: an attached
 * process's environment cannot be changed.  Called at each attach. */
void hp_sources_load_with(const char *extra);

/* The profiler.ini read last (conf/inifile.h). */
extern struct hp_inifile hp_sources_ini;

#endif
