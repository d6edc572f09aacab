/*
 * input.h -- one dump file, read: its stacks with their scaled counts, its
 * MAPPED_LIBRARIES and its optional symbol section.
 *
 * Reads every layout the library (and jemalloc, and gperftools) writes:
 * the gperftools text layout ("heap profile: ... @ heap_v2/R"), the
 * jemalloc threaded layout ("heap_v2/R" with t* rows), either one after a
 * "--- symbol" section.  Counts are scaled for sampling exactly as jeprof
 * does (AdjustSamples), so the values here are estimates of real objects
 * and bytes.
 *
 * heapprof's own comment lines (jeprof and go tool pprof skip them; see
 * heapprof(7), FILES) carry the peak snapshot and the temporary
 * allocations, already estimates, never scaled:
 *   # heapprof peak: <objects>: <bytes>[ moving]     the process, after the header
 *   # heapprof temporary: <temporary>: <allocations>
 *   # heapprof attached: <UTC>: allocations since then only   (heapprof attach)
 *   # peak: <objects>: <bytes> temporary: <temporary>: <allocations>
 *                                    after a stack's row(s): that stack
 *   # peak: ... @ 0x<pc> ...         a stack with no row
 *   # zero-size: <live>: <allocated> @ 0x<pc> ...
 *                                    a stack of zero-byte blocks (objects
 *                                    only: a row would make jeprof divide
 *                                    by zero)
 *   # heapprof uptime: <seconds>     seconds since heapprof started in the
 *                                    process (prof_age); then, after a
 *                                    stack's row(s):
 *   # age: <lo>:<objects>:<bytes> ...
 *                                    its live memory by age, per bucket:
 *                                    ages from <lo> seconds (0, 1, 2, 4,
 *                                    ...) to twice that (0: under 1 s)
 *   # heapprof build-id: 0x<address> <hex> [<path>]
 *                                    the build-id of the object whose
 *                                    mapping holds <address> (its first)
 * Other comment lines are skipped.
 */
#ifndef HP_REPORT_INPUT_H
#define HP_REPORT_INPUT_H

#include <stdint.h>
#include <time.h>

#include "maps.h"
#include "strtab.h"

/* Value slots of a stack, in this order everywhere in the engine. */
enum hp_value {
	HP_V_INUSE_OBJECTS,
	HP_V_INUSE_SPACE,
	HP_V_ALLOC_OBJECTS,
	HP_V_ALLOC_SPACE,
	HP_V_PEAK_OBJECTS,	/* at the peak (heapprof's comment lines) */
	HP_V_PEAK_SPACE,
	HP_V_TEMPORARY,		/* temporary allocations (same) */
	HP_V_ALLOCATIONS,	/* allocations, for the temporary share (same) */
	/* Live bytes by age (the "# age" lines), split at the warm-up by
	 * the report (report.c, --age): allocated during it, after it and
	 * older than it, younger than it. */
	HP_V_AGE_STARTUP,
	HP_V_AGE_LONG,
	HP_V_AGE_YOUNG,
	HP_V_AGE_B0,		/* live bytes of ages in bucket 0 ... */
	HP_V_AGE_LAST = HP_V_AGE_B0 + 23,	/* ... and 23: 2^22 s (48 days) and older */
	HP_NVALUES
};
#define HP_AGE_BUCKETS (HP_V_AGE_LAST - HP_V_AGE_B0 + 1)
/* Bucket b's ages in seconds: [lo, hi). */
#define HP_AGE_LO(b) ((b) ? (double)((uint64_t)1 << ((b) - 1)) : 0.0)
#define HP_AGE_HI(b) ((double)((uint64_t)1 << (b)))

/* Scaled values are clamped to this, so that sums of a few million of
 * them cannot overflow int64 (sums saturate as well: hp_util_sat_add in
 * util.h). */
#define HP_VALUE_MAX (INT64_C(1) << 62)

/* Bounds against hostile input, per dump: a dump breaking one is
 * rejected.  With them, memory stays proportional to real profiles: the
 * largest dump costs at most a few hundred MiB while it is read. */
#define HP_INPUT_LINE_MAX (1u << 20)		/* bytes in one line */
#define HP_INPUT_FRAMES_MAX 4096		/* frames in one stack */
#define HP_INPUT_MAPS_MAX (1u << 17)		/* MAPPED_LIBRARIES lines */
#define HP_INPUT_DUMP_FRAMES_MAX (1u << 24)	/* frames in one dump */
#define HP_INPUT_DUMP_STACKS_MAX (1u << 22)	/* stacks in one dump */
#define HP_INPUT_DUMP_SYMBOLS_MAX (1u << 22)	/* symbol-section entries */

enum hp_scaling {
	HP_SCALE_NONE,	/* "@ heapprofile", or a rate of 1: counts are exact */
	HP_SCALE_V1,	/* "@ heap/P": divide by (avg/R) when below 1, R = P/2 */
	HP_SCALE_V2,	/* heap_v2/R: multiply by 1/(1-exp(-avg/R)) */
};

struct hp_in_stack {
	uint32_t first;		/* index of its first frame in frames[] */
	uint32_t depth;		/* number of frames, innermost first */
	int64_t v[HP_NVALUES];	/* scaled values */
};

/* One "0x<addr> <names>" line of a symbol section; names holds the
 * functions at addr, outermost first, separated by "--" (jeprof). */
struct hp_symbol {
	uint64_t addr;
	const char *names;
};

/* What the file name says: <prefix>.<pid>.<seq>.<trigger>[.<UTC>].heap */
struct hp_input_name {
	int has_time, has_seq;
	time_t time;		/* from YYYYMMDDTHHMMSSZ, UTC */
	uint64_t pid, seq;
};

/* One "# heapprof build-id:" line. */
struct hp_buildid {
	uint64_t addr;
	const char *id;		/* lower-case hex, interned */
};

struct hp_input {
	uint64_t serial;	/* distinct for every dump read in a run */
	const char *path;
	char layout;		/* 'g' gperftools, 'j' jemalloc */
	enum hp_scaling scaling;
	double rate;
	int has_accum;		/* some cumulative ([aobjs: abytes]) data */
	int has_maps;		/* a MAPPED_LIBRARIES section was present */
	int has_peak;		/* "# heapprof peak:" was present */
	int peak_moving;	/* ... and said "moving" */
	int has_temporary;	/* "# heapprof temporary:" was present */
	int has_stack_extra;	/* some stack's "# peak:" line was (dump_peak) */
	int64_t peak_objects, peak_bytes;	/* the process at the peak */
	int64_t temporary, allocations;		/* the process's */
	char attached[40];	/* "# heapprof attached: <UTC>": heapprof attach's time */
	uint64_t *frames;	/* program counters as written */
	size_t nframes, cap_frames;
	struct hp_in_stack *stacks;
	size_t nstacks, cap_stacks;
	struct hp_map *maps;	/* sorted by start; build_id from the lines below */
	size_t nmaps, cap_maps;
	struct hp_buildid *bids;	/* "# heapprof build-id:" lines, as read */
	size_t nbids, cap_bids;
	struct hp_symbol *syms;	/* sorted by addr */
	size_t nsyms, cap_syms;
	const char *binary;	/* "binary=" of the symbol section, or NULL */
	struct hp_input_name name;
	struct timespec written;	/* when the dump was written, at the latest */
	int has_ages;			/* "# heapprof uptime:" was present (prof_age) */
	double uptime;			/* ... seconds since heapprof started */
	int has_taken;			/* "# heapprof time:" was present */
	struct timespec taken;		/* ... when the dump was taken, to the ns */
};

/*
 * Reads the dump at path into *in (zeroed by the caller), interning
 * strings in strs.  On any problem prints
 *   heapprof: cannot read 'PATH': line N: WHAT
 * and exits with status 1.
 */
void hp_input_read(struct hp_input *in, const char *path, struct hp_strtab *strs);

void hp_input_release(struct hp_input *in);

/* The symbol-section names for addr, or NULL. */
const char *hp_input_symbol(const struct hp_input *in, uint64_t addr);

/* Parses a dump file name (any directory part is ignored). */
void hp_input_name_parse(const char *path, struct hp_input_name *dn);

#endif
