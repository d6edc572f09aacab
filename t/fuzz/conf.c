/*
 * conf.c -- fuzz target: the MALLOC_CONF grammar (hp_conf_parse_string).
 *
 * The input up to its first NUL is MALLOC_CONF, the rest HEAPPROF_CONF
 * (an environment string holds no NUL).  Both are applied over the
 * defaults, then the implications between options.  Checked on top of
 * the sanitizers: every option's value, formatted back as `heapprof
 * config` shows it, parses again to the same value.
 */
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "fuzz.h"

static struct hp_conf_values o, again;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t srcs[HP_CONF_NOPTS], srcs2[HP_CONF_NOPTS];
	char *s = malloc(size + 2);
	char val[HP_CONF_STR_MAX + 64];

	memcpy(s, data, size);
	s[size] = s[size + 1] = '\0';
	const char *second = s + strlen(s) + (strlen(s) < size ? 1 : 0);

	hp_conf_defaults(&o, srcs);
	hp_conf_parse_string(&o, srcs, s, HP_CONF_SRC_MALLOC_CONF);
	hp_conf_parse_string(&o, srcs, second, HP_CONF_SRC_HEAPPROF_CONF);
	hp_conf_finish(&o, srcs);

	hp_conf_defaults(&again, srcs2);
	for (size_t i = 0; i < HP_CONF_NOPTS; i++) {
		const struct hp_conf_desc *d = &hp_conf_table[i];
		size_t n = hp_conf_format(&o, d, val, sizeof(val));
		if (n >= sizeof(val))
			fuzz_fail("%s: formatted value of %zu bytes", d->name, n);
		enum hp_conf_status st = hp_conf_set(&again, d, val, n);
		if (st != HP_CONF_OK || !hp_conf_equal(&o, &again, d))
			fuzz_fail("%s: '%s' does not parse back (status %d)", d->name, val, st);
		if (srcs[i] >= HP_CONF_NSOURCES)
			fuzz_fail("%s: source %u", d->name, srcs[i]);
		hp_conf_expected(d, val, sizeof(val));
	}
	free(s);
	return 0;
}
