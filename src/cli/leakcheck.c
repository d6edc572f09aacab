/*
 * leakcheck.c -- a leak check of a running process, asked and read (see
 * leakcheck.h).
 *
 * Owns the --confirm rule: the blocks of every check but the last, sorted,
 * and the last check's leaks cut down to the blocks found in all.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leakcheck.h"
#include "report/check.h"
#include "report/strtab.h"
#include "report/util.h"


static int by_block(const void *a, const void *b)
{
	const struct hp_check_block *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->size > y->size) - (x->size < y->size);
}

/* Every block of p's leaks, sorted, into *out (n of them). */
static size_t blocks_of(const struct hp_check_proc *p, struct hp_check_block **out)
{
	size_t n = 0, k = 0;

	for (size_t j = 0; j < p->nleaks; j++)
		n += p->leaks[j].nblocks;
	*out = hp_util_xmalloc((n ? n : 1) * sizeof(**out));
	for (size_t j = 0; j < p->nleaks; j++)
		for (size_t i = 0; i < p->leaks[j].nblocks; i++)
			(*out)[k++] = p->leaks[j].blocks[i];
	qsort(*out, n, sizeof(**out), by_block);
	return n;
}

/* The set of the blocks leaked in every check so far, intersected with
 * p's (sorted both). */
static size_t intersect(struct hp_check_block *set, size_t n, const struct hp_check_proc *p)
{
	struct hp_check_block *mine;
	size_t m = blocks_of(p, &mine), k = 0;

	for (size_t i = 0; i < n; i++)
		if (bsearch(&set[i], mine, m, sizeof(*mine), by_block))
			set[k++] = set[i];
	free(mine);
	return k;
}

/* Cuts p's leaks down to the blocks in set, the figures with them: exact,
 * the blocks' own; estimated, the leak's estimate in the share of its
 * sampled blocks kept. */
static void keep_confirmed(struct hp_check_proc *p, const struct hp_check_block *set, size_t n)
{
	size_t kept_leaks = 0;

	p->direct_bytes = p->direct_objects = p->indirect_bytes = p->indirect_objects = 0;
	p->sampled_blocks = 0;
	for (size_t j = 0; j < p->nleaks; j++) {
		struct hp_check_leak *l = &p->leaks[j];
		size_t kept = 0;
		uint64_t bytes = 0;
		for (size_t i = 0; i < l->nblocks; i++) {
			if (bsearch(&l->blocks[i], set, n, sizeof(*set), by_block)) {
				bytes += l->blocks[i].size;
				l->blocks[kept++] = l->blocks[i];
			}
		}
		if (!kept) {
			free(l->frames);
			free(l->blocks);
			continue;
		}
		if (p->sampled_lg) {
			double share = (double)kept / (double)l->nblocks;
			l->bytes = (uint64_t)llround((double)l->bytes * share);
			l->objects = (uint64_t)llround((double)l->objects * share);
			p->sampled_blocks += kept;
		} else {
			l->bytes = bytes;
			l->objects = kept;
		}
		l->nblocks = kept;
		if (l->direct) {
			p->direct_bytes += l->bytes;
			p->direct_objects += l->objects;
		} else {
			p->indirect_bytes += l->bytes;
			p->indirect_objects += l->objects;
		}
		p->leaks[kept_leaks++] = *l;
	}
	p->nleaks = kept_leaks;
}

/* One check: asked, its file read into p.  0, or -1 after msg. */
static int one_check(const struct hp_leakcheck_opts *o, struct hp_ask *a, struct hp_check_proc *p,
		     struct hp_strtab *strs, char *msg, size_t cap, enum hp_ask_status *st)
{
	char path[PATH_MAX];

	*st = hp_ask_leaks(a, o->timeout, o->stop, o->confirm > 1, path, sizeof(path));
	if (*st != HP_ASK_OK) {
		snprintf(msg, cap, "%s", a->msg);
		return -1;
	}
	const char *err = hp_check_read(path, p, strs);
	if (err) {
		snprintf(msg, cap, "cannot read the leak check's verdict %s: %s", path, err);
		return -1;
	}
	if (p->error) {
		snprintf(msg, cap, "process %d gave no leak verdict: %s", (int)o->pid, p->error);
		return -1;
	}
	if (!p->live) {
		snprintf(msg, cap, "%s is not a leak check's verdict", path);
		return -1;
	}
	if (o->confirm > 1 && !p->live_blocks) {
		snprintf(msg, cap, "process %d's verdict lists no blocks to follow from check to check "
			 "(--confirm)", (int)o->pid);
		return -1;
	}
	return 0;
}

int hp_leakcheck_run(const struct hp_leakcheck_opts *o, struct hp_buf *out, char *msg, size_t cap,
		     enum hp_ask_status *st)
{
	static struct hp_ask a;
	struct hp_strtab strs = { 0 };
	struct hp_check_proc p = { 0 };
	struct hp_check_block *set = NULL;
	size_t nset = 0;
	unsigned n = o->confirm > 1 ? o->confirm : 1;
	int ret = -1;

	*st = hp_ask_check(&a, o->pid, o->any_user);
	if (*st != HP_ASK_OK) {
		snprintf(msg, cap, "%s", a.msg);
		return -1;
	}
	struct hp_check_block *all = NULL;   /* every check's leaked blocks */
	size_t nall = 0, capall = 0;
	for (unsigned i = 0; i < n; i++) {
		if (i) {
			/* The interval, in steps that notice a stop. */
			for (double left = o->interval; left > 0 && !(o->stop && *o->stop); left -= 0.05)
				hp_ask_pause_ms(left < 0.05 ? (int)(left * 1000) + 1 : 50);
			hp_check_release(&p);
		}
		if (one_check(o, &a, &p, &strs, msg, cap, st))
			goto out;
		if (n > 1) {
			struct hp_check_block *mine;
			size_t m = blocks_of(&p, &mine);
			if (m) {
				hp_util_grow(&all, &capall, nall + m, sizeof(*all));
				memcpy(all + nall, mine, m * sizeof(*mine));
				nall += m;
			}
			free(mine);
		}
		if (i == 0 && n > 1) {
			nset = blocks_of(&p, &set);
		} else if (i + 1 < n) {
			nset = intersect(set, nset, &p);
		}
	}
	if (n > 1) {
		keep_confirmed(&p, set, nset);
		/* Blocks unreachable in some check but not in all: in flight,
		 * or freed since. */
		if (nall)
			qsort(all, nall, sizeof(*all), by_block);
		size_t distinct = 0;
		for (size_t k = 0; k < nall; k++)
			distinct += !k || by_block(&all[k - 1], &all[k]);
		size_t confirmed = 0;
		for (size_t j = 0; j < p.nleaks; j++)
			confirmed += p.leaks[j].nblocks;
		p.unconfirmed_blocks = distinct - confirmed;
		p.confirm_checks = n;
		p.confirm_interval = o->interval;
	}
	hp_check_symbolize(&p, 1, 1, &strs, NULL, 0);
	if (o->json)
		hp_check_leaks_json(out, &p);
	else
		hp_check_leaks_text(out, &p);
	ret = hp_check_objects(&p) || hp_check_bytes(&p) ? 1 : 0;
out:
	free(all);
	free(set);
	hp_check_release(&p);
	hp_strtab_release(&strs);
	return ret;
}
