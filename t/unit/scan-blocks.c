/*
 * scan-blocks.c -- unit tests of scan/blocks: the leak scan's index of the
 * recorded blocks against a sorted list, on a made-up address space: a
 * dense glibc-like heap of chunks (some larger than their blocks need,
 * some unrecorded), a sparse region, big blocks and blocks off the
 * 16-byte granule.  Nothing there is ever read: the index only knows
 * addresses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/pages.h"
#include "record/live.h"
#include "scan/blocks.h"
#include "scan/pair.h"

#include "tap.h"

#define HEAP   0x7e0000000000ULL   /* chunks laid end to end */
#define SPARSE 0x7e0040000000ULL   /* a block here and there (1 GiB above: the
				    * index looks chunks up by key over glibc,
				    * through its hash with 8-byte granules) */
#define EDGE   0x7e01c0000000ULL   /* blocks at the last granule of a chunk
				    * (7 GiB above: glibc's chunks still
				    * looked up by key) */
#define DENSE  0x7e0400000000ULL   /* 300,000 blocks 48 bytes apart: a table
				    * large enough for the index's second
				    * thread (scan/pair.h) */
#define NDENSE 300000
#define NEDGE  8
#define MAXB   (40000 + NDENSE)

struct blk {
	uintptr_t start;
	uint64_t size;
};

static struct blk blocks[MAXB];
static int nblocks;
/* The heap's chunks: their starts, and whether their block is recorded. */
static uintptr_t chunk_at[MAXB];
static int recorded[MAXB];
static int nchunk;
static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

static int by_start(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void add(uintptr_t start, uint64_t size)
{
	blocks[nblocks].start = start;
	blocks[nblocks].size = size;
	nblocks++;
	hp_live_insert((void *)start, size, 1);
}

static void layout(void)
{
	uintptr_t c = HEAP;

	/* 20000 chunks of glibc's heap: request2size of a size, a tenth of
	 * them 16 or 32 bytes larger, one in seven not recorded, and a few
	 * large ones (big blocks of the index). */
	for (int i = 0; i < 20000; i++) {
		uint64_t n = next_rand() % 300;
		if (i % 997 == 0)
			n = 70000 + next_rand() % 10000;
		uint64_t size = (n + 8 + 15) & ~15ULL;
		if (size < 32)
			size = 32;
		if (next_rand() % 10 == 0)
			size += 16 * (1 + next_rand() % 2);
		chunk_at[nchunk] = c;
		recorded[nchunk] = next_rand() % 7 != 0;
		if (recorded[nchunk])
			add(c + 16, n);
		nchunk++;
		c += size;
	}
	chunk_at[nchunk] = c;   /* the top chunk */
	/* The sparse region: blocks 1 to 3 MiB apart, some off the granule. */
	uintptr_t a = SPARSE;
	for (int i = 0; i < 2000; i++) {
		a += (1 + next_rand() % 3) << 20;
		add(a + (next_rand() % 2) * 8, next_rand() % 5000);
	}
	/* Blocks that start at a chunk's last granule and run into the next
	 * chunk: 16 bytes before a MiB (glibc's last granule), 8 before (the
	 * last of 8-byte granules, off glibc's: a big block there). */
	for (int k = 0; k < NEDGE; k++)
		add(EDGE + ((uintptr_t)(2 * k + 1) << 20) - (k % 2 ? 8 : 16), 24 + 8 * (uint64_t)k);
	qsort(blocks, (size_t)nblocks, sizeof(*blocks), by_start);
}

/* The block holding w in the sorted list, or -1. */
static int holder(uintptr_t w)
{
	int lo = 0, hi = nblocks;

	while (lo < hi) {
		int m = (lo + hi) / 2;
		if (blocks[m].start <= w)
			lo = m + 1;
		else
			hi = m;
	}
	if (!lo)
		return -1;
	const struct blk *b = &blocks[lo - 1];
	return w - b->start < (b->size ? b->size : 1) ? lo - 1 : -1;
}

static uintptr_t probe(void)
{
	const struct blk *b = &blocks[next_rand() % (uint64_t)nblocks];
	switch (next_rand() % 4) {
	case 0: return b->start;
	case 1: return b->start + next_rand() % (b->size + 64);
	case 2: return b->start - next_rand() % 4096;
	default: return (next_rand() % 2 ? HEAP : SPARSE) + next_rand() % (64ULL << 20);
	}
}

static void test_find(struct hp_blocks *x)
{
	int bad = 0, hits = 0;

	for (int i = 0; i < 400000; i++) {
		uintptr_t w = probe();
		struct hp_blocks_hit h;
		int want = holder(w), got = hp_blocks_find(x, w, &h);
		if (got != (want >= 0) || (got && (h.start != blocks[want].start || h.size != blocks[want].size)))
			bad++;
		hits += got;
	}
	ok(bad == 0, "the block that holds an address, as a sorted list finds it (%d of 400000 held)", hits);
}

/* The blocks at a chunk's last granule, found from their first byte and
 * from their last (in the next chunk), marked or not. */
static void test_edge(struct hp_blocks *x, int glibc)
{
	int bad = 0;

	for (int k = 0; k < NEDGE; k++) {
		uintptr_t start = EDGE + ((uintptr_t)(2 * k + 1) << 20) - (k % 2 ? 8 : 16);
		uint64_t size = 24 + 8 * (uint64_t)k;
		uintptr_t probes[] = { start, start + size / 2, start + size - 1 };
		for (unsigned i = 0; i < 3; i++) {
			struct hp_blocks_hit h;
			int got = hp_blocks_find(x, probes[i], &h);
			if (!got || h.start != start || h.size != size) {
				diag("%s: %#lx in the block at %#lx: find gave %d %#lx", glibc ? "glibc" : "8-byte",
				     (unsigned long)probes[i], (unsigned long)start, got, got ? (unsigned long)h.start : 0UL);
				bad++;
			}
			got = hp_blocks_find_unmarked(x, probes[i], &h);
			if (!got || h.start != start || h.size != size) {
				diag("%s: %#lx in the block at %#lx: find_unmarked gave %d", glibc ? "glibc" : "8-byte",
				     (unsigned long)probes[i], (unsigned long)start, got);
				bad++;
			}
		}
	}
	ok(bad == 0, "%s: blocks that start at a chunk's last granule, found from both chunks",
	   glibc ? "glibc" : "8-byte granules");
}

static void test_next(struct hp_blocks *x)
{
	int bad = 0, in = 0;

	for (int i = 0; i < 200000; i++) {
		uintptr_t a = probe(), hi = a + 1 + next_rand() % 8192;
		/* the first block ending after a, if it starts before hi */
		int lo = 0, h = nblocks, want;
		while (lo < h) {
			int m = (lo + h) / 2;
			if (blocks[m].start + blocks[m].size <= a)
				lo = m + 1;
			else
				h = m;
		}
		want = lo < nblocks && blocks[lo].start < hi ? lo : -1;
		uintptr_t s;
		uint64_t n;
		int got = hp_blocks_next(x, a, hi, &s, &n);
		if (got != (want >= 0) || (got && (s != blocks[want].start || n != blocks[want].size))) {
			if (!bad)
				diag("next(%#lx, %#lx): got %d %#lx, want %#lx", (unsigned long)a, (unsigned long)hi, got,
				     got ? (unsigned long)s : 0UL, want >= 0 ? (unsigned long)blocks[want].start : 0UL);
			bad++;
		}
		/* whether one starts in [a, hi) */
		for (lo = 0, h = nblocks; lo < h;) {
			int m = (lo + h) / 2;
			if (blocks[m].start < a)
				lo = m + 1;
			else
				h = m;
		}
		int any = lo < nblocks && blocks[lo].start < hi;
		if (hp_blocks_starts_in(x, a, hi) != any) {
			if (!bad)
				diag("starts_in(%#lx, %#lx): want %d", (unsigned long)a, (unsigned long)hi, any);
			bad++;
		}
		in += any;
	}
	ok(bad == 0, "the next block after an address and whether one starts in a range (%d of 200000)", in);
}

static void test_run(struct hp_blocks *x)
{
	int bad = 0, skipped = 0;

	for (int i = 0; i < nchunk; i++) {
		uintptr_t r = hp_blocks_glibc_run(x, chunk_at[i], chunk_at[nchunk]);
		int j = i;
		while (j < nchunk && chunk_at[j] < r)
			j++;
		/* r is a chunk's start, and every chunk passed is recorded */
		if (j == nchunk || chunk_at[j] != r)
			bad++;
		for (int k = i; k < j; k++)
			bad += !recorded[k];
		skipped += j - i;
	}
	ok(bad == 0, "glibc's heap walked past recorded chunks lands on chunks only (%d passed)", skipped);
	ok(skipped > nchunk, "and does pass runs of them");
}

static char marked[MAXB];
static int seen, seen_bad, seen_at;

static void each(uintptr_t s, uint64_t size, uint32_t tctx, void *arg)
{
	(void)arg;
	while (seen_at < nblocks && marked[seen_at])
		seen_at++;
	seen_bad += seen_at >= nblocks || blocks[seen_at].start != s || blocks[seen_at].size != size ||
		    tctx != 1;
	seen_at++;
	seen++;
}

static void test_unmarked(struct hp_blocks *x)
{
	int want = 0;

	for (int k = 0; k < nblocks; k++) {
		struct hp_blocks_hit h;
		if (next_rand() % 3 == 0 && hp_blocks_find(x, blocks[k].start, &h)) {
			hp_blocks_set_mark(x, &h);
			marked[k] = 1;
		}
		want += !marked[k];
	}
	hp_blocks_each_unmarked(x, each, NULL);
	ok(seen_bad == 0 && seen == want, "the unmarked blocks, in address order (%d of %d)", seen, nblocks);
}

/* After test_unmarked: the block that holds an address when it is not
 * marked, as the sorted list and the marks say. */
static void test_find_unmarked(struct hp_blocks *x)
{
	int bad = 0, hits = 0, held = 0;

	for (int i = 0; i < 400000; i++) {
		uintptr_t w = probe();
		struct hp_blocks_hit h;
		int k = holder(w), want = k >= 0 && !marked[k], got = hp_blocks_find_unmarked(x, w, &h);
		if (got != want || (got && (h.start != blocks[k].start || h.size != blocks[k].size)))
			bad++;
		hits += got;
		held += k >= 0;
	}
	ok(bad == 0 && hits > 0 && hits < held,
	   "the block that holds an address if it is not marked (%d of 400000 held, %d of them unmarked)", held,
	   hits);
}

/* Grows the live table well past the blocks, then takes the extra
 * records out again: a table that holds few records for its size, which
 * the index reads once (a program that freed most of its heap). */
static int make_sparse(void)
{
	const uintptr_t far = 0x7e8000000000ULL;
	uint64_t size, table, peak;
	uint32_t tctx;
	int bad = 0;

	for (uintptr_t i = 0; i < 400000; i++)
		bad += !hp_live_insert((void *)(far + 32 * i), 24, 2);
	for (uintptr_t i = 0; i < 400000; i++)
		bad += hp_live_remove((void *)(far + 32 * i), &size, &tctx) != HP_LIVE_REMOVED;
	hp_live_table_bytes(&table, &peak);
	return !bad && hp_live_records() == (uint64_t)nblocks && hp_live_records() * 16 <= table / 4;
}

/* The dense region's blocks, into the table and the sorted list. */
static void add_dense(void)
{
	for (uintptr_t i = 0; i < NDENSE; i++)
		add(DENSE + 48 * i, 24 + next_rand() % 17);
	qsort(blocks, (size_t)nblocks, sizeof(*blocks), by_start);
}

int main(void)
{
	layout();
	/* Over glibc (16-byte granules), then another allocator (8), then
	 * glibc again over a sparse table, then over a table large enough
	 * for two threads. */
	for (int round = 0; round < 4; round++) {
		int glibc = round != 1;
		if (round == 2)
			ok(make_sparse(), "the table made sparse: %d records in it", nblocks);
		if (round == 3)
			add_dense();
		struct hp_blocks x;
		hp_live_prefork();
		hp_pages_registry_lock();
		int err = hp_blocks_build(&x, glibc, 0, 0, hp_pair_possible());
		ok(err == 0 && x.nblocks == (uint64_t)nblocks && x.nbig > 0 && x.nchunks > 1 &&
		   (x.near != NULL) == (glibc && round != 3),
		   "%s: built over %d blocks: %u chunks, %llu big, %s",
		   round == 3 ? "glibc, a large table" : round == 2 ? "glibc, a sparse table" : glibc ? "glibc" : "8-byte granules",
		   nblocks, x.nchunks,
		   (unsigned long long)x.nbig, x.near ? "chunks by key" : "chunks by hash");
		if (round == 3)
			ok(x.threads == (hp_pair_possible() ? 2u : 1u), "%d blocks: the index built on %u thread(s)",
			   nblocks, x.threads);
		test_find(&x);
		test_edge(&x, glibc);
		test_next(&x);
		if (glibc)
			test_run(&x);
		memset(marked, 0, sizeof(marked));
		seen = seen_bad = seen_at = 0;
		test_unmarked(&x);
		test_find_unmarked(&x);
		hp_pages_registry_unlock();
		hp_live_postfork_parent();
		hp_blocks_release(&x);
	}
	return done_testing();
}
