/*
 * budget.h -- heapprof check's heap budgets: --max-peak SIZE,
 * --max-allocs N and --max-live-at-exit SIZE, each for every counted
 * process or, as GLOB=LIMIT, for the processes whose program matches.
 * The figures are exact (check runs every process in exact mode), from
 * each process's final dump; a process over a budget fails the run with
 * the gate's status and is named with the stacks that made the figure.
 */
#ifndef HP_CLI_BUDGET_H
#define HP_CLI_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "report/buf.h"
#include "report/check.h"
#include "report/strtab.h"

struct hp_budget_rule {
	int kind;		/* enum in budget.c */
	char *glob;		/* NULL: every counted process */
	uint64_t limit;
	char *typed;		/* the option's value as given */
};

struct hp_budgets {
	struct hp_budget_rule *r;
	size_t n;
};

/* 1 when opt is a budget option (val parsed into b), 0 when it is not
 * one, -1 after a usage error (said). */
int hp_budget_option(struct hp_budgets *b, const char *opt, const char *val);

/* The library options that make the figures: appended to check's. */
const char *hp_budget_conf(const struct hp_budgets *b);

/* Measures and judges each process against the budgets that apply to it,
 * from its final dump in dir; returns how many processes went over (or
 * have no figures) and so fail the run. */
size_t hp_budget_judge(const struct hp_budgets *b, const char *dir, struct hp_check_proc *procs,
		       size_t n, struct hp_strtab *strs);

/* What went over, for heapprof check's text. */
void hp_budget_text(struct hp_buf *out, const struct hp_check_proc *procs, size_t n);

void hp_budget_release(struct hp_budgets *b);

#endif
