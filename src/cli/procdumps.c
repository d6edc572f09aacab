/*
 * procdumps.c -- which process wrote a dump (see procdumps.h).
 *
 * Owns the reading of a dump's name into its process ID.  The command's
 * only: it reads names, never the files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/buf.h"
#include "report/util.h"
#include "procdumps.h"

int hp_procdumps_parse(const char *dump, struct hp_procdumps_name *d)
{
	const char *base = strrchr(dump, '/');
	size_t n = strlen(dump);

	base = base ? base + 1 : dump;
	if (n < 6 || strcmp(dump + n - 5, ".heap"))
		return -1;
	/* Counted back from ".heap": fields[0] is the last (time or trigger). */
	const char *fields[6];
	int nf = 0;
	for (const char *p = dump + n - 5; p > base && nf < 6; p--)
		if (p[-1] == '.')
			fields[nf++] = p;
	int trig = nf > 0 && strlen(fields[0]) >= 16 && fields[0][8] == 'T' ? 1 : 0;
	if (nf < trig + 3)   /* pid, seq and trigger after the prefix */
		return -1;
	d->pid = fields[trig + 2];
	d->pid_len = (size_t)(fields[trig + 1] - d->pid - 1);
	d->upto = (size_t)(fields[trig + 1] - dump);
	d->trigger = fields[trig][0];
	if (!d->pid_len || strspn(d->pid, "0123456789") != d->pid_len ||
	    strspn(fields[trig + 1], "0123456789") != (size_t)(fields[trig] - fields[trig + 1] - 1))
		return -1;
	return 0;
}

int hp_procdumps_one_process(const char *cmd, char *const *dumps, size_t n, const char *what,
			     const char *hint)
{
	long *pids = hp_util_xcalloc(n ? n : 1, sizeof(*pids));
	size_t np = 0;

	for (size_t i = 0; i < n; i++) {
		struct hp_procdumps_name d;
		if (hp_procdumps_parse(dumps[i], &d))
			continue;
		long pid = strtol(d.pid, NULL, 10);
		size_t k = 0;
		while (k < np && pids[k] != pid)
			k++;
		if (k == np)
			pids[np++] = pid;
	}
	if (np < 2) {
		free(pids);
		return 0;
	}
	struct hp_buf b = { 0 };
	for (size_t k = 0; k < np && k < 10; k++)
		hp_buf_printf(&b, "%s%ld", k ? ", " : "", pids[k]);
	if (np > 10)
		hp_buf_printf(&b, " and %zu more", np - 10);
	fprintf(stderr, "heapprof %s: the %s come from %zu processes (pids %s): %s\n", cmd, what, np,
		b.p, hint);
	hp_buf_release(&b);
	free(pids);
	return 2;
}
