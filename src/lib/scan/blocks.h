/*
 * blocks.h -- the recorded blocks by address, for the leak scan: the block
 * that contains an address, in constant time, and a mark bit per block.
 *
 * Built from the live table (record/live.h) while the scan holds every
 * shard lock, without copying it: the address space where blocks start is
 * cut into chunks of 65536 granules (16 bytes over glibc, whose blocks
 * are 16-aligned, else 8), found through a small hash of chunk numbers;
 * each chunk has a bit per granule where a block starts, a mark bit per
 * granule, and a count of the blocks before each 64-bit word of starts
 * (interleaved, a word's in one line: struct hp_blocks_word),
 * which ranks a block among all of them: the rank indexes a 16-bit size,
 * and the last start up to each word, so that the nearest start below an
 * address is found in one step.  About 2 bytes per block and 4% (8% at
 * 8-byte granules) of the span the chunks cover, and while it is built 4
 * bytes more per block.  Blocks larger than HP_BLOCKS_SMALL_MAX, or that
 * start off a granule, are kept whole in a sorted side list ("big"), searched
 * by bisection.  The block containing w is the nearest start at or below
 * w, when w lies before its end (blocks never overlap): the nearest small
 * one, else the nearest big one.  Each chunk counts the big blocks over
 * its span: in one with none, marking answers from the chunk's slot alone
 * whenever the nearest start is marked (hp_blocks_find_unmarked).
 *
 * Not thread-safe: one scan builds (on a second thread too, which the
 * build starts and joins: scan/pair.h), reads and marks it; a second
 * thread beside it may ask hp_blocks_starts_in_beside and
 * hp_blocks_glibc_run, which read the starts and sizes alone.  Everything is
 * mapped with hp_pages_alloc_held (the caller holds the pages registry's
 * lock) and freed with hp_blocks_release once that lock is released.
 */
#ifndef HP_BLOCKS_H
#define HP_BLOCKS_H

#pragma GCC visibility push(hidden)

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

#define HP_BLOCKS_GRANULES   65536u          /* a chunk's */
#define HP_BLOCKS_WORDS      (HP_BLOCKS_GRANULES / 64)
#define HP_BLOCKS_SMALL_MAX  65535u          /* larger blocks are big */

/* 64 granules of a chunk: what a look-up there reads, in one line (a
 * scan that chases pointers about the heap misses once here, not once
 * per array). */
struct hp_blocks_word {
	uint64_t starts;     /* a bit per granule where a block starts */
	uint64_t marks;      /* the same bit when that block is marked */
	uint16_t before;     /* the chunk's blocks before this word */
	uint16_t unused;
	uint32_t last;       /* the granule of the chunk's last start up to
			      * this word's end, or 0xffffffff: not a
			      * granule (a block may start at the last one,
			      * 65535) */
};

struct hp_blocks_run;

struct hp_blocks_chunk {
	uintptr_t key;       /* its number: address >> cshift */
	struct hp_blocks_word *w;   /* HP_BLOCKS_WORDS of them */
	/* While the index is built: its small blocks as the pass over the
	 * live table met them (blocks.c), filled in afterwards chunk by
	 * chunk, where each chunk's words are in the cache; a list from
	 * each thread of the pass, and the entries in each. */
	struct hp_blocks_run *runs[2], *run_last;
	uint32_t nrun[2];
	uint32_t first;      /* the rank of its first block */
	uint32_t n;          /* blocks that start in it */
	uint32_t bigs;       /* big blocks that overlap its span */
};

struct hp_blocks_big {
	uintptr_t start;
	uint64_t size;
	uint32_t tctx;
	uint32_t marked;
};

struct hp_blocks_dir {
	uintptr_t key;       /* chunk number + 1; 0: empty */
	uint32_t idx;        /* in chunks */
};

struct hp_blocks {
	unsigned gshift;                 /* log2 of the granule */
	unsigned cshift;                 /* log2 of a chunk's bytes */
	uintptr_t lo, hi;                /* the span of every block */
	struct hp_blocks_chunk *chunks;  /* in the order they were met */
	uint32_t nchunks, chunks_cap;
	uint32_t *sorted;                /* chunk indexes by key */
	/* The chunks no big block overlaps, by key - near_lo, when their
	 * keys span at most HP_BLOCKS_NEAR_MAX (NULL otherwise, and where
	 * no such chunk is): marking's look-up without the hash. */
#define HP_BLOCKS_NEAR_MAX 8192u
	const struct hp_blocks_chunk **near;
	uintptr_t near_lo;
	uint64_t near_n;
	struct hp_blocks_dir *dir;
	uint32_t dir_mask;
	uint16_t *sizes;                 /* a small block's size, by rank */
	uint64_t nsmall;
	struct hp_blocks_big *big;       /* sorted by start */
	uint64_t nbig, big_cap;
	uint64_t nblocks, nmarked;
	unsigned threads;                /* that built it (scan/pair.h) */
	uintptr_t *loader;               /* blocks the dynamic loader made */
	uint64_t nloader, loader_cap;
	/* private: the memory, for hp_blocks_release */
	char *slab, *slab_end;
	size_t slab_bytes;
	struct { void *p; size_t n; } maps[128];
	unsigned nmaps;
	struct hp_blocks *owner;         /* a second thread's share of the
					  * build: maps into owner's */
};

/* The block at an address, as hp_blocks_find gives it. */
struct hp_blocks_hit {
	uintptr_t start;
	uint64_t size;
	uint64_t *mark;      /* its mark word and bit (a chunk's), or */
	uint64_t bit;
	struct hp_blocks_big *big;   /* its entry in the side list */
};

/* Builds the index from the live table; the caller holds every shard
 * lock and the pages registry's lock.  glibc: the blocks are glibc's
 * (16-aligned).  ld_lo, ld_hi: the dynamic loader's text; the blocks
 * whose stack's first frame lies there are listed in x->loader.  pair: a
 * large table's may be read on two threads (the caller found that
 * hp_pair_possible, scan/pair.h).  Returns 0, or
 * ENOMEM (then hp_blocks_release frees what was mapped). */
int hp_blocks_build(struct hp_blocks *x, int glibc, uintptr_t ld_lo, uintptr_t ld_hi, int pair);

/* Unmaps everything; the caller no longer holds the registry's lock. */
void hp_blocks_release(struct hp_blocks *x);

/* The block that contains w (its start, or any byte before its end; a
 * zero-sized block holds its first byte): 1 and *h, or 0. */
int hp_blocks_find_slow(const struct hp_blocks *x, uintptr_t w, struct hp_blocks_hit *h);

HP_INLINE int hp_blocks_find(const struct hp_blocks *x, uintptr_t w, struct hp_blocks_hit *h)
{
	if (w - x->lo >= x->hi - x->lo)
		return 0;
	return hp_blocks_find_slow(x, w, h);
}

/* The block that contains w, as hp_blocks_find gives it, when it is not
 * marked yet: 1 and *h; else 0 (no block holds w, or the one that does
 * is marked).  What marking asks of every word that points into the
 * blocks' span, most of which point into blocks marked already or into
 * freed memory between blocks: in a chunk that no big block overlaps,
 * the nearest start below w, when it is marked, answers without the
 * block's size. */
int hp_blocks_find_unmarked_slow(const struct hp_blocks *x, uintptr_t w, struct hp_blocks_hit *h);

#define HP_BLOCKS_NO_START 0xffffffffu   /* hp_blocks_word.last: none */

/* Bits set in x: the instruction where the build may use it, else the
 * bit-twiddling sum (libgcc's is a call). */
HP_INLINE unsigned hp_blocks_bits_in(uint64_t x)
{
#ifdef __POPCNT__
	return (unsigned)__builtin_popcountll(x);
#else
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned)((x * 0x0101010101010101ULL) >> 56);
#endif
}

/* hp_blocks_find_unmarked, inline for what most of marking's look-ups
 * meet: a chunk of the near table that no big block overlaps, where the
 * nearest start at or below w is the only block that may hold w.  When
 * that start is marked, nothing is to do, and its size is not read (a
 * second miss of the cache); when it lies in w's own word of the chunk,
 * the block is read from there.  Else the call answers. */
HP_INLINE int hp_blocks_find_unmarked(const struct hp_blocks *x, uintptr_t w, struct hp_blocks_hit *h)
{
	if (w - x->lo >= x->hi - x->lo)
		return 0;
	uintptr_t key = w >> x->cshift;
	const struct hp_blocks_chunk *c = key - x->near_lo < x->near_n ? x->near[key - x->near_lo] : NULL;
	if (!c || c->bigs)
		return hp_blocks_find_unmarked_slow(x, w, h);
	uint64_t g = (w >> x->gshift) & (HP_BLOCKS_GRANULES - 1);
	struct hp_blocks_word *sw = &c->w[g >> 6];
	uint64_t below = sw->starts & (~0ULL >> (63 - (g & 63)));
	if (!below) {
		uint32_t at = g >> 6 ? sw[-1].last : HP_BLOCKS_NO_START;
		if (at != HP_BLOCKS_NO_START && ((c->w[at >> 6].marks >> (at & 63)) & 1))
			return 0;
		return hp_blocks_find_unmarked_slow(x, w, h);
	}
	unsigned bit = 63 - (unsigned)__builtin_clzll(below);
	if ((sw->marks >> bit) & 1)
		return 0;
	h->start = (w & ~(((uintptr_t)64 << x->gshift) - 1)) | ((uintptr_t)bit << x->gshift);
	h->size = x->sizes[(uint64_t)c->first + sw->before + hp_blocks_bits_in(below & ~(1ULL << bit))];
	h->mark = &sw->marks;
	h->bit = 1ULL << bit;
	h->big = NULL;
	return w - h->start < (h->size ? h->size : 1);
}

HP_INLINE int hp_blocks_marked(const struct hp_blocks_hit *h)
{
	return h->mark ? (*h->mark & h->bit) != 0 : h->big->marked;
}

HP_INLINE void hp_blocks_set_mark(struct hp_blocks *x, const struct hp_blocks_hit *h)
{
	if (h->mark)
		*h->mark |= h->bit;
	else
		h->big->marked = 1;
	x->nmarked++;
}

/* The first block, in address order, that ends after a and starts before
 * hi (a zero-sized block ends where it starts): 1 and *start, *size, or
 * 0. */
int hp_blocks_next(const struct hp_blocks *x, uintptr_t a, uintptr_t hi, uintptr_t *start,
		   uint64_t *size);

/* Whether a block starts in [lo, hi). */
int hp_blocks_starts_in(const struct hp_blocks *x, uintptr_t lo, uintptr_t hi);
/* The same from a second thread beside the scan's (scan/pair.h): without
 * the memo of the last answer, which is the scan's thread's (a walk of a
 * heap where few blocks are recorded, at a sampled rate, asks it of the
 * same chunk again and again; in exact mode, most chunks are recorded
 * blocks, which hp_blocks_glibc_run passes by). */
int hp_blocks_starts_in_beside(const struct hp_blocks *x, uintptr_t lo, uintptr_t hi);

/* glibc's main heap, walked from chunk c (below hi): the first chunk of
 * the run of recorded blocks laid end to end from c on that is not
 * followed by another, found in the index without reading the heap; c
 * itself when no recorded block starts at its user address.  A chunk
 * whose block is recorded with n bytes and is followed, n rounded to a
 * chunk (request2size) later, by another recorded block's chunk is
 * exactly that size: a larger one would hold that block.  Only over
 * glibc (16-byte granules); else c. */
uintptr_t hp_blocks_glibc_run(const struct hp_blocks *x, uintptr_t c, uintptr_t hi);

/* Calls fn for each block not marked, in address order, with its size and
 * counter context; the caller still holds every shard lock. */
void hp_blocks_each_unmarked(const struct hp_blocks *x,
			     void (*fn)(uintptr_t start, uint64_t size, uint32_t tctx, void *arg),
			     void *arg);

#pragma GCC visibility pop

#endif
