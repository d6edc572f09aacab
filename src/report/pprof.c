/*
 * pprof.c -- the --pprof output: a gzipped profile.proto that go tool
 * pprof, Pyroscope, Parca and Cloud Profiler read (see render.h).
 *
 * Owns a minimal protobuf encoder (varints, length-delimited fields,
 * packed repeated fields) and the gzip wrapper (zlib).  Field numbers are
 * profile.proto's (github.com/google/pprof/proto/profile.proto).
 *
 * Sample types follow pprof's own reading of heap dumps: inuse_objects
 * and inuse_space, preceded by alloc_objects and alloc_space when the
 * dumps have cumulative counts; default_sample_type is the one chosen on
 * the command line.  Locations carry the address (in the first dump's
 * address space), the mapping, and one line per frame, inlined ones
 * first; functions carry the display name and the binary's own spelling.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "buf.h"
#include "index.h"
#include "render.h"
#include "util.h"

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE, PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS,
	PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD, PROFILE_COMMENT, PROFILE_DEFAULT_SAMPLE_TYPE,
	VALUETYPE_TYPE = 1, VALUETYPE_UNIT,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE,
	MAPPING_ID = 1, MAPPING_START, MAPPING_LIMIT, MAPPING_OFFSET, MAPPING_FILENAME,
	MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS, MAPPING_HAS_FILENAMES,
	MAPPING_HAS_LINE_NUMBERS, MAPPING_HAS_INLINE_FRAMES,
	LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE,
	LINE_FUNCTION_ID = 1, LINE_LINE,
	FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME,
	FUNCTION_START_LINE,
};

/* ---- protobuf -------------------------------------------------------- */

static void pb_varint(struct hp_buf *b, uint64_t v)
{
	char tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	hp_buf_add(b, tmp, n);
}

static void pb_uint(struct hp_buf *b, int field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(b, (uint64_t)field << 3);
	pb_varint(b, v);
}

static void pb_bytes(struct hp_buf *b, int field, const void *p, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, n);
	hp_buf_add(b, p, n);
}

/* Appends sub as a length-delimited field and empties it. */
static void pb_msg(struct hp_buf *b, int field, struct hp_buf *sub)
{
	pb_bytes(b, field, sub->p ? sub->p : "", sub->len);
	hp_buf_reset(sub);
}

static void pb_packed(struct hp_buf *b, int field, const uint64_t *v, size_t n,
		      struct hp_buf *tmp)
{
	hp_buf_reset(tmp);
	for (size_t i = 0; i < n; i++)
		pb_varint(tmp, v[i]);
	pb_msg(b, field, tmp);
}

/* ---- the string table ------------------------------------------------ */

struct strings {
	const char **s;
	size_t n, cap;
	struct hp_index ix;
};

static int str_eq(const void *ctx, uint32_t item, const void *key)
{
	const struct strings *t = ctx;

	return !strcmp(t->s[item], key);
}

static uint64_t str_id(struct strings *t, const char *s)
{
	if (!s)
		s = "";
	uint64_t h = hp_index_hash_bytes(s, strlen(s), 0);
	int64_t i = hp_index_find(&t->ix, h, str_eq, t, s);
	if (i >= 0)
		return (uint64_t)i;
	hp_util_grow(&t->s, &t->cap, t->n + 1, sizeof(*t->s));
	t->s[t->n] = s;
	hp_index_add(&t->ix, h, (uint32_t)t->n);
	return t->n++;
}

/* ---- locations ------------------------------------------------------- */

/* A pprof location is a profile location less the frames trimmed from
 * its inner end, so one location may appear with different cuts. */
struct ploc {
	uint32_t loc;		/* profile location, UINT32_MAX: "[no frames]" */
	uint32_t skip;
};

struct encoder {
	const struct hp_profile *p;
	const struct hp_render *r;
	struct strings str;
	struct ploc *locs;
	size_t nlocs, cap_locs;
	struct hp_index loc_ix;
	unsigned char *func_used;
	struct hp_buf out, msg, sub, tmp;
};

static int ploc_eq(const void *ctx, uint32_t item, const void *key)
{
	const struct encoder *e = ctx;
	const struct ploc *k = key;

	return e->locs[item].loc == k->loc && e->locs[item].skip == k->skip;
}

static uint64_t ploc_id(struct encoder *e, uint32_t loc, uint32_t skip)
{
	struct ploc k = { loc, skip };
	uint64_t h = hp_index_hash_u64((uint64_t)loc << 8 ^ skip);
	int64_t i = hp_index_find(&e->loc_ix, h, ploc_eq, e, &k);

	if (i < 0) {
		hp_util_grow(&e->locs, &e->cap_locs, e->nlocs + 1, sizeof(*e->locs));
		e->locs[e->nlocs] = k;
		hp_index_add(&e->loc_ix, h, (uint32_t)e->nlocs);
		i = (int64_t)e->nlocs++;
	}
	return (uint64_t)i + 1;
}

static void sample(struct encoder *e, const struct hp_profile_stack *st, const int *types,
		   size_t nt)
{
	const struct hp_profile *p = e->p;
	uint64_t ids[HP_INPUT_FRAMES_MAX + 1], vals[HP_NVALUES];
	size_t n = 0;
	uint32_t skip = st->trim;

	for (uint32_t i = 0; i < st->nlocs; i++) {
		uint32_t l = p->stack_locs[st->loc0 + i];
		uint32_t nf = p->locs[l].nframes;
		if (skip >= nf) {
			skip -= nf;
			continue;
		}
		ids[n++] = ploc_id(e, l, skip);
		skip = 0;
	}
	if (!n)
		ids[n++] = ploc_id(e, UINT32_MAX, 0);
	for (size_t t = 0; t < nt; t++)
		vals[t] = (uint64_t)st->v[types[t]];
	pb_packed(&e->msg, SAMPLE_LOCATION_ID, ids, n, &e->tmp);
	pb_packed(&e->msg, SAMPLE_VALUE, vals, nt, &e->tmp);
	pb_msg(&e->out, PROFILE_SAMPLE, &e->msg);
}

static void line(struct encoder *e, uint32_t frame)
{
	const struct hp_frame *fr = &e->p->frames[frame];

	e->func_used[fr->func] = 1;
	pb_uint(&e->sub, LINE_FUNCTION_ID, fr->func + 1);
	pb_uint(&e->sub, LINE_LINE, (uint64_t)fr->line);
	pb_msg(&e->msg, LOCATION_LINE, &e->sub);
}

/* The "[no frames]" placeholder frame, if any stack needed it. */
static uint32_t no_frames_frame(const struct hp_profile *p)
{
	for (size_t i = p->nframes; i-- > 0;)
		if (p->frames[i].func == p->no_frames_func)
			return (uint32_t)i;
	return 0;
}

static void locations(struct encoder *e)
{
	const struct hp_profile *p = e->p;

	for (size_t i = 0; i < e->nlocs; i++) {
		const struct ploc *pl = &e->locs[i];
		pb_uint(&e->msg, LOCATION_ID, i + 1);
		if (pl->loc == UINT32_MAX) {
			line(e, no_frames_frame(p));
		} else {
			const struct hp_loc *loc = &p->locs[pl->loc];
			pb_uint(&e->msg, LOCATION_MAPPING_ID, loc->mapping);
			pb_uint(&e->msg, LOCATION_ADDRESS, loc->addr);
			for (uint32_t f = pl->skip; f < loc->nframes; f++)
				line(e, loc->frame0 + f);
		}
		pb_msg(&e->out, PROFILE_LOCATION, &e->msg);
	}
}

static void functions(struct encoder *e)
{
	const struct hp_profile *p = e->p;

	for (size_t i = 0; i < p->nfuncs; i++) {
		if (!e->func_used[i])
			continue;
		const struct hp_func *f = &p->funcs[i];
		pb_uint(&e->msg, FUNCTION_ID, i + 1);
		pb_uint(&e->msg, FUNCTION_NAME, str_id(&e->str, f->name));
		pb_uint(&e->msg, FUNCTION_SYSTEM_NAME, str_id(&e->str, f->sys));
		pb_uint(&e->msg, FUNCTION_FILENAME, str_id(&e->str, f->file));
		/* Where it starts, for go tool pprof -list: only in the file
		 * named above. */
		if (f->decl_line > 0 && f->decl_file == f->file)
			pb_uint(&e->msg, FUNCTION_START_LINE, (uint64_t)f->decl_line);
		pb_msg(&e->out, PROFILE_FUNCTION, &e->msg);
	}
}

static void mappings(struct encoder *e)
{
	const struct hp_profile *p = e->p;

	for (size_t i = 0; i < p->nmappings; i++) {
		const struct hp_mapping *m = &p->mappings[i];
		pb_uint(&e->msg, MAPPING_ID, i + 1);
		pb_uint(&e->msg, MAPPING_START, m->start);
		pb_uint(&e->msg, MAPPING_LIMIT, m->limit);
		pb_uint(&e->msg, MAPPING_OFFSET, m->offset);
		pb_uint(&e->msg, MAPPING_FILENAME, str_id(&e->str, m->file));
		if (m->build_id)
			pb_uint(&e->msg, MAPPING_BUILD_ID, str_id(&e->str, m->build_id));
		/* Claim symbols only where we have them, so that pprof may
		 * still try the binary for the rest. */
		pb_uint(&e->msg, MAPPING_HAS_FUNCTIONS, m->symbolized);
		pb_uint(&e->msg, MAPPING_HAS_FILENAMES, m->lines);
		pb_uint(&e->msg, MAPPING_HAS_LINE_NUMBERS, m->lines);
		pb_uint(&e->msg, MAPPING_HAS_INLINE_FRAMES, m->inlines);
		pb_msg(&e->out, PROFILE_MAPPING, &e->msg);
	}
}

static void value_type(struct encoder *e, int field, const char *type, const char *unit)
{
	pb_uint(&e->msg, VALUETYPE_TYPE, str_id(&e->str, type));
	pb_uint(&e->msg, VALUETYPE_UNIT, str_id(&e->str, unit));
	pb_msg(&e->out, field, &e->msg);
}

/* ---- gzip ------------------------------------------------------------ */

static void gzip(const struct hp_buf *in, struct hp_buf *out)
{
	z_stream z;

	memset(&z, 0, sizeof(z));
	/* windowBits 15 + 16: a gzip header and trailer, not zlib's. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		hp_util_die("cannot compress the profile: zlib failed");
	size_t bound = deflateBound(&z, in->len);
	hp_util_grow(&out->p, &out->cap, out->len + bound + 1, 1);
	z.next_in = (Bytef *)(in->p ? in->p : "");
	z.avail_in = (uInt)in->len;
	z.next_out = (Bytef *)out->p + out->len;
	z.avail_out = (uInt)bound;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		hp_util_die("cannot compress the profile: zlib failed");
	out->len += bound - z.avail_out;
	deflateEnd(&z);
}

void hp_pprof_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b)
{
	struct encoder e = { .p = p, .r = r };
	int types[HP_NVALUES];
	char what[96];
	size_t nt = 0;

	e.func_used = hp_util_xcalloc(p->nfuncs + 1, 1);
	str_id(&e.str, "");
	if (p->has_accum) {
		types[nt++] = HP_V_ALLOC_OBJECTS;
		types[nt++] = HP_V_ALLOC_SPACE;
	}
	types[nt++] = HP_V_INUSE_OBJECTS;
	types[nt++] = HP_V_INUSE_SPACE;
	for (size_t t = 0; t < nt; t++)
		value_type(&e, PROFILE_SAMPLE_TYPE, hp_render_value_name(types[t]),
			   hp_render_value_is_bytes(types[t]) ? "bytes" : "count");
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct hp_profile_stack *st = &p->stacks[s];
		int any = 0;
		for (size_t t = 0; t < nt; t++)
			any |= st->v[types[t]] != 0;
		if (!st->dropped && any)
			sample(&e, st, types, nt);
	}
	locations(&e);
	functions(&e);
	mappings(&e);
	value_type(&e, PROFILE_PERIOD_TYPE, "space", "bytes");
	/* The mean sampling interval, as Go's heap profiles give theirs
	 * (MemProfileRate): go tool pprof prints it as Period. */
	if (p->period >= 1)
		pb_uint(&e.out, PROFILE_PERIOD, (uint64_t)p->period);
	if (r->time_ns > 0)
		pb_uint(&e.out, PROFILE_TIME_NANOS, (uint64_t)r->time_ns);
	if (r->duration_ns > 0)
		pb_uint(&e.out, PROFILE_DURATION_NANOS, (uint64_t)r->duration_ns);
	pb_uint(&e.out, PROFILE_COMMENT, str_id(&e.str, "written by heapprof report"));
	/* (str_id keeps the pointer: what lives until the table is written.) */
	if (r->nbases) {
		snprintf(what, sizeof(what), "the difference: %zu dump%s minus %zu base dump%s", r->ndumps,
			 r->ndumps == 1 ? "" : "s", r->nbases, r->nbases == 1 ? "" : "s");
		pb_uint(&e.out, PROFILE_COMMENT, str_id(&e.str, what));
	}
	if (r->peak)
		pb_uint(&e.out, PROFILE_COMMENT,
			str_id(&e.str, "inuse values are the stacks' values at the process's peak"));
	pb_uint(&e.out, PROFILE_DEFAULT_SAMPLE_TYPE, str_id(&e.str, hp_render_value_name(r->vi)));
	for (size_t i = 0; i < e.str.n; i++)
		pb_bytes(&e.out, PROFILE_STRING_TABLE, e.str.s[i], strlen(e.str.s[i]));
	gzip(&e.out, b);
	hp_buf_release(&e.out);
	hp_buf_release(&e.msg);
	hp_buf_release(&e.sub);
	hp_buf_release(&e.tmp);
	hp_index_release(&e.loc_ix);
	hp_index_release(&e.str.ix);
	free(e.str.s);
	free(e.locs);
	free(e.func_used);
}
