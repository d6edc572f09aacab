/*
 * input.c -- the dump reader (see input.h).
 *
 * Owns the parsing of dump files and the bounds that keep hostile input
 * from costing unbounded memory: line length, frames per stack, number of
 * stacks, frames, symbols and mappings in one dump (input.h).  The file
 * is mapped, not copied; every line is checked before it is used, and the
 * first problem ends the command with the file name and line number.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "strtab.h"
#include "util.h"

struct reader {
	const char *path;
	const char *p, *end;	/* the unread rest of the file */
	const char *line;	/* the current line, without '\n' or '\r' */
	size_t len;
	size_t lineno;
	int unended;		/* the current line is the file's last and has no '\n' */
	struct hp_input *in;
	struct hp_strtab *strs;
	size_t last;		/* the stack of the last row, or SIZE_MAX */
	int noted;		/* its "# peak:" line was read */
};

__attribute__((noreturn, format(printf, 2, 3)))
static void bad(const struct reader *r, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hp_util_die("cannot read '%s': line %zu: %s", r->path, r->lineno, msg);
}

/* Advances to the next line; returns 0 at the end of the file. */
static int next_line(struct reader *r)
{
	if (r->p >= r->end)
		return 0;
	r->lineno++;
	const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	const char *stop = nl ? nl : r->end;
	if ((size_t)(stop - r->p) > HP_INPUT_LINE_MAX)
		bad(r, "line longer than %u bytes", HP_INPUT_LINE_MAX);
	r->line = r->p;
	r->len = (size_t)(stop - r->p);
	r->p = nl ? nl + 1 : r->end;
	r->unended = !nl;
	if (memchr(r->line, '\0', r->len))
		bad(r, "binary data (NUL byte) in a text dump");
	while (r->len && r->line[r->len - 1] == '\r')
		r->len--;
	return 1;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static void skip_spaces(const char **p, const char *end)
{
	while (*p < end && is_space(**p))
		(*p)++;
}

static int is_blank(const struct reader *r)
{
	for (size_t i = 0; i < r->len; i++)
		if (!is_space(r->line[i]))
			return 0;
	return 1;
}

static int starts(const struct reader *r, const char *prefix)
{
	size_t n = strlen(prefix);

	return r->len >= n && !memcmp(r->line, prefix, n);
}

/* A decimal number; dies on overflow, returns -1 if there is none. */
static int number(const struct reader *r, const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		uint64_t d = (uint64_t)(*s - '0');
		if (x > UINT64_MAX / 10 || (x == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			bad(r, "number out of range");
		x = x * 10 + d;
	}
	*p = s;
	*v = x;
	return 0;
}

static int lit(const char **p, const char *end, char c)
{
	skip_spaces(p, end);
	if (*p >= end || **p != c)
		return -1;
	(*p)++;
	skip_spaces(p, end);
	return 0;
}

/* "<objs>: <bytes> [<aobjs>: <abytes>]"; returns -1 when it is not. */
static int counts(const struct reader *r, const char **p, const char *end, uint64_t c[4])
{
	skip_spaces(p, end);
	if (number(r, p, end, &c[0]) || lit(p, end, ':') || number(r, p, end, &c[1]) ||
	    lit(p, end, '[') || number(r, p, end, &c[2]) || lit(p, end, ':') ||
	    number(r, p, end, &c[3]) || lit(p, end, ']'))
		return -1;
	return 0;
}

/* ---- sampling scale -------------------------------------------------- */

static int64_t clamp_value(double x)
{
	if (!(x > 0))
		return 0;
	if (x >= (double)HP_VALUE_MAX)
		return HP_VALUE_MAX;
	return (int64_t)llround(x);
}

/* Scales one (objects, bytes) pair as jeprof's AdjustSamples does. */
static void scale_pair(const struct hp_input *in, uint64_t n, uint64_t s,
		       int64_t *on, int64_t *os)
{
	double dn = (double)n, ds = (double)s;

	if (n && s && in->scaling == HP_SCALE_V2) {
		double ratio = ds / dn / in->rate;
		double scale = 1.0 / -expm1(-ratio);
		dn *= scale;
		ds *= scale;
	} else if (n && s && in->scaling == HP_SCALE_V1) {
		double ratio = ds / dn / in->rate;
		if (ratio < 1) {
			dn /= ratio;
			ds /= ratio;
		}
	}
	*on = clamp_value(dn);
	*os = clamp_value(ds);
}

/* All of v: a row has no peak or temporary figures (comment lines do). */
static void scale_row(const struct hp_input *in, const uint64_t c[4], int64_t v[HP_NVALUES])
{
	for (int i = 0; i < HP_NVALUES; i++)
		v[i] = 0;
	scale_pair(in, c[0], c[1], &v[HP_V_INUSE_OBJECTS], &v[HP_V_INUSE_SPACE]);
	scale_pair(in, c[2], c[3], &v[HP_V_ALLOC_OBJECTS], &v[HP_V_ALLOC_SPACE]);
}

/* ---- stacks ---------------------------------------------------------- */

/* "0x<1-16 hex digits>" at *p. */
static int address(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	if (end - s < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	for (s += 2; s < end && hp_util_hex_digit((unsigned char)*s) >= 0; s++) {
		if (++digits > 16)
			return -1;
		v = v << 4 | (uint64_t)hp_util_hex_digit((unsigned char)*s);
	}
	if (!digits)
		return -1;
	*p = s;
	*out = v;
	return 0;
}

/* Appends a stack whose frames are the addresses from p to end. */
static struct hp_in_stack *add_stack(struct reader *r, const char *p, const char *end)
{
	struct hp_input *in = r->in;
	uint32_t first = (uint32_t)in->nframes, depth = 0;

	if (in->nstacks >= HP_INPUT_DUMP_STACKS_MAX)
		bad(r, "more than %u stacks in one dump", HP_INPUT_DUMP_STACKS_MAX);
	for (;;) {
		skip_spaces(&p, end);
		if (p >= end)
			break;
		uint64_t pc;
		if (address(&p, end, &pc) || (p < end && !is_space(*p)))
			bad(r, "expected a hexadecimal address like 0x4005d0");
		if (++depth > HP_INPUT_FRAMES_MAX)
			bad(r, "more than %u frames in one stack", HP_INPUT_FRAMES_MAX);
		if (in->nframes >= HP_INPUT_DUMP_FRAMES_MAX)
			bad(r, "more than %u frames in one dump", HP_INPUT_DUMP_FRAMES_MAX);
		hp_util_grow(&in->frames, &in->cap_frames, in->nframes + 1, sizeof(*in->frames));
		in->frames[in->nframes++] = pc;
	}
	hp_util_grow(&in->stacks, &in->cap_stacks, in->nstacks + 1, sizeof(*in->stacks));
	struct hp_in_stack *st = &in->stacks[in->nstacks++];
	memset(st, 0, sizeof(*st));
	st->first = first;
	st->depth = depth;
	return st;
}

static void add_values(struct hp_in_stack *st, const int64_t v[HP_NVALUES])
{
	for (int i = 0; i < HP_NVALUES; i++) {
		st->v[i] += v[i];
		if (st->v[i] > HP_VALUE_MAX)
			st->v[i] = HP_VALUE_MAX;
	}
}

/* ---- heapprof's comment lines ------------------------------------------ */

static int is_comment(const struct reader *r)
{
	const char *p = r->line, *end = r->line + r->len;

	skip_spaces(&p, end);
	return p < end && *p == '#';
}

/* The literal w at *p, then spaces. */
static int word(const char **p, const char *end, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - *p) < n || memcmp(*p, w, n))
		return 0;
	*p += n;
	skip_spaces(p, end);
	return 1;
}

/* "<number>: <number>" */
static int pair(const struct reader *r, const char **p, const char *end, uint64_t v[2])
{
	skip_spaces(p, end);
	if (number(r, p, end, &v[0]) || lit(p, end, ':') || number(r, p, end, &v[1]))
		return -1;
	skip_spaces(p, end);
	return 0;
}

static int64_t clamp_count(uint64_t v)
{
	return v > (uint64_t)HP_VALUE_MAX ? HP_VALUE_MAX : (int64_t)v;
}

/* "# heapprof time: <seconds>.<nanoseconds>" (Unix time), after the word. */
static void taken_line(struct reader *r, const char *p, const char *end)
{
	struct hp_input *in = r->in;
	uint64_t sec = 0, ns = 0;
	int digits = 0;

	if (number(r, &p, end, &sec) || lit(&p, end, '.'))
		bad(r, "expected '# heapprof time: <seconds>.<nanoseconds>'");
	for (; p < end && *p >= '0' && *p <= '9'; p++, digits++)
		ns = ns * 10 + (uint64_t)(*p - '0');
	skip_spaces(&p, end);
	if (digits != 9 || p < end || sec > (uint64_t)INT64_MAX / 2)
		bad(r, "expected '# heapprof time: <seconds>.<nanoseconds>'");
	in->has_taken = 1;
	in->taken.tv_sec = (time_t)sec;
	in->taken.tv_nsec = (long)ns;
}

/* "# heapprof uptime: <seconds>[.<fraction>]", after the word. */
static void uptime_line(struct reader *r, const char *p, const char *end)
{
	struct hp_input *in = r->in;
	uint64_t sec = 0;
	double frac = 0, unit = 0.1;

	if (number(r, &p, end, &sec))
		bad(r, "expected '# heapprof uptime: <seconds>'");
	if (p < end && *p == '.')
		for (p++; p < end && *p >= '0' && *p <= '9'; p++, unit /= 10)
			frac += (*p - '0') * unit;
	skip_spaces(&p, end);
	if (p < end || sec > ((uint64_t)1 << 40))
		bad(r, "expected '# heapprof uptime: <seconds>'");
	in->has_ages = 1;
	in->uptime = (double)sec + frac;
}

/* "# age: <lo>:<objects>:<bytes> ...", after the word: the last row's
 * stack's live bytes by age. */
static void age_line(struct reader *r, const char *p, const char *end)
{
	struct hp_input *in = r->in;
	int64_t v[HP_NVALUES] = { 0 };

	if (r->last == SIZE_MAX)
		bad(r, "'# age:' line with no stack row before it");
	if (!in->has_ages)
		bad(r, "'# age:' line before '# heapprof uptime:'");
	while (p < end) {
		uint64_t lo, objs, bytes;
		if (number(r, &p, end, &lo) || lit(&p, end, ':') || number(r, &p, end, &objs) ||
		    lit(&p, end, ':') || number(r, &p, end, &bytes) || (lo & (lo - 1)))
			bad(r, "expected '# age: <seconds>:<objects>:<bytes> ...' (seconds 0 or a power of 2)");
		int b = lo ? 64 - __builtin_clzll(lo) : 0;
		if (b >= HP_AGE_BUCKETS)
			b = HP_AGE_BUCKETS - 1;
		v[HP_V_AGE_B0 + b] = hp_util_sat_add(v[HP_V_AGE_B0 + b], clamp_count(bytes));
		skip_spaces(&p, end);
	}
	add_values(&in->stacks[r->last], v);
}

/* The longest build-id we take, in bytes (--build-id=0x... allows any). */
#define BUILDID_MAX 64

/* "# heapprof build-id: 0x<address> <hex>[ <path>]", after the word. */
static void build_id_line(struct reader *r, const char *p, const char *end)
{
	struct hp_input *in = r->in;
	char hex[2 * BUILDID_MAX + 1];
	uint64_t addr;
	size_t n = 0;

	if (address(&p, end, &addr) || p == end || !is_space(*p))
		bad(r, "expected '# heapprof build-id: 0x<address> <build-id>'");
	skip_spaces(&p, end);
	for (; p < end && !is_space(*p); p++) {
		int d = hp_util_hex_digit((unsigned char)*p);
		if (d < 0 || n == sizeof(hex) - 1)
			bad(r, "a build-id is 1 to %d bytes in hex", BUILDID_MAX);
		hex[n++] = "0123456789abcdef"[d];
	}
	if (n < 2 || n % 2)
		bad(r, "a build-id is 1 to %d bytes in hex", BUILDID_MAX);
	hex[n] = '\0';
	if (in->nbids >= HP_INPUT_MAPS_MAX)
		bad(r, "more than %u build-id lines", HP_INPUT_MAPS_MAX);
	hp_util_grow(&in->bids, &in->cap_bids, in->nbids + 1, sizeof(*in->bids));
	in->bids[in->nbids++] = (struct hp_buildid){ addr, hp_strtab_intern_str(r->strs, hex) };
}

/* "# zero-size: <live objects>: <allocated objects> @ <addresses>", after
 * the word: a stack of zero-byte blocks, as objects only. */
static void zero_size_line(struct reader *r, const char *p, const char *end)
{
	uint64_t a[2];

	if (pair(r, &p, end, a) || p >= end || *p != '@' || (p + 1 < end && !is_space(p[1])))
		bad(r, "expected '# zero-size: <live objects>: <allocated objects> @ <addresses>'");
	struct hp_in_stack *st = add_stack(r, p + 1, end);
	int64_t v[HP_NVALUES] = { 0 };
	v[HP_V_INUSE_OBJECTS] = clamp_count(a[0]);
	v[HP_V_ALLOC_OBJECTS] = clamp_count(a[1]);
	add_values(st, v);
}

/* A comment line (see input.h).  Returns 1 when it made a stack of its
 * own (a stack with no row), else 0. */
static int comment_line(struct reader *r)
{
	struct hp_input *in = r->in;
	const char *p = r->line, *end = r->line + r->len;
	uint64_t a[2], b[2];

	skip_spaces(&p, end);
	p++;
	skip_spaces(&p, end);
	if (word(&p, end, "heapprof peak:")) {
		if (pair(r, &p, end, a))
			bad(r, "expected '# heapprof peak: <objects>: <bytes>'");
		in->peak_moving = word(&p, end, "moving");
		if (p < end)
			bad(r, "unexpected text after '# heapprof peak: <objects>: <bytes>'");
		in->has_peak = 1;
		in->peak_objects = clamp_count(a[0]);
		in->peak_bytes = clamp_count(a[1]);
		return 0;
	}
	if (word(&p, end, "heapprof temporary:")) {
		if (pair(r, &p, end, a) || p < end)
			bad(r, "expected '# heapprof temporary: <temporary>: <allocations>'");
		in->has_temporary = 1;
		in->temporary = clamp_count(a[0]);
		in->allocations = clamp_count(a[1]);
		return 0;
	}
	if (word(&p, end, "heapprof time:")) {
		taken_line(r, p, end);
		return 0;
	}
	if (word(&p, end, "heapprof uptime:")) {
		uptime_line(r, p, end);
		return 0;
	}
	if (word(&p, end, "age:")) {
		age_line(r, p, end);
		return 0;
	}
	if (word(&p, end, "heapprof attached:")) {
		/* The time holds colons: up to the ": allocations" that follows. */
		const char *stop = p;
		while (stop < end && !(stop + 1 < end && stop[0] == ':' && stop[1] == ' '))
			stop++;
		size_t n = (size_t)(stop - p);
		if (n == 0 || n >= sizeof(in->attached))
			bad(r, "expected '# heapprof attached: <UTC>: allocations since then only'");
		memcpy(in->attached, p, n);
		in->attached[n] = '\0';
		return 0;
	}
	if (word(&p, end, "heapprof build-id:")) {
		build_id_line(r, p, end);
		return 0;
	}
	if (word(&p, end, "zero-size:")) {
		zero_size_line(r, p, end);
		return 1;
	}
	if (!word(&p, end, "peak:"))
		return 0;   /* someone else's comment */
	if (pair(r, &p, end, a) || !word(&p, end, "temporary:") || pair(r, &p, end, b))
		bad(r, "expected '# peak: <objects>: <bytes> temporary: <temporary>: <allocations>'");
	int own = 0;
	if (p < end && *p == '@') {
		if (p + 1 < end && !is_space(p[1]))
			bad(r, "expected a space after '@'");
		add_stack(r, p + 1, end);
		r->last = in->nstacks - 1;
		own = 1;
	} else if (p < end) {
		bad(r, "unexpected text after the temporary allocations (expected '@ <addresses>')");
	} else if (r->last == SIZE_MAX || r->noted) {
		bad(r, "'# peak:' line with no stack row before it");
	}
	r->noted = 1;
	in->has_stack_extra = 1;
	int64_t v[HP_NVALUES] = { 0 };
	v[HP_V_PEAK_OBJECTS] = clamp_count(a[0]);
	v[HP_V_PEAK_SPACE] = clamp_count(a[1]);
	v[HP_V_TEMPORARY] = clamp_count(b[0]);
	v[HP_V_ALLOCATIONS] = clamp_count(b[1]);
	add_values(&in->stacks[r->last], v);
	return own;
}

static int is_maps_marker(const struct reader *r)
{
	return starts(r, "MAPPED_LIBRARIES:") || starts(r, "--- Memory map:");
}

/* ---- gperftools layout ----------------------------------------------- */

/* "heap profile: N: N [N: N] @ <type>[/<period>]": sets the scaling. */
static void gperftools_header(struct reader *r)
{
	struct hp_input *in = r->in;
	const char *p = r->line + strlen("heap profile:"), *end = r->line + r->len;
	uint64_t c[4], period = 0;

	if (counts(r, &p, end, c))
		bad(r, "expected 'heap profile: <objects>: <bytes> [<objects>: <bytes>] @ heap_v2/<rate>'");
	in->has_accum = c[2] || c[3];
	skip_spaces(&p, end);
	if (p >= end) {
		/* No type: jeprof's guess for very old remote heap profiles. */
		in->scaling = c[0] == c[2] && c[1] == c[3] ? HP_SCALE_V1 : HP_SCALE_NONE;
		in->rate = 128 * 1024;
		return;
	}
	if (*p++ != '@')
		bad(r, "expected '@ <profile type>' after the totals");
	skip_spaces(&p, end);
	const char *type = p;
	while (p < end && *p != '/' && !is_space(*p))
		p++;
	size_t tlen = (size_t)(p - type);
	int has_period = p < end && *p == '/';
	if (has_period) {
		p++;
		if (number(r, &p, end, &period))
			bad(r, "expected a sampling period after '/'");
	}
	skip_spaces(&p, end);
	if (p < end)
		bad(r, "unexpected text after the profile type");
	int v2 = memmem(type, tlen, "_v2", 3) != NULL;
	if ((tlen == 11 && !memcmp(type, "heapprofile", 11)) || !memmem(type, tlen, "heap", 4)) {
		in->scaling = HP_SCALE_NONE;
		in->rate = 1;
	} else if (v2) {
		if (has_period && period == 0)
			bad(r, "sampling rate 0");
		in->rate = has_period ? (double)period : 128 * 1024;
		/* heap_v2/1: exact counts, as for jemalloc's layout. */
		in->scaling = in->rate == 1 ? HP_SCALE_NONE : HP_SCALE_V2;
	} else {
		in->scaling = HP_SCALE_V1;
		in->rate = has_period && period >= 2 ? (double)(period / 2) : 128 * 1024;
	}
}

/* Rows "N: N [N: N] @ 0x.. 0x.." up to the maps section. */
static void gperftools_body(struct reader *r)
{
	while (next_line(r)) {
		if (is_blank(r))
			continue;
		if (is_maps_marker(r))
			return;
		if (is_comment(r)) {
			comment_line(r);
			continue;
		}
		const char *p = r->line, *end = r->line + r->len;
		uint64_t c[4];
		if (counts(r, &p, end, c) || p >= end || *p != '@' ||
		    (p + 1 < end && !is_space(p[1])))
			bad(r, "expected '<objects>: <bytes> [<objects>: <bytes>] @ <addresses>'");
		struct hp_in_stack *st = add_stack(r, p + 1, end);
		r->last = r->in->nstacks - 1;
		r->noted = 0;
		int64_t v[HP_NVALUES];
		scale_row(r->in, c, v);
		add_values(st, v);
		if (c[2] || c[3])
			r->in->has_accum = 1;
	}
	r->lineno++;
	bad(r, "end of file before MAPPED_LIBRARIES (truncated dump?)");
}

/* ---- jemalloc layout ------------------------------------------------- */

/* "t*: N: N [N: N]" or "tUID: N: N [N: N] [name]"; returns 1 for t*. */
static int thread_row(struct reader *r, uint64_t c[4])
{
	const char *p = r->line, *end = r->line + r->len;
	uint64_t uid;

	skip_spaces(&p, end);
	if (p >= end || *p++ != 't')
		bad(r, "expected '@ <addresses>' or 't*: <objects>: <bytes> [<objects>: <bytes>]'");
	int star = p < end && *p == '*';
	if (star)
		p++;
	else if (number(r, &p, end, &uid))
		bad(r, "expected a thread id after 't'");
	if (lit(&p, end, ':') || counts(r, &p, end, c))
		bad(r, "expected '<objects>: <bytes> [<objects>: <bytes>]' after the thread");
	/* A per-thread row may carry the thread's name; t* may not. */
	skip_spaces(&p, end);
	if (star && p < end)
		bad(r, "unexpected text after the t* counts");
	return star;
}

static void jemalloc_body(struct reader *r)
{
	struct hp_in_stack *cur = NULL;
	uint64_t c[4];

	while (next_line(r)) {
		if (is_blank(r))
			continue;
		if (is_maps_marker(r))
			return;
		if (is_comment(r)) {
			if (comment_line(r))
				cur = NULL;   /* a stack without rows */
			continue;
		}
		const char *p = r->line, *end = r->line + r->len;
		skip_spaces(&p, end);
		if (*p == '@') {
			if (p + 1 < end && !is_space(p[1]))
				bad(r, "expected a space after '@'");
			cur = add_stack(r, p + 1, end);
			r->last = r->in->nstacks - 1;
			r->noted = 0;
			continue;
		}
		int star = thread_row(r, c);
		if (c[2] || c[3])
			r->in->has_accum = 1;
		/* Rows before the first '@' are the header; only t* counts. */
		if (!cur || !star)
			continue;
		int64_t v[HP_NVALUES];
		scale_row(r->in, c, v);
		add_values(cur, v);
	}
	r->lineno++;
	bad(r, "end of file before MAPPED_LIBRARIES (truncated dump?)");
}

static void jemalloc_header(struct reader *r)
{
	const char *p = r->line + strlen("heap_v2/"), *end = r->line + r->len;
	uint64_t rate;

	if (number(r, &p, end, &rate))
		bad(r, "expected 'heap_v2/<sampling rate>'");
	skip_spaces(&p, end);
	if (p < end)
		bad(r, "unexpected text after 'heap_v2/<rate>'");
	if (rate == 0)
		bad(r, "sampling rate 0");
	/* R = 1: every allocation was recorded (lg_prof_sample:0, jemalloc's
	 * and ours): the counts are exact, and scaling would count small
	 * blocks more than once. */
	r->in->scaling = rate == 1 ? HP_SCALE_NONE : HP_SCALE_V2;
	r->in->rate = (double)rate;
}

/* ---- maps and symbols ------------------------------------------------ */

/* Orders mappings by object: path, device, inode, then address. */
static int by_object(const void *a, const void *b)
{
	const struct hp_map *x = *(const struct hp_map *const *)a;
	const struct hp_map *y = *(const struct hp_map *const *)b;

	if (x->path != y->path)
		return (uintptr_t)x->path < (uintptr_t)y->path ? -1 : 1;
	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	if (x->dev_major != y->dev_major)
		return x->dev_major < y->dev_major ? -1 : 1;
	if (x->dev_minor != y->dev_minor)
		return x->dev_minor < y->dev_minor ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int same_object(const struct hp_map *x, const struct hp_map *y)
{
	return x->path == y->path && x->inode == y->inode && x->dev_major == y->dev_major &&
	       x->dev_minor == y->dev_minor;
}

/*
 * Gives every mapping of a file the build-id that a "# heapprof
 * build-id:" line says for the mapping at its address (the object's
 * first), the first line's when two name one file.
 */
static void attach_build_ids(struct hp_input *in)
{
	if (!in->nbids)
		return;
	for (size_t i = 0; i < in->nbids; i++) {
		struct hp_map *m = (struct hp_map *)hp_maps_find(in->maps, in->nmaps, in->bids[i].addr);
		if (m && m->kind == HP_MAP_FILE && !m->build_id)
			m->build_id = in->bids[i].id;
	}
	struct hp_map **v = hp_util_xcalloc(in->nmaps ? in->nmaps : 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < in->nmaps; i++)
		if (in->maps[i].kind == HP_MAP_FILE)
			v[n++] = &in->maps[i];
	hp_util_sort(v, n, sizeof(*v), by_object);
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		const char *id = NULL;
		for (hi = lo; hi < n && same_object(v[hi], v[lo]); hi++)
			if (!id)
				id = v[hi]->build_id;
		for (size_t k = lo; k < hi; k++)
			v[k]->build_id = id;
	}
	free(v);
}

/* A dump cut inside MAPPED_LIBRARIES reads well but names fewer frames:
 * one line says so, naming the file.  cut_line is the last line when the
 * file ended inside it (0 otherwise); a cut at the end of a line shows
 * as frames above the last mapping, which the kernel's list (sorted, the
 * stack at its top) never leaves. */
static void maps_warn_cut(const struct reader *r, size_t cut_line)
{
	const struct hp_input *in = r->in;
	uint64_t top = 0;
	size_t above = 0;

	for (size_t i = 0; i < in->nmaps; i++)
		if (in->maps[i].end > top)
			top = in->maps[i].end;
	for (size_t i = 0; i < in->nframes; i++)
		above += in->frames[i] >= top;
	if (cut_line)
		hp_util_warn("warning: '%s' ends inside MAPPED_LIBRARIES, in the middle of line %zu "
			     "(a cut dump?): frames in the mappings it lost are not named", r->path, cut_line);
	else if (above)
		hp_util_warn("warning: '%s': MAPPED_LIBRARIES ends below %zu of the dump's %zu frames "
			     "(a cut dump?): they are not named", r->path, above, in->nframes);
}

static void maps_section(struct reader *r)
{
	struct hp_input *in = r->in;
	size_t cut_line = 0;

	in->has_maps = 1;
	while (next_line(r)) {
		if (is_blank(r) || starts(r, "build="))
			continue;
		/* The file ends inside this line: what is left of it may parse,
		 * with a wrong path or end, and is dropped. */
		if (r->unended) {
			cut_line = r->lineno;
			break;
		}
		if (in->nmaps >= HP_INPUT_MAPS_MAX)
			bad(r, "more than %u lines in MAPPED_LIBRARIES", HP_INPUT_MAPS_MAX);
		hp_util_grow(&in->maps, &in->cap_maps, in->nmaps + 1, sizeof(*in->maps));
		const char *why = hp_maps_parse_line(r->line, r->len, &in->maps[in->nmaps], r->strs);
		if (why)
			bad(r, "MAPPED_LIBRARIES: %s", why);
		in->nmaps++;
	}
	hp_maps_sort(in->maps, in->nmaps);
	attach_build_ids(in);
	maps_warn_cut(r, cut_line);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct hp_symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* "--- symbol" up to a line starting with "---" (jeprof's ReadSymbols).
 * Returns 1 when that line was already the "--- heap" marker. */
static int symbol_section(struct reader *r)
{
	struct hp_input *in = r->in;

	for (;;) {
		if (!next_line(r)) {
			r->lineno++;
			bad(r, "end of file in the symbol section");
		}
		if (starts(r, "---"))
			break;
		if (is_blank(r))
			continue;
		const char *p = r->line, *end = r->line + r->len;
		uint64_t addr;
		if (address(&p, end, &addr) == 0 && p < end && is_space(*p)) {
			skip_spaces(&p, end);
			const char *e = end;
			while (e > p && is_space(e[-1]))
				e--;
			if (e == p)
				bad(r, "symbol without a name");
			if (in->nsyms >= HP_INPUT_DUMP_SYMBOLS_MAX)
				bad(r, "more than %u symbols in one dump",
				    HP_INPUT_DUMP_SYMBOLS_MAX);
			hp_util_grow(&in->syms, &in->cap_syms, in->nsyms + 1, sizeof(*in->syms));
			char *clean = hp_strtab_sanitize(p, (size_t)(e - p));
			in->syms[in->nsyms].addr = addr;
			in->syms[in->nsyms++].names = hp_strtab_intern_str(r->strs, clean);
			free(clean);
		} else if (starts(r, "binary=")) {
			char *clean = hp_strtab_sanitize(r->line + 7, r->len - 7);
			in->binary = hp_strtab_intern_str(r->strs, clean);
			free(clean);
		} else if (!memchr(r->line, '=', r->len)) {
			bad(r, "expected '0x<address> <function>' in the symbol section");
		}
	}
	hp_util_sort(in->syms, in->nsyms, sizeof(*in->syms), sym_cmp);
	const char *p = r->line + 3, *end = r->line + r->len;
	skip_spaces(&p, end);
	return p < end;
}

static int is_heap_marker(const struct reader *r)
{
	const char *p = r->line + 3, *end = r->line + r->len;

	if (!starts(r, "---"))
		return 0;
	skip_spaces(&p, end);
	return (end - p >= 4 && !memcmp(p, "heap", 4)) ||
	       (end - p >= 6 && !memcmp(p, "growth", 6));
}

static void parse(struct reader *r)
{
	if (!next_line(r))
		hp_util_die("cannot read '%s': empty file", r->path);
	if (starts(r, "---") && r->len >= 3) {
		const char *p = r->line + 3, *end = r->line + r->len;
		skip_spaces(&p, end);
		if (end - p >= 6 && !memcmp(p, "symbol", 6)) {
			int marker_done = symbol_section(r);
			if (!next_line(r)) {
				r->lineno++;
				bad(r, "end of file after the symbol section");
			}
			if (!marker_done && is_heap_marker(r) && !next_line(r)) {
				r->lineno++;
				bad(r, "end of file after '--- heap'");
			}
		} else if (is_heap_marker(r) && !next_line(r)) {
			r->lineno++;
			bad(r, "end of file after '--- heap'");
		}
	}
	if (starts(r, "heap profile:")) {
		r->in->layout = 'g';
		gperftools_header(r);
		gperftools_body(r);
	} else if (starts(r, "heap_v2/")) {
		r->in->layout = 'j';
		jemalloc_header(r);
		jemalloc_body(r);
	} else {
		bad(r, "not a heap profile (expected 'heap profile:' or 'heap_v2/')");
	}
	maps_section(r);
}

/* ---- files ----------------------------------------------------------- */

/* Reads a file that cannot be mapped (a pipe) into memory, bounded. */
static char *slurp(int fd, const char *path, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;

	for (;;) {
		hp_util_grow(&buf, &cap, n + 65536, 1);
		ssize_t k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			hp_util_die("cannot read '%s': %m", path);
		if (k == 0)
			break;
		n += (size_t)k;
		if (n > ((size_t)1 << 32))
			hp_util_die("cannot read '%s': larger than 4 GiB", path);
	}
	*len = n;
	return buf;
}

void hp_input_read(struct hp_input *in, const char *path, struct hp_strtab *strs)
{
	struct reader r = { .path = path, .in = in, .strs = strs, .last = SIZE_MAX };
	struct stat st;
	void *map = MAP_FAILED;
	char *copy = NULL;
	size_t len;

	static uint64_t serial;

	in->serial = ++serial;
	in->path = path;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		hp_util_die("cannot read '%s': %m", path);
	if (S_ISDIR(st.st_mode))
		hp_util_die("cannot read '%s': is a directory", path);
	if (S_ISREG(st.st_mode)) {
		len = (size_t)st.st_size;
		if (len == 0)
			hp_util_die("cannot read '%s': empty file", path);
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			hp_util_die("cannot read '%s': %m", path);
		r.p = map;
	} else {
		copy = slurp(fd, path, &len);
		r.p = copy;
	}
	close(fd);
	r.end = r.p + len;
	parse(&r);
	if (map != MAP_FAILED)
		munmap(map, len);
	free(copy);

	hp_input_name_parse(path, &in->name);
	/* When the dump was written: the name's second, rounded up, or the
	 * file's own time.  A binary newer than this changed after the dump. */
	if (in->name.has_time) {
		in->written.tv_sec = in->name.time + 1;
		in->written.tv_nsec = 0;
	} else {
		in->written = st.st_mtim;
	}
}

void hp_input_release(struct hp_input *in)
{
	free(in->frames);
	free(in->stacks);
	free(in->maps);
	free(in->syms);
	free(in->bids);
	memset(in, 0, sizeof(*in));
}

const char *hp_input_symbol(const struct hp_input *in, uint64_t addr)
{
	size_t lo = 0, hi = in->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (in->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < in->nsyms && in->syms[lo].addr == addr ? in->syms[lo].names : NULL;
}

/* ---- file names ------------------------------------------------------ */

static int all_digits(const char *s, size_t n)
{
	if (!n || n > 19)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* "YYYYMMDDTHHMMSSZ" -> seconds since the epoch. */
static int utc_stamp(const char *s, size_t n, time_t *out)
{
	struct tm tm = { 0 };

	if (n != 16 || s[8] != 'T' || s[15] != 'Z' || !all_digits(s, 8) || !all_digits(s + 9, 6))
		return -1;
	tm.tm_year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0') - 1900;
	tm.tm_mon = (s[4] - '0') * 10 + (s[5] - '0') - 1;
	tm.tm_mday = (s[6] - '0') * 10 + (s[7] - '0');
	tm.tm_hour = (s[9] - '0') * 10 + (s[10] - '0');
	tm.tm_min = (s[11] - '0') * 10 + (s[12] - '0');
	tm.tm_sec = (s[13] - '0') * 10 + (s[14] - '0');
	if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
	    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return -1;
	*out = timegm(&tm);
	return 0;
}

/* A trigger field: "f", or a lower-case letter and digits ("i3"). */
static int trigger(const char *s, size_t n)
{
	return n >= 1 && s[0] >= 'a' && s[0] <= 'z' && (n == 1 || all_digits(s + 1, n - 1));
}

static uint64_t dec(const char *s, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	return v;
}

void hp_input_name_parse(const char *path, struct hp_input_name *dn)
{
	const char *base = strrchr(path, '/');
	const char *f[8];	/* the last dot-separated fields, from the right */
	size_t fl[8], nf = 0;

	memset(dn, 0, sizeof(*dn));
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".heap"))
		n -= 5;
	const char *end = base + n;
	while (nf < HP_UTIL_ARRAY_LEN(f)) {
		const char *dot = end;
		while (dot > base && dot[-1] != '.')
			dot--;
		f[nf] = dot;
		fl[nf++] = (size_t)(end - dot);
		if (dot == base)
			break;
		end = dot - 1;
	}
	size_t i = 0;
	time_t t;
	if (i < nf && utc_stamp(f[i], fl[i], &t) == 0) {
		dn->has_time = 1;
		dn->time = t;
		i++;
	}
	/* <prefix>.<pid>.<seq>.<trigger>: needs a prefix field too. */
	if (i + 3 < nf && trigger(f[i], fl[i]) && all_digits(f[i + 1], fl[i + 1]) &&
	    all_digits(f[i + 2], fl[i + 2])) {
		dn->has_seq = 1;
		dn->seq = dec(f[i + 1], fl[i + 1]);
		dn->pid = dec(f[i + 2], fl[i + 2]);
	}
}
