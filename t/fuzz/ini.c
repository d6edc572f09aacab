/*
 * ini.c -- fuzz target: profiler.ini (hp_inifile_read).
 *
 * The input is the file, written to the scratch directory and read as
 * the library reads it at start-up and on live edits, for a program
 * named "fuzzprog" (so that [program:fuzz*] and [program:other] sections
 * both occur in the seeds).  Checked on top of the sanitizers: a key the
 * file sets names a line of the file, and its value formats back to a
 * string that parses to the same value.
 */
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "conf/inifile.h"
#include "fuzz.h"

static struct hp_inifile ini;
static struct hp_conf_values again;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t srcs[HP_CONF_NOPTS];
	char val[HP_CONF_STR_MAX + 64];
	unsigned lines = 1;
	char *path = fuzz_file("profiler.ini", data, size);

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	hp_inifile_read(&ini, path, true, "fuzzprog", fuzz_hash(data, size) & 1);
	if (!ini.found)
		fuzz_fail("the file was not found");
	hp_conf_defaults(&again, srcs);
	for (size_t i = 0; i < HP_CONF_NOPTS; i++) {
		const struct hp_conf_desc *d = &hp_conf_table[i];
		if (!ini.set[i])
			continue;
		if (ini.line[i] < 1 || ini.line[i] > lines)
			fuzz_fail("%s: set on line %u of a file of %u lines", d->name, ini.line[i], lines);
		size_t n = hp_conf_format(&ini.opts, d, val, sizeof(val));
		if (n >= sizeof(val) || hp_conf_set(&again, d, val, n) != HP_CONF_OK ||
		    !hp_conf_equal(&ini.opts, &again, d))
			fuzz_fail("%s: '%s' does not parse back", d->name, val);
	}
	free(path);
	return 0;
}
