/*
 * render.h -- the outputs of `heapprof report`, all drawn from a finished
 * profile (profile.h), and the helpers they share: value names, units,
 * percentages (XML escaping is buf.h's).
 */
#ifndef HP_REPORT_RENDER_H
#define HP_REPORT_RENDER_H

#include <regex.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "profile.h"

struct hp_render {
	int vi;			/* enum hp_value shown */
	int show_bytes;		/* exact byte counts instead of 3.1MiB */
	long top;		/* rows or entries; -1 for the default */
	const char *out_path;	/* for error messages ("<stdout>") */
	const char *const *dumps;
	size_t ndumps;
	const char *const *bases;
	size_t nbases;
	const char *focus, *ignore;	/* the expressions, for titles */
	int icicle;		/* flame graphs: the root at the top */
	int diff;		/* flame graphs: a series profile, slot 1 the bases */
	double node_fraction;	/* --graph's cut-offs */
	double edge_fraction;
	long node_count;
	const regex_t *list;	/* --list's functions */
	const char *list_text;
	int peak;		/* --peak: the in-use values are the peak's */
	/* --temporary: the dumps' own totals, for the whole processes */
	int64_t temporary, allocations;
	int64_t time_ns, duration_ns;	/* pprof's, when not 0 (ropts.h) */
	/* --age: the uptime (the longest of the dumps') and the warm-up
	 * (the first dump's when each took its default) */
	int age;
	double age_uptime, age_warmup;
	/* Whether the dumps (not the bases) have ages, with or without --age:
	 * how many do, the longest uptime and the first one's default
	 * warm-up, what report --age would take (the JSON's "ages"). */
	size_t aged_dumps;
	double aged_uptime, aged_warmup;
	/* heapprof attach's time when a dump came from an attached process
	 * (the first such dump's): its figures start there. */
	char attached[40];
};

/* "inuse_space", "inuse_objects", "alloc_space", "alloc_objects". */
const char *hp_render_value_name(int vi);
/* Whether value vi counts bytes (else objects). */
int hp_render_value_is_bytes(int vi);

/* Value v of kind vi: a size (or exact bytes with show_bytes), or an
 * object count. */
void hp_render_value(char *buf, size_t n, int64_t v, int vi, int show_bytes);
/* "50.3%" of whole; "-" when whole is 0. */
void hp_render_pct(char *buf, size_t n, int64_t part, int64_t whole);

/* The sum of value vi over the kept stacks; *abs_total gets the sum of
 * absolute values (they differ only after --base), *negative the number of
 * kept stacks below zero. */
int64_t hp_render_total(const struct hp_profile *p, int vi, int64_t *abs_total,
			size_t *negative);

/* The first line of the text outputs: "Total: 6.1MiB (inuse_space, ...)". */
void hp_render_headline(const struct hp_profile *p, const struct hp_render *r,
			struct hp_buf *b);

/* The outputs, one file each: hp_<file>_render in <file>.c (text.c draws
 * --tree as well).  Each writes its whole result into b. */
void hp_text_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b);
void hp_text_render_tree(const struct hp_profile *p, const struct hp_render *r,
			 struct hp_buf *b);
void hp_collapsed_render(const struct hp_profile *p, const struct hp_render *r,
			 struct hp_buf *b);
void hp_svg_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b);
void hp_json_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b);
void hp_pprof_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b);
void hp_html_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b);
void hp_graph_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b);
void hp_list_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b);

/* Replaces the dot text in b by the SVG Graphviz's dot draws from it;
 * dies with one line when dot cannot be run or fails. */
void hp_graph_to_svg(struct hp_buf *b);

#endif
