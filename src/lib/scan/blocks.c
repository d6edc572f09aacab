/*
 * blocks.c -- the recorded blocks by address (see blocks.h).
 *
 * Owns the index between hp_blocks_build and hp_blocks_release, nothing
 * after.  Runs while the other threads are stopped and every live-table
 * shard lock and the pages registry's lock are held: it takes no lock and
 * maps its memory with hp_pages_alloc_held.  One pass over the live
 * table, which holds the blocks in its hash's order, at random: each
 * small block is appended to its chunk's runs (a 32-bit granule and size;
 * the big blocks and the loader's are listed); then, chunk by chunk, with
 * its words in the cache, its runs set the start bits, the counts are
 * summed, and each block's size is stored at its rank.  Random writes
 * into the bitmaps and the sizes (the 1 GiB heap's: 8 + 20 MiB) would
 * each miss the cache; appending to a chunk's run writes one line at a
 * time.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "base/pages.h"
#include "base/spin.h"
#include "record/counters.h"
#include "record/live.h"
#include "record/stacktab.h"
#include "scan/blocks.h"
#include "scan/pair.h"
#include "base/banned.h"

#define HASH_MUL 0x9e3779b97f4a7c15ULL
/* Chunks' words and runs come from slabs of 4 MiB, then each twice the
 * last (up to 1 GiB: a few dozen mappings for any heap; what a slab's
 * last piece leaves is never touched). */
#define SLAB_FIRST (4ul << 20)
#define SLAB_MAX   (1ul << 30)
#define CHUNK_BYTES (HP_BLOCKS_WORDS * sizeof(struct hp_blocks_word))
#define RUN_BYTES 4096
#define RUN_ENTRIES ((RUN_BYTES - 16) / sizeof(uint32_t))

/* A piece of a chunk's list of small blocks, in the order the live table
 * gave them: each entry the block's granule (low 16 bits) and size.  All
 * but the chunk's last are full; the chunk's count of blocks tells how
 * full the last is, so that appending reads no line of the run but the
 * one it writes (runs are page-aligned: their first lines share a few
 * sets of the cache). */
struct hp_blocks_run {
	struct hp_blocks_run *next;
	uint64_t unused;
	uint32_t e[RUN_ENTRIES];
};
#define NO_START HP_BLOCKS_NO_START   /* no granule: 65535 is the last one */
#define HUGE_MIN (16ul << 20)   /* mappings this large ask for huge pages */

/* The last answer of chunk_from: a walk of a heap in address order (the
 * leak scan's roots at a sampled rate, where a chunk's bitmap is mostly
 * zeros) asks for the next start from one granule after another of the
 * same chunk, and each answer holds until the walk passes it.  Reset by
 * hp_blocks_build; the scan's own thread's (a second thread asks with
 * none: hp_blocks_starts_in_beside). */
struct chunk_memo {
	const struct hp_blocks_chunk *c;
	uint64_t g;        /* asked from this granule */
	uint64_t found;    /* the answer's granule; HP_BLOCKS_GRANULES: none */
};
static struct chunk_memo memo;


/* ---- memory ------------------------------------------------------------- */

/* The build's two threads map one at a time (the pages registry is the
 * scan's, not locked for each). */
static struct hp_spin map_lock = HP_SPIN_INIT;

static void *map(struct hp_blocks *x, size_t n)
{
	if (x->owner)
		x = x->owner;
	hp_spin_lock(&map_lock);
	void *p = x->nmaps < HP_ARRAY_LEN(x->maps) ? hp_pages_alloc_held(n) : NULL;
	/* A large heap's index in huge pages, where the system gives them on
	 * request: a fault per 2 MiB, not per page, and fewer misses of the
	 * TLB while marking reads it at random (the 1 GiB heap of 10 M
	 * blocks: the build 162 -> 148 ms).  A small one stays in pages: a
	 * huge one would be zeroed whole for a few blocks. */
	if (p && n >= HUGE_MIN)
		madvise(p, n, MADV_HUGEPAGE);
	if (p) {
		x->maps[x->nmaps].p = p;
		x->maps[x->nmaps].n = n;
		x->nmaps++;
	}
	hp_spin_unlock(&map_lock);
	return p;
}

/* A copy of old (used bytes of it) in n fresh bytes; old stays mapped
 * until hp_blocks_release. */
static void *regrow(struct hp_blocks *x, const void *old, size_t used, size_t n)
{
	void *p = map(x, n);

	if (p && used)
		memcpy(p, old, used);
	return p;
}

void hp_blocks_release(struct hp_blocks *x)
{
	for (unsigned i = 0; i < x->nmaps; i++)
		hp_pages_free(x->maps[i].p, x->maps[i].n);
	memset(x, 0, sizeof(*x));
}

/* n bytes (at most SLAB_FIRST, a multiple of 16) of a slab, zeroed;
 * NULL without memory. */
static void *carve(struct hp_blocks *x, size_t n)
{
	if ((size_t)(x->slab_end - x->slab) < n) {
		size_t want = x->slab_bytes ? x->slab_bytes * 2 : SLAB_FIRST;
		x->slab_bytes = want < SLAB_MAX ? want : SLAB_MAX;
		x->slab = map(x, x->slab_bytes);
		if (!x->slab)
			return NULL;
		x->slab_end = x->slab + x->slab_bytes;
	}
	void *p = x->slab;
	x->slab += n;
	return p;
}

/* ---- the chunks' directory --------------------------------------------- */

HP_INLINE uint32_t dir_home(const struct hp_blocks *x, uintptr_t key)
{
	return (uint32_t)((key * HASH_MUL) >> 32) & x->dir_mask;
}

HP_INLINE const struct hp_blocks_chunk *chunk_of(const struct hp_blocks *x, uintptr_t key)
{
	for (uint32_t i = dir_home(x, key);; i = (i + 1) & x->dir_mask) {
		const struct hp_blocks_dir *d = &x->dir[i];
		if (d->key == key + 1)
			return &x->chunks[d->idx];
		if (!d->key)
			return NULL;
	}
}

static void dir_put(struct hp_blocks_dir *dir, uint32_t mask, uintptr_t key, uint32_t idx)
{
	uint32_t i = (uint32_t)((key * HASH_MUL) >> 32) & mask;

	while (dir[i].key)
		i = (i + 1) & mask;
	dir[i].key = key + 1;
	dir[i].idx = idx;
}

/* The chunk of key, made if it is new (its words are not yet mapped);
 * NULL without memory. */
static struct hp_blocks_chunk *chunk_get(struct hp_blocks *x, uintptr_t key)
{
	const struct hp_blocks_chunk *found = x->dir ? chunk_of(x, key) : NULL;

	if (found)
		return (struct hp_blocks_chunk *)found;
	if (x->nchunks == x->chunks_cap) {
		uint32_t cap = x->chunks_cap ? x->chunks_cap * 2 : 256;
		void *p = regrow(x, x->chunks, x->nchunks * sizeof(*x->chunks), cap * sizeof(*x->chunks));
		if (!p)
			return NULL;
		x->chunks = p;
		x->chunks_cap = cap;
		/* The directory at most half full. */
		uint32_t slots = cap * 2;
		struct hp_blocks_dir *dir = map(x, slots * sizeof(*dir));
		if (!dir)
			return NULL;
		for (uint32_t i = 0; i < x->nchunks; i++)
			dir_put(dir, slots - 1, x->chunks[i].key, i);
		x->dir = dir;
		x->dir_mask = slots - 1;
	}
	struct hp_blocks_chunk *c = &x->chunks[x->nchunks];
	c->key = key;
	dir_put(x->dir, x->dir_mask, key, x->nchunks);
	x->nchunks++;
	return c;
}

/* ---- building ------------------------------------------------------------ */

struct build {
	struct hp_blocks *x;
	uintptr_t gmask;
	uintptr_t ld_lo, ld_hi;
	uint8_t *loader_of;   /* per counter context: 0 not known, 1 no, 2 yes */
	uint32_t nctx;
	int err;
};

/* Whether the stack of counter context tctx starts in the dynamic
 * loader: a block it allocated for itself. */
static int loaders(struct build *b, uint32_t tctx)
{
	if (!b->ld_hi || tctx >= b->nctx)
		return 0;
	/* Shared by the build's two threads, which write the same answer. */
	uint8_t known = __atomic_load_n(&b->loader_of[tctx], __ATOMIC_RELAXED);
	if (!known) {
		const struct hp_counters *c = hp_counters_at(tctx);
		const struct hp_stack *st = c ? hp_stacktab_get(c->stack) : NULL;
		struct hp_stack_frames it = st ? hp_stacktab_frames_of(st) : (struct hp_stack_frames){ 0 };
		uintptr_t pc = hp_stacktab_next(&it);
		int ld = st && st->depth && pc >= b->ld_lo && pc < b->ld_hi;
		known = ld ? 2 : 1;
		__atomic_store_n(&b->loader_of[tctx], known, __ATOMIC_RELAXED);
	}
	return known == 2;
}

static int push_big(struct hp_blocks *x, uintptr_t p, uint64_t size, uint32_t tctx)
{
	if (x->nbig == x->big_cap) {
		uint64_t cap = x->big_cap ? x->big_cap * 2 : 1024;
		void *q = regrow(x, x->big, x->nbig * sizeof(*x->big), cap * sizeof(*x->big));
		if (!q)
			return ENOMEM;
		x->big = q;
		x->big_cap = cap;
	}
	x->big[x->nbig].start = p;
	x->big[x->nbig].size = size;
	x->big[x->nbig].tctx = tctx;
	x->big[x->nbig].marked = 0;
	x->nbig++;
	return 0;
}

static int push_loader(struct hp_blocks *x, uintptr_t p)
{
	if (x->nloader == x->loader_cap) {
		uint64_t cap = x->loader_cap ? x->loader_cap * 2 : 512;
		void *q = regrow(x, x->loader, x->nloader * sizeof(*x->loader), cap * sizeof(*x->loader));
		if (!q)
			return ENOMEM;
		x->loader = q;
		x->loader_cap = cap;
	}
	x->loader[x->nloader++] = p;
	return 0;
}

/* Appends the small block at granule g, of size bytes, to chunk c's
 * runs, and counts it: 0, or ENOMEM. */
static int append(struct hp_blocks *x, struct hp_blocks_chunk *c, uint64_t g, uint64_t size)
{
	struct hp_blocks_run *r = c->run_last;
	uint32_t at = c->n % RUN_ENTRIES;

	if (!at) {
		struct hp_blocks_run *fresh = carve(x, RUN_BYTES);
		if (!fresh)
			return ENOMEM;
		if (r)
			r->next = fresh;
		else
			c->runs[0] = fresh;
		c->run_last = r = fresh;
	}
	r->e[at] = (uint32_t)g | (uint32_t)size << 16;
	c->n++;
	return 0;
}

/* The live table's records, one shard's slots at a time. */
static void each_record(const struct hp_live_slot *slots, uint32_t n, void *arg)
{
	struct build *b = arg;
	struct hp_blocks *x = b->x;
	uintptr_t lo = x->lo, hi = x->hi;

	for (uint32_t i = 0; i < n && !b->err; i++) {
		uintptr_t p = slots[i].key;
		if (p == 0)
			continue;
		uint64_t size = slots[i].val & HP_LIVE_SIZE_MAX;
		uint32_t tctx = (uint32_t)(slots[i].val >> HP_LIVE_TCTX_SHIFT);
		uintptr_t end = p + (size ? size : 1);
		lo = p < lo ? p : lo;
		hi = end > hi ? end : hi;
		x->nblocks++;
		if (loaders(b, tctx) && push_loader(x, p)) {
			b->err = ENOMEM;
		} else if (size > HP_BLOCKS_SMALL_MAX || (p & b->gmask)) {
			b->err = push_big(x, p, size, tctx);
		} else {
			uintptr_t key = p >> x->cshift;
			struct hp_blocks_chunk *c = x->dir ? (struct hp_blocks_chunk *)chunk_of(x, key) : NULL;
			if (!c)
				c = chunk_get(x, key);
			if (!c || append(x, c, (p >> x->gshift) & (HP_BLOCKS_GRANULES - 1), size))
				b->err = ENOMEM;
		}
	}
	x->lo = lo;
	x->hi = hi;
}

/* The entries in run r of a list of n. */
static uint32_t run_entries(uint32_t n, const struct hp_blocks_run *r)
{
	uint32_t rest = n % RUN_ENTRIES;

	return r->next || !rest ? RUN_ENTRIES : rest;
}

/* Chunk c's words from its runs: the start bits, the blocks before each
 * word and the last start up to it; then each block's size at its rank
 * (from c->first on, which the chunk's blocks fill in order). */
static void fill_chunk(struct hp_blocks *x, struct hp_blocks_chunk *c)
{
	struct hp_blocks_word *w = c->w;

	for (unsigned k = 0; k < 2; k++)
		for (const struct hp_blocks_run *r = c->runs[k]; r; r = r->next)
			for (uint32_t i = 0, n = run_entries(c->nrun[k], r); i < n; i++) {
				uint32_t g = r->e[i] & (HP_BLOCKS_GRANULES - 1);
				w[g >> 6].starts |= 1ULL << (g & 63);
			}
	uint32_t before = 0, last = NO_START;
	for (unsigned k = 0; k < HP_BLOCKS_WORDS; k++) {
		w[k].before = (uint16_t)before;
		if (w[k].starts) {
			before += hp_blocks_bits_in(w[k].starts);
			last = (uint32_t)(k * 64 + 63 - (unsigned)__builtin_clzll(w[k].starts));
		}
		w[k].last = last;
	}
	uint16_t *sizes = x->sizes + c->first;
	for (unsigned k = 0; k < 2; k++)
		for (const struct hp_blocks_run *r = c->runs[k]; r; r = r->next)
			for (uint32_t i = 0, n = run_entries(c->nrun[k], r); i < n; i++) {
				uint32_t g = r->e[i] & (HP_BLOCKS_GRANULES - 1);
				const struct hp_blocks_word *sw = &w[g >> 6];
				sizes[sw->before + hp_blocks_bits_in(sw->starts & ((1ULL << (g & 63)) - 1))] =
					(uint16_t)(r->e[i] >> 16);
			}
	c->runs[0] = c->runs[1] = c->run_last = NULL;
}

/* ---- the two threads ------------------------------------------------------ */

/* From this many records on, the pass and the fill are split between two
 * threads (a million blocks: 20 ms of the pass saved, for 0.1 ms to start
 * a thread). */
#define PAIR_MIN (256u << 10)
#define PAIR_STACK (256u << 10)

/* One thread's share of the work: the pass over shards [from, to), then
 * the fill of chunks [c_from, c_to). */
struct share {
	struct build *b;
	unsigned from, to;
	uint32_t c_from, c_to;
};

static void pass_share(void *arg)
{
	const struct share *sh = arg;

	hp_live_each_shard_held(sh->from, sh->to, each_record, sh->b);
}

static void fill_share(void *arg)
{
	const struct share *sh = arg;

	for (uint32_t i = sh->c_from; i < sh->c_to; i++)
		fill_chunk(sh->b->x, &sh->b->x->chunks[i]);
}

/* Runs fn(mine) here and, when stack is set, fn(theirs) on a second
 * thread on that stack, or here after mine when none can start (a limit
 * on the processes of the user, of the cgroup): the threads that ran. */
static unsigned both(void (*fn)(void *), struct share *mine, struct share *theirs, void *stack)
{
	struct hp_pair pair;
	int started = stack && !hp_pair_start(&pair, stack, PAIR_STACK, fn, theirs);

	fn(mine);
	if (started)
		hp_pair_join(&pair);
	else if (stack)
		fn(theirs);
	return started ? 2 : 1;
}

/* The second thread's pass (y) into x's: its counts, span and lists;
 * each chunk of y's becomes x's second list of runs. */
static int merge(struct hp_blocks *x, const struct hp_blocks *y)
{
	for (uint32_t i = 0; i < x->nchunks; i++)
		x->chunks[i].nrun[0] = x->chunks[i].n;
	for (uint32_t i = 0; i < y->nchunks; i++) {
		const struct hp_blocks_chunk *yc = &y->chunks[i];
		struct hp_blocks_chunk *c = chunk_get(x, yc->key);
		if (!c)
			return ENOMEM;
		c->runs[1] = yc->runs[0];
		c->nrun[1] = yc->n;
		c->n += yc->n;
	}
	for (uint64_t i = 0; i < y->nbig; i++)
		if (push_big(x, y->big[i].start, y->big[i].size, y->big[i].tctx))
			return ENOMEM;
	for (uint64_t i = 0; i < y->nloader; i++)
		if (push_loader(x, y->loader[i]))
			return ENOMEM;
	x->nblocks += y->nblocks;
	x->lo = y->lo < x->lo ? y->lo : x->lo;
	x->hi = y->hi > x->hi ? y->hi : x->hi;
	return 0;
}

/* Every chunk's words and the blocks' sizes, the ranks in the order the
 * chunks were made, the two halves of the blocks on two threads when
 * stack is set: 0, or ENOMEM. */
static int fill(struct build *b, void *stack)
{
	struct hp_blocks *x = b->x;
	uint64_t rank = 0;

	for (uint32_t i = 0; i < x->nchunks; i++) {
		if (x->chunks[i].nrun[0] + x->chunks[i].nrun[1] == 0)
			x->chunks[i].nrun[0] = x->chunks[i].n;   /* one thread's pass */
		if (!(x->chunks[i].w = carve(x, CHUNK_BYTES)))
			return ENOMEM;
		x->chunks[i].first = (uint32_t)rank;
		rank += x->chunks[i].n;
		if (rank > UINT32_MAX)
			return ENOMEM;
	}
	x->nsmall = rank;
	if (rank && !(x->sizes = map(x, rank * sizeof(*x->sizes))))
		return ENOMEM;
	uint32_t half = 0;
	while (half < x->nchunks && x->chunks[half].first < rank / 2)
		half++;
	struct share mine = { .b = b, .c_from = 0, .c_to = stack ? half : x->nchunks };
	struct share theirs = { .b = b, .c_from = half, .c_to = x->nchunks };
	both(fill_share, &mine, &theirs, stack);
	return 0;
}

static void sift_big(struct hp_blocks_big *a, uint64_t root, uint64_t n)
{
	for (;;) {
		uint64_t c = 2 * root + 1;
		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1].start > a[c].start)
			c++;
		if (a[root].start >= a[c].start)
			return;
		struct hp_blocks_big t = a[root];
		a[root] = a[c];
		a[c] = t;
		root = c;
	}
}

/* Heapsort: no allocation, no recursion. */
static void sort_big(struct hp_blocks_big *a, uint64_t n)
{
	for (uint64_t i = n / 2; i-- > 0;)
		sift_big(a, i, n);
	for (uint64_t end = n; end-- > 1;) {
		struct hp_blocks_big t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift_big(a, 0, end);
	}
}

static void sift_chunks(const struct hp_blocks *x, uint32_t *a, uint32_t root, uint32_t n)
{
	for (;;) {
		uint32_t c = 2 * root + 1;
		if (c >= n)
			return;
		if (c + 1 < n && x->chunks[a[c + 1]].key > x->chunks[a[c]].key)
			c++;
		if (x->chunks[a[root]].key >= x->chunks[a[c]].key)
			return;
		uint32_t t = a[root];
		a[root] = a[c];
		a[c] = t;
		root = c;
	}
}

static void sort_chunks(const struct hp_blocks *x, uint32_t *a, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		a[i] = i;
	for (uint32_t i = n / 2; i-- > 0;)
		sift_chunks(x, a, i, n);
	for (uint32_t end = n; end-- > 1;) {
		uint32_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift_chunks(x, a, 0, end);
	}
}

static uint32_t sorted_from(const struct hp_blocks *x, uintptr_t key);

/* Each chunk's count of the big blocks that overlap its span.  Blocks
 * never overlap each other: a chunk is counted by the big blocks that
 * start or end in it and at most one that spans it whole, so this is
 * bounded by the chunks plus twice the big blocks, with a bisection for
 * each. */
static void count_bigs(struct hp_blocks *x)
{
	for (uint64_t i = 0; i < x->nbig && x->nchunks; i++) {
		const struct hp_blocks_big *b = &x->big[i];
		uint64_t n = b->size ? b->size : 1;
		uintptr_t last = (n - 1 > UINTPTR_MAX - b->start ? UINTPTR_MAX : b->start + (n - 1)) >> x->cshift;
		for (uint32_t j = sorted_from(x, b->start >> x->cshift); j < x->nchunks; j++) {
			struct hp_blocks_chunk *c = &x->chunks[x->sorted[j]];
			if (c->key > last)
				break;
			c->bigs++;
		}
	}
}

/* x->near, when the chunks' keys span little (a heap in one piece, as
 * glibc's main heap is); without memory for it, the directory serves. */
static void near_chunks(struct hp_blocks *x)
{
	if (!x->nchunks)
		return;
	uintptr_t lo = x->chunks[x->sorted[0]].key, hi = x->chunks[x->sorted[x->nchunks - 1]].key;
	if (hi - lo >= HP_BLOCKS_NEAR_MAX || !(x->near = map(x, (hi - lo + 1) * sizeof(*x->near))))
		return;
	x->near_lo = lo;
	x->near_n = hi - lo + 1;
	for (uint32_t i = 0; i < x->nchunks; i++)
		if (!x->chunks[i].bigs)
			x->near[x->chunks[i].key - lo] = &x->chunks[i];
}

int hp_blocks_build(struct hp_blocks *x, int glibc, uintptr_t ld_lo, uintptr_t ld_hi, int pair)
{
	struct build b = { .x = x, .ld_lo = ld_lo, .ld_hi = ld_hi };

	memset(x, 0, sizeof(*x));
	memset(&memo, 0, sizeof(memo));
	x->gshift = glibc ? 4 : 3;
	x->cshift = x->gshift + 16;
	x->lo = UINTPTR_MAX;
	b.gmask = ((uintptr_t)1 << x->gshift) - 1;
	b.nctx = ld_hi ? hp_counters_end() : 0;
	if (b.nctx && !(b.loader_of = map(x, b.nctx)))
		return ENOMEM;
	/* A large table: half its shards on a second thread, into a build of
	 * its own (y) that maps into x's. */
	struct hp_blocks y;
	struct build by = b;
	void *stack = NULL;
	if (pair && hp_live_records() >= PAIR_MIN)
		stack = map(x, PAIR_STACK);
	if (stack) {
		memset(&y, 0, sizeof(y));
		y.owner = x;
		y.gshift = x->gshift;
		y.cshift = x->cshift;
		y.lo = UINTPTR_MAX;
		by.x = &y;
	}
	struct share mine = { .b = &b, .from = 0, .to = stack ? HP_LIVE_SHARDS / 2 : HP_LIVE_SHARDS };
	struct share theirs = { .b = &by, .from = HP_LIVE_SHARDS / 2, .to = HP_LIVE_SHARDS };
	x->threads = both(pass_share, &mine, &theirs, stack);
	if (b.err || by.err)
		return b.err ? b.err : by.err;
	if (stack && merge(x, &y))
		return ENOMEM;
	if (!x->nblocks) {
		x->lo = x->hi = 0;
		return 0;
	}
	if (fill(&b, stack))
		return ENOMEM;
	if (x->nchunks && !(x->sorted = map(x, x->nchunks * sizeof(*x->sorted))))
		return ENOMEM;
	sort_big(x->big, x->nbig);
	sort_chunks(x, x->sorted, x->nchunks);
	count_bigs(x);
	near_chunks(x);
	return 0;
}

/* ---- finding ------------------------------------------------------------- */

/* The granule of chunk c's nearest start at or below w's, which lies in
 * c's span; NO_START when none does. */
HP_INLINE unsigned start_below_in(const struct hp_blocks *x, const struct hp_blocks_chunk *c, uintptr_t w)
{
	uint64_t g = (w >> x->gshift) & (HP_BLOCKS_GRANULES - 1), k = g >> 6;
	uint64_t below = c->w[k].starts & (~0ULL >> (63 - (g & 63)));

	if (below)
		return (unsigned)(k * 64 + 63 - (unsigned)__builtin_clzll(below));
	return k ? c->w[k - 1].last : NO_START;
}

/* *h for the small block that starts at granule at of chunk c. */
static void small_at(const struct hp_blocks *x, const struct hp_blocks_chunk *c, unsigned at,
		     struct hp_blocks_hit *h)
{
	const struct hp_blocks_word *sw = &c->w[at >> 6];
	unsigned bit = at & 63;
	uint64_t below = sw->starts & ((1ULL << bit) - 1);

	h->start = (c->key << x->cshift) | ((uintptr_t)at << x->gshift);
	h->size = x->sizes[(uint64_t)c->first + sw->before + (uint64_t)hp_blocks_bits_in(below)];
	h->mark = &c->w[at >> 6].marks;
	h->bit = 1ULL << bit;
	h->big = NULL;
}

/* The nearest small start at or below w (in w's chunk, or the last of
 * the chunk before it: a small block is smaller than a chunk): 1 and *h
 * (its mark, start and size), or 0. */
static int small_below(const struct hp_blocks *x, uintptr_t w, struct hp_blocks_hit *h)
{
	uintptr_t key = w >> x->cshift;
	const struct hp_blocks_chunk *c = chunk_of(x, key);
	unsigned at = c ? start_below_in(x, c, w) : NO_START;   /* the start's granule in c */

	if (at == NO_START) {
		c = chunk_of(x, key - 1);
		if (!c || c->w[HP_BLOCKS_WORDS - 1].last == NO_START)
			return 0;
		at = c->w[HP_BLOCKS_WORDS - 1].last;
	}
	small_at(x, c, at, h);
	return 1;
}

/* How many big blocks start below a (sorted by start). */
static uint64_t big_rank(const struct hp_blocks *x, uintptr_t a)
{
	uint64_t lo = 0, hi = x->nbig;

	while (lo < hi) {
		uint64_t m = lo + (hi - lo) / 2;
		if (x->big[m].start < a)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* The last big block that starts at or below w, or NULL. */
static struct hp_blocks_big *big_below(const struct hp_blocks *x, uintptr_t w)
{
	uint64_t n = w == UINTPTR_MAX ? x->nbig : big_rank(x, w + 1);

	return n ? &x->big[n - 1] : NULL;
}

static int holds(uintptr_t start, uint64_t size, uintptr_t w)
{
	return w - start < (size ? size : 1);
}

int hp_blocks_find_slow(const struct hp_blocks *x, uintptr_t w, struct hp_blocks_hit *h)
{
	if (x->nchunks && small_below(x, w, h) && holds(h->start, h->size, w))
		return 1;
	struct hp_blocks_big *b = x->nbig ? big_below(x, w) : NULL;
	if (!b || !holds(b->start, b->size, w))
		return 0;
	h->start = b->start;
	h->size = b->size;
	h->mark = NULL;
	h->bit = 0;
	h->big = b;
	return 1;
}

int hp_blocks_find_unmarked_slow(const struct hp_blocks *x, uintptr_t w, struct hp_blocks_hit *h)
{
	uintptr_t key = w >> x->cshift;
	const struct hp_blocks_chunk *c;

	if (key - x->near_lo < x->near_n)
		c = x->near[key - x->near_lo];   /* NULL: none, or a big block there */
	else
		c = x->nchunks ? chunk_of(x, key) : NULL;
	/* In a chunk no big block overlaps, the nearest start at or below w
	 * in the chunk is the only block that may hold w: when it is marked
	 * there is nothing to do, whether it holds w or w lies past its end
	 * (its size is not read: a second miss of the cache). */
	if (c && !c->bigs) {
		uint64_t g = (w >> x->gshift) & (HP_BLOCKS_GRANULES - 1);
		struct hp_blocks_word *sw = &c->w[g >> 6];
		uint64_t below = sw->starts & (~0ULL >> (63 - (g & 63)));
		if (below) {   /* a start in w's own word of the chunk: most */
			unsigned bit = 63 - (unsigned)__builtin_clzll(below);
			if (sw->marks & (1ULL << bit))
				return 0;
			h->start = (w & ~(((uintptr_t)64 << x->gshift) - 1)) | ((uintptr_t)bit << x->gshift);
			h->size = x->sizes[(uint64_t)c->first + sw->before +
					   (uint64_t)hp_blocks_bits_in(below & ~(1ULL << bit))];
			h->mark = &sw->marks;
			h->bit = 1ULL << bit;
			h->big = NULL;
			return holds(h->start, h->size, w);
		}
		unsigned at = start_below_in(x, c, w);
		if (at != NO_START) {
			if (c->w[at >> 6].marks & (1ULL << (at & 63)))
				return 0;
			small_at(x, c, at, h);
			return holds(h->start, h->size, w);
		}
	}
	return hp_blocks_find_slow(x, w, h) && !hp_blocks_marked(h);
}

/* The first chunk, in address order, whose key is at least key: its
 * position in x->sorted, or nchunks. */
static uint32_t sorted_from(const struct hp_blocks *x, uintptr_t key)
{
	uint32_t lo = 0, hi = x->nchunks;

	while (lo < hi) {
		uint32_t m = lo + (hi - lo) / 2;
		if (x->chunks[x->sorted[m]].key < key)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}


/* The first start in chunk c from granule g on, or 0; m: the memo of
 * the last answer, or NULL. */
static uintptr_t chunk_from(const struct hp_blocks *x, const struct hp_blocks_chunk *c, uint64_t g,
			    struct chunk_memo *m)
{
	uintptr_t base = c->key << x->cshift;
	struct chunk_memo none;

	if (!m)
		m = &none;
	else if (m->c == c && g >= m->g && g <= m->found)
		return m->found < HP_BLOCKS_GRANULES ? base | (m->found << x->gshift) : 0;
	m->c = c;
	m->g = g;
	m->found = HP_BLOCKS_GRANULES;
	for (uint64_t k = g >> 6; k < HP_BLOCKS_WORDS && g < HP_BLOCKS_GRANULES; k++) {
		uint64_t bits = c->w[k].starts;
		if (k == g >> 6)
			bits &= ~0ULL << (g & 63);
		if (bits) {
			m->found = k * 64 + (unsigned)__builtin_ctzll(bits);
			return base | (m->found << x->gshift);
		}
	}
	return 0;
}

/* The first small start in [a, hi), or 0 (no block starts at 0): in a's
 * chunk, found by its hash, then in the chunks after it, in order. */
static uintptr_t small_from(const struct hp_blocks *x, uintptr_t a, uintptr_t hi, struct chunk_memo *m)
{
	uintptr_t key = a >> x->cshift, s = 0;
	const struct hp_blocks_chunk *c = chunk_of(x, key);

	if (c) {
		uint64_t g = (a >> x->gshift) & (HP_BLOCKS_GRANULES - 1);
		if (a & (((uintptr_t)1 << x->gshift) - 1))
			g++;   /* a start is on a granule: the next one */
		s = chunk_from(x, c, g, m);
	}
	for (uint32_t i = s ? x->nchunks : sorted_from(x, key + 1); i < x->nchunks && !s; i++) {
		c = &x->chunks[x->sorted[i]];
		if ((c->key << x->cshift) >= hi)
			return 0;
		s = chunk_from(x, c, 0, m);
	}
	return s < hi ? s : 0;
}

/* The first big block that starts at or after a, or NULL. */
static const struct hp_blocks_big *big_from(const struct hp_blocks *x, uintptr_t a)
{
	uint64_t n = big_rank(x, a);

	return n < x->nbig ? &x->big[n] : NULL;
}

int hp_blocks_next(const struct hp_blocks *x, uintptr_t a, uintptr_t hi, uintptr_t *start,
		   uint64_t *size)
{
	struct hp_blocks_hit h;

	if (!x->nblocks || a >= x->hi || hi <= x->lo || a >= hi)
		return 0;
	/* The block that holds a, if it ends after it. */
	if (hp_blocks_find_slow(x, a, &h) && h.start + h.size > a) {
		*start = h.start;
		*size = h.size;
		return 1;
	}
	/* Else the first to start after a. */
	uintptr_t s = x->nchunks ? small_from(x, a, hi, &memo) : 0;
	const struct hp_blocks_big *b = x->nbig ? big_from(x, a + 1) : NULL;
	if (b && b->start < hi && (!s || b->start < s)) {
		*start = b->start;
		*size = b->size;
		return 1;
	}
	if (!s)
		return 0;
	if (s == a)   /* a zero-sized block at a, which ends there: the next */
		return hp_blocks_next(x, a + 1, hi, start, size);
	if (!hp_blocks_find_slow(x, s, &h))
		return 0;
	*start = h.start;
	*size = h.size;
	return 1;
}

static int starts_in(const struct hp_blocks *x, uintptr_t lo, uintptr_t hi, struct chunk_memo *m)
{
	if (!x->nblocks || lo >= x->hi || hi <= x->lo || lo >= hi)
		return 0;
	if (x->nchunks && small_from(x, lo, hi, m))
		return 1;
	const struct hp_blocks_big *b = x->nbig ? big_from(x, lo) : NULL;
	return b && b->start < hi;
}

int hp_blocks_starts_in(const struct hp_blocks *x, uintptr_t lo, uintptr_t hi)
{
	return starts_in(x, lo, hi, &memo);
}

int hp_blocks_starts_in_beside(const struct hp_blocks *x, uintptr_t lo, uintptr_t hi)
{
	return starts_in(x, lo, hi, NULL);
}

/* Whether a block starts strictly between granules g and g2 of ch. */
static int starts_between(const struct hp_blocks_chunk *ch, uint64_t g, uint64_t g2)
{
	uint64_t k = g >> 6, k2 = g2 >> 6;
	uint64_t above = ~0ULL << (g & 63) << 1, below = (1ULL << (g2 & 63)) - 1;

	if (k == k2)
		return (ch->w[k].starts & above & below) != 0;
	if (ch->w[k].starts & above)
		return 1;
	for (uint64_t i = k + 1; i < k2; i++)
		if (ch->w[i].starts)
			return 1;
	return (ch->w[k2].starts & below) != 0;
}

uintptr_t hp_blocks_glibc_run(const struct hp_blocks *x, uintptr_t c, uintptr_t hi)
{
	const uintptr_t W = sizeof(uintptr_t);

	if (x->gshift != 4 || !x->nchunks)
		return c;
	uintptr_t key = (c + 2 * W) >> x->cshift;
	const struct hp_blocks_chunk *ch = chunk_of(x, key);
	if (!ch)
		return c;
	uint64_t g = ((c + 2 * W) >> x->gshift) & (HP_BLOCKS_GRANULES - 1), k = g >> 6;
	if (!(ch->w[k].starts & (1ULL << (g & 63))))
		return c;
	/* The run stays in one chunk of the index: its blocks' ranks follow
	 * each other when no start lies between two of them. */
	uint64_t rank = (uint64_t)ch->first + ch->w[k].before +
			hp_blocks_bits_in(ch->w[k].starts & ((1ULL << (g & 63)) - 1));
	for (;;) {
		uint64_t size = x->sizes[rank];
		uintptr_t chunk = (size + W + 2 * W - 1) & ~(2 * W - 1);   /* request2size */
		if (chunk < 4 * W)
			chunk = 4 * W;
		uint64_t g2 = g + (chunk >> x->gshift), k2 = g2 >> 6;
		if (c + chunk + 6 * W > hi || g2 >= HP_BLOCKS_GRANULES ||
		    !(ch->w[k2].starts & (1ULL << (g2 & 63))))
			return c;
		/* A start between the two would lie in c's chunk: read its
		 * header.  Else the next block has the next rank. */
		if (starts_between(ch, g, g2))
			return c;
		rank++;
		c += chunk;
		g = g2;
		k = k2;
	}
}

void hp_blocks_each_unmarked(const struct hp_blocks *x,
			     void (*fn)(uintptr_t start, uint64_t size, uint32_t tctx, void *arg),
			     void *arg)
{
	uint64_t j = 0;

	for (uint32_t i = 0; i < x->nchunks; i++) {
		const struct hp_blocks_chunk *c = &x->chunks[x->sorted[i]];
		uintptr_t base = c->key << x->cshift;
		for (unsigned k = 0; k < HP_BLOCKS_WORDS; k++) {
			uint64_t bits = c->w[k].starts & ~c->w[k].marks;
			while (bits) {
				unsigned bit = (unsigned)__builtin_ctzll(bits);
				uintptr_t s = base | (((uint64_t)k * 64 + bit) << x->gshift);
				bits &= bits - 1;
				for (; j < x->nbig && x->big[j].start < s; j++)
					if (!x->big[j].marked)
						fn(x->big[j].start, x->big[j].size, x->big[j].tctx, arg);
				uint64_t size;
				uint32_t tctx;
				if (hp_live_find_held(s, &size, &tctx))
					fn(s, size, tctx, arg);
			}
		}
	}
	for (; j < x->nbig; j++)
		if (!x->big[j].marked)
			fn(x->big[j].start, x->big[j].size, x->big[j].tctx, arg);
}
