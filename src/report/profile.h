/*
 * profile.h -- the report engine's model of a heap profile: dumps summed
 * (and a base subtracted), every address symbolized once, stacks of
 * symbolized frames with allocator frames trimmed and --focus/--ignore
 * applied.  Every output renders from this.
 *
 *   hp_profile_init()     options
 *   hp_profile_add()      once per dump (sign -1 for --base dumps)
 *   hp_profile_finish()   trims, filters, flattens; then render
 *
 * Identity of things:
 *  - a location is one address in one binary (module and file offset), or
 *    one symbol-section entry, or a raw address; it expands to frames,
 *    innermost (inlined) first;
 *  - a function is a name as the binary spells it; its display name is
 *    jeprof's short name (or the full demangled one with --full-names);
 *  - a node is what text outputs aggregate on: the display name, or with
 *    --lines the display name and its file:line.
 */
#ifndef HP_REPORT_PROFILE_H
#define HP_REPORT_PROFILE_H

#include <regex.h>
#include <stdint.h>

#include "index.h"
#include "input.h"
#include "module.h"
#include "strtab.h"
#include "symbolize.h"

struct hp_shape {
	int lines;		/* nodes are function + file:line */
	int full_names;		/* display full demangled names */
	regex_t *focus;		/* keep stacks with a matching function */
	regex_t *ignore;	/* drop stacks with a matching function */
	int series;		/* trend: keep each dump's stacks apart */
	const char *const *debug_dirs;
	size_t ndebug_dirs;
	const char *const *binaries;	/* --binary */
	size_t nbinaries;
};

struct hp_func {
	const char *name;	/* display name */
	const char *full;	/* demangled, or as in the binary */
	const char *sys;	/* as in the binary (mangled) */
	const char *file;	/* a source file of the function, or NULL */
	const char *decl_file;	/* where its definition starts, or NULL */
	int decl_line;		/* ... and on which line, or 0 */
	uint32_t node;		/* its node without --lines */
	unsigned alloc : 1;	/* an allocator function: trimmed */
	unsigned focus : 1, ignore : 1;	/* matches --focus / --ignore */
	unsigned symbolized : 1;	/* a real name, not module+0xoffset */
};

struct hp_frame {
	uint32_t func;
	uint32_t node;
	const char *file;	/* NULL when unknown */
	int line;		/* 0 when unknown */
};

/* A pprof mapping: one executable mapping of a module, in the address
 * space of the first dump that used it. */
struct hp_mapping {
	uint64_t start, limit, offset;
	const char *file;
	const char *build_id;	/* hex, or NULL when the dump does not say */
	int symbolized;		/* some location in it has names */
	int lines;		/* ... and lines */
	int inlines;		/* ... and inlined frames */
};

struct hp_loc {
	uint64_t addr;		/* canonical address (first dump's space) */
	uint64_t off;		/* offset in its module or region, or addr */
	const char *where;	/* module path, region name ("[vdso]"), or NULL */
	uint32_t mapping;	/* pprof mapping id (1-based), 0 for none */
	uint32_t frame0, nframes;	/* its frames, innermost first */
	unsigned allocator : 1;	/* in an allocator's library: all trimmed */
};

struct hp_profile_stack {
	uint32_t loc0, nlocs;	/* in hp_profile.stack_locs, innermost first */
	uint32_t slot;		/* the dump's position in a series (trend) */
	uint32_t trim;		/* frames dropped from the innermost end */
	uint32_t f0, nf;	/* after finish: frames in sframes, leaf first */
	unsigned dropped : 1;	/* removed by --focus/--ignore */
	int64_t v[HP_NVALUES];
};

/* Internal to profile.c: a location's identity, and the canonical base
 * of each module mapping seen (see profile.c). */
struct hp_lockey;
struct hp_canon;

struct hp_profile {
	struct hp_shape shape;
	struct hp_strtab strs;
	struct hp_modtab mods;
	struct hp_symbolizer *sym;

	struct hp_func *funcs;
	size_t nfuncs, cap_funcs;
	struct hp_index func_ix;
	const char **nodes;	/* node names */
	size_t nnodes, cap_nodes;
	struct hp_index node_ix;
	struct hp_frame *frames;
	size_t nframes, cap_frames;
	struct hp_loc *locs;
	size_t nlocs, cap_locs;
	struct hp_index loc_ix;
	struct hp_lockey *loc_keys;	/* parallel to locs */
	size_t cap_loc_keys;
	struct hp_canon *canons;
	size_t ncanons, cap_canons;
	struct hp_mapping *mappings;
	size_t nmappings, cap_mappings;
	struct hp_profile_stack *stacks;
	size_t nstacks, cap_stacks;
	struct hp_index stack_ix;
	uint32_t *stack_locs;
	size_t nstack_locs, cap_stack_locs;
	uint32_t *sframes;	/* after finish */
	size_t nsframes, cap_sframes;

	int has_accum;		/* some dump had cumulative counts */
	size_t ninputs;
	double period;		/* the inputs' largest sampling period, bytes */
	uint32_t no_frames_func; /* the "[no frames]" function */
};

void hp_profile_init(struct hp_profile *p, const struct hp_shape *shape);

/*
 * Adds the stacks of in, multiplied by sign (+1, or -1 for a base), to
 * the profile; in series mode they are kept apart under slot.  in may be
 * released afterwards.
 */
void hp_profile_add(struct hp_profile *p, const struct hp_input *in, int sign, uint32_t slot);

/* Trims allocator frames, applies --focus/--ignore, lays out the frames
 * of each stack (leaf first) for the outputs. */
void hp_profile_finish(struct hp_profile *p);

/* Frees everything p holds, its strings and the modules' symbolizer
 * state included: names it handed out die with it. */
void hp_profile_release(struct hp_profile *p);

/*
 * Flat and cumulative value vi of every node over the kept stacks: flat
 * counts a stack at its leaf, cum once per node on the stack.  flat and
 * cum have p->nnodes entries.
 */
void hp_profile_flat(const struct hp_profile *p, int vi, int64_t *flat, int64_t *cum);

/*
 * Node ids with a non-zero flat or cum, sorted as jeprof and pprof sort:
 * flat descending, then cum descending, then name.  Returns the count;
 * *out is malloc'd.
 */
size_t hp_profile_sorted_nodes(const struct hp_profile *p, const int64_t *flat,
			       const int64_t *cum, uint32_t **out);

/* The node name of the stack's frame at index i (0 = leaf). */
static inline const char *hp_profile_frame_node(const struct hp_profile *p,
						const struct hp_profile_stack *st, uint32_t i)
{
	return p->nodes[p->frames[p->sframes[st->f0 + i]].node];
}

#endif
