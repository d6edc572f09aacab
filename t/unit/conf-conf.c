/*
 * conf-conf.c -- unit tests of conf/conf: defaults, the MALLOC_CONF
 * grammar, sources key by key, suggestions for typos, formatting back.
 */
#include <stdint.h>
#include <string.h>

#include "base/log.h"
#include "conf/conf.h"

#include "tap.h"

int main(void)
{
	struct hp_conf_values o;
	uint8_t src[HP_CONF_NOPTS];

	hp_log_set_level(-1);   /* the parser's messages are expected here */
	hp_conf_defaults(&o, src);
	ok(o.lg_prof_sample == 19 && o.prof && !o.prof_leak && !strcmp(o.prof_prefix, "heapprof") &&
	   o.prof_bt_max == 128 && o.lg_prof_interval == -1 && o.dump_format == HP_CONF_DUMP_GPERFTOOLS,
	   "defaults");
	hp_conf_parse_string(&o, src, "lg_prof_sample:0x0a,prof_leak:on,prof_prefix:/tmp/a b,dump_format:jemalloc",
			     HP_CONF_SRC_MALLOC_CONF);
	ok(o.lg_prof_sample == 10 && o.prof_leak && !strcmp(o.prof_prefix, "/tmp/a b") &&
	   o.dump_format == HP_CONF_DUMP_JEMALLOC, "values parsed");
	ok(src[HP_CONF_O_lg_prof_sample] == HP_CONF_SRC_MALLOC_CONF && src[HP_CONF_O_prof] == HP_CONF_SRC_DEFAULT,
	   "sources recorded key by key");
	hp_conf_parse_string(&o, src, "lg_prof_sample:99,prof_leak:maybe", HP_CONF_SRC_HEAPPROF_CONF);
	ok(o.lg_prof_sample == 10 && o.prof_leak, "bad values leave the old ones");
	hp_conf_parse_string(&o, src, "lg_prof_sample:3", HP_CONF_SRC_HEAPPROF_CONF);
	ok(o.lg_prof_sample == 3 && src[HP_CONF_O_lg_prof_sample] == HP_CONF_SRC_HEAPPROF_CONF, "later source wins");
	hp_conf_finish(&o, src);
	ok(o.prof_final, "prof_leak implies prof_final");
	const char *s = hp_conf_suggest("prof_acum", 9);
	ok(s && !strcmp(s, "prof_accum"), "suggestion for a typo");
	ok(hp_conf_suggest("zzzzzzzz", 8) == NULL, "no suggestion for nonsense");
	char v[64];
	hp_conf_format(&o, hp_conf_find("dump_format", 11), v, sizeof(v));
	is_str(v, "jemalloc", "format an enum back");
	return done_testing();
}
