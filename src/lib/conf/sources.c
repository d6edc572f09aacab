/*
 * sources.c -- where the option values come from at start-up (see
 * sources.h): the defaults, profiler.ini, MALLOC_CONF and HEAPPROF_CONF,
 * in that order of precedence, and confirm_conf's account of them.
 *
 * Owns the profiler.ini in force.  Runs at init, before sampling starts;
 * never calls the host allocator.  Live reloads (control/settings.c) never
 * re-read the environment: the option source array says which keys it
 * set, and profiler.ini does not override those.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "conf/conf.h"
#include "conf/inifile.h"
#include "conf/sources.h"
#include "base/banned.h"

/* confirm_conf: the sources, then every value that is not a default, as
 * jemalloc's "-- Set conf value" lines. */
static void confirm(const char *mc, const char *hc)
{
	char val[256];

	hp_log(HP_LOG_ERROR, "config file (profiler.ini): %s%s", hp_sources_ini.path,
	       hp_sources_ini.found ? "" : " (none)");
	hp_log(HP_LOG_ERROR, "malloc_conf #1 (MALLOC_CONF): \"%s\"", mc ? mc : "");
	hp_log(HP_LOG_ERROR, "malloc_conf #2 (HEAPPROF_CONF): \"%s\"", hc ? hc : "");
	for (size_t i = 0; i < HP_CONF_NOPTS; i++) {
		if (hp_conf_sources[i] == HP_CONF_SRC_DEFAULT)
			continue;
		hp_conf_format(&hp_conf, &hp_conf_table[i], val, sizeof(val));
		hp_log(HP_LOG_ERROR, "-- Set conf value: %s:%s (%s)", hp_conf_table[i].name,
		       val, hp_conf_source_name(hp_conf_sources[i]));
	}
}

/* The profiler.ini in force: kept for live reloads to compare against. */
struct hp_inifile hp_sources_ini;

void hp_sources_load(void)
{
	hp_sources_load_with(NULL);
}

void hp_sources_load_with(const char *extra)
{
	bool explicit;
	const char *path = hp_inifile_path(&explicit);
	const char *mc = secure_getenv("MALLOC_CONF");
	const char *hc = secure_getenv("HEAPPROF_CONF");

	hp_conf_defaults(&hp_conf, hp_conf_sources);
	hp_inifile_read(&hp_sources_ini, path, explicit, hp_inifile_program(), false);
	for (size_t i = 0; i < HP_CONF_NOPTS; i++) {
		if (hp_sources_ini.set[i]) {
			hp_conf_copy(&hp_conf, &hp_sources_ini.opts, &hp_conf_table[i]);
			hp_conf_sources[i] = HP_CONF_SRC_INI;
		}
		/* A gate key the file meant and we could not take; the
		 * environment, applied next, may still set it. */
		if (hp_sources_ini.fault[i][0])
			hp_conf_gate_mark(&hp_conf_table[i], hp_sources_ini.fault[i]);
	}
	if (mc)
		hp_conf_parse_string(&hp_conf, hp_conf_sources, mc, HP_CONF_SRC_MALLOC_CONF);
	if (hc)
		hp_conf_parse_string(&hp_conf, hp_conf_sources, hc, HP_CONF_SRC_HEAPPROF_CONF);
	if (extra && *extra)
		hp_conf_parse_string(&hp_conf, hp_conf_sources, extra, HP_CONF_SRC_HEAPPROF_CONF);
	hp_conf_finish(&hp_conf, hp_conf_sources);
	hp_log_set_level(hp_conf.log_level);
	if (hp_conf.confirm_conf || hp_conf.log_level >= HP_LOG_DEBUG)
		confirm(mc, extra && *extra ? extra : hc);
}
