/*
 * options.h -- the report options a fuzz input runs with (report.c and
 * trend.c): every bit of the input's hash picks one, so that all
 * combinations occur and a given input always runs the same way.  Also
 * their one way of reading a dump (struct reading, under fuzz_try).
 */
#ifndef HP_FUZZ_OPTIONS_H
#define HP_FUZZ_OPTIONS_H

#include <regex.h>
#include <stdint.h>

#include "input.h"
#include "ropts.h"
#include "strtab.h"

/* One dump read: read_dump runs under fuzz_try (fuzz.h), which catches a
 * refusal. */
struct reading {
	const char *path;
	struct hp_input in;
	struct hp_strtab strs;
};

static inline void read_dump(void *arg)
{
	struct reading *r = arg;

	hp_input_read(&r->in, r->path, &r->strs);
}

/* Report's formats, --graph --svg left out: it runs Graphviz's dot, a
 * process per input. */
#define FUZZ_REPORT_FORMATS 9

/* What every dump of an input has: the options that need it are only
 * picked then (the command would refuse them before any output). */
enum { FUZZ_ACCUM = 1, FUZZ_PEAK = 2, FUZZ_TEMPORARY = 4 };

/* The facts of one dump read (enum above). */
static inline unsigned fuzz_facts(const struct hp_input *in)
{
	/* A dump written with dump_peak:false has the process's figures but
	 * no stack's: --peak and --temporary refuse it (when the figures are
	 * not 0), as they refuse a dump without them. */
	int stacks = in->has_stack_extra;
	return (in->has_accum ? FUZZ_ACCUM : 0) |
	       (in->has_peak && (stacks || in->peak_bytes <= 0) ? FUZZ_PEAK : 0) |
	       (in->has_temporary && (stacks || in->temporary <= 0) ? FUZZ_TEMPORARY : 0);
}

/* Fills o from hash h and the dumps' facts.  The format is one of the
 * first nformats of enum hp_ropts_format.  --temporary is picked as the
 * command allows it (no --pprof; the caller adds no --base then). */
static inline void fuzz_ropts(struct hp_ropts *o, uint64_t h, unsigned facts, int nformats)
{
	int accum = facts & FUZZ_ACCUM;

	static const char *const focus[] = { "main|grow", "^s", "build_list|[[:alpha:]]+\\+0x" };
	static const char *const list[] = { ".", "grow|nest", "^main$" };

	hp_ropts_init(o, "report");
	o->output = "/dev/null";
	o->format = (enum hp_ropts_format)(h % (uint64_t)nformats);
	o->format_set = 1;
	h /= (uint64_t)nformats;
	if (o->format == HP_ROPTS_FMT_LIST) {
		o->list_text = list[h % 3];
		if (regcomp(&o->list, o->list_text, REG_EXTENDED | REG_NOSUB))
			o->list_text = NULL, o->format = HP_ROPTS_FMT_TEXT;
	}
	h /= 3;
	o->icicle = h & 1;
	h >>= 1;
	if (h & 1) {   /* --graph's cut-offs, from none to most */
		o->node_fraction = (double)((h >> 1) % 4) / 20;
		o->edge_fraction = (double)((h >> 3) % 4) / 50;
		o->node_count = (long)((h >> 5) % 100);
	}
	h >>= 12;
	o->value = (int)(h & 3);
	if (!accum && (o->value == HP_V_ALLOC_SPACE || o->value == HP_V_ALLOC_OBJECTS))
		o->value -= 2;
	o->value_set = 1;
	o->show_bytes = (h >> 2) & 1;
	o->lines = (h >> 3) & 1;
	o->full_names = (h >> 4) & 1;
	o->top = (h >> 5) & 1 ? (long)((h >> 6) % 7) + 1 : -1;
	o->functions = (h >> 9) & 1;
	if ((h >> 10) & 1) {
		o->focus_text = focus[(h >> 11) % 3];
		o->has_focus = !regcomp(&o->focus, o->focus_text, REG_EXTENDED | REG_NOSUB);
	}
	if ((h >> 13) & 1) {
		o->ignore_text = "malloc|^0x";
		o->has_ignore = !regcomp(&o->ignore, o->ignore_text, REG_EXTENDED | REG_NOSUB);
	}
	switch ((h >> 14) & 3) {
	case 1:
		o->peak = !!(facts & FUZZ_PEAK);
		break;
	case 2:
		o->temporary = (facts & FUZZ_TEMPORARY) && o->format != HP_ROPTS_FMT_PPROF;
		break;
	}
}

static inline void fuzz_ropts_release(struct hp_ropts *o)
{
	if (o->has_focus)
		regfree(&o->focus);
	if (o->has_ignore)
		regfree(&o->ignore);
	if (o->list_text)
		regfree(&o->list);
}

#endif
