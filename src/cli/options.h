/*
 * options.h -- the library's option table as the command sees it, and the
 * check of the options the command passes on (heapprof run -c).
 */
#ifndef HP_CLI_OPTIONS_H
#define HP_CLI_OPTIONS_H

#include <stddef.h>

/* One row of src/lib/conf/options.def (build/gen/optlist.h).  min and max
 * are the row's bounds as written there ("0", "40"; an expression such as
 * "HP_CONF_STR_MAX - 1" is no bound the command can check). */
struct hp_option_row {
	const char *name, *type, *def, *min, *max, *choices, *help;
};

extern const struct hp_option_row hp_option_rows[];
extern const size_t hp_option_count;

/* Checks list, MALLOC_CONF-style pairs (key:value[,key:value]...), against
 * the table: every key known, every value one the library takes.  Returns
 * 0, or after one usage error naming the pair (and for an unknown key the
 * closest known one) returns 2.  cmd names the subcommand in the message.
 * The library would only warn and keep its default, and a gate key's typo
 * would switch the gate off: here it is the caller's to fix. */
int hp_options_check(const char *cmd, const char *list);

/* 0 when v is a size (bytes, or with K, M, G, T: binary multiples, with
 * an optional B or iB), its value in *out; -1 when it is not one. */
int hp_options_parse_size(const char *v, long long *out);

#endif
