/*
 * next-filter.c -- unit tests of next/filter: a counting byte per 16 KiB
 * page, modulo 4 GiB of address space; 255 sticks; pinned ranges; the
 * second look, which tells a page's one sampled block from its
 * neighbours.
 *
 * The addresses are never dereferenced: the filter only indexes by them.
 * Nothing else in this program writes the filter.
 */
#include <pthread.h>
#include <stdint.h>

#include "next/filter.h"

#include "tap.h"

#define PAGE ((uintptr_t)1 << HP_FILTER_PAGE_SHIFT)
#define SPAN ((uintptr_t)1 << (HP_FILTER_PAGE_SHIFT + HP_FILTER_BITS))   /* 4 GiB */

static unsigned byte_of(uintptr_t p)
{
	return hp_filter[hp_filter_index(p)];
}

/* Each test's addresses have low 32 bits of their own: pages 4 GiB
 * apart share a byte. */
static void test_counts(void)
{
	uintptr_t p = 0x7f1234564000ULL;   /* a page's first byte */

	ok(!hp_filter_maybe((void *)p) && byte_of(p) == 0, "an untouched page is certainly not ours");
	hp_filter_inc(p);
	ok(hp_filter_maybe((void *)p) && byte_of(p) == 1, "one block: maybe");
	hp_filter_inc(p + 16);
	hp_filter_inc(p + PAGE - 1);
	ok(byte_of(p) == 3 && hp_filter_maybe((void *)(p + 100)), "blocks anywhere in the page count in one byte");
	ok(!hp_filter_maybe((void *)(p + PAGE)) && !hp_filter_maybe((void *)(p - 1)),
	   "the pages either side are not touched");
	hp_filter_dec(p);
	hp_filter_dec(p);
	ok(byte_of(p) == 1 && hp_filter_maybe((void *)p), "counts down");
	hp_filter_dec(p);
	ok(byte_of(p) == 0 && !hp_filter_maybe((void *)p), "back to zero: certainly not ours");
	hp_filter_dec(p);
	ok(byte_of(p) == 0, "a decrement at zero stays at zero");
}

static void test_sticky(void)
{
	uintptr_t p = 0x7f2000300000ULL;

	for (int i = 0; i < 300; i++)
		hp_filter_inc(p);
	ok(byte_of(p) == 255, "counts saturate at 255");
	for (int i = 0; i < 300; i++)
		hp_filter_dec(p);
	ok(byte_of(p) == 255 && hp_filter_maybe((void *)p), "255 sticks: decrements leave it");
}

static void test_alias(void)
{
	uintptr_t p = 0x7f3000204000ULL;

	ok(hp_filter_index(p) == hp_filter_index(p + SPAN) && hp_filter_index(p) == hp_filter_index(p - 3 * SPAN),
	   "pages 4 GiB apart share a byte");
	hp_filter_inc(p);
	ok(hp_filter_maybe((void *)(p + SPAN)) && hp_filter_maybe((void *)(p + 7 * SPAN + 123)),
	   "a block in one page says maybe for its aliases");
	hp_filter_inc(p + SPAN);
	hp_filter_dec(p);
	ok(hp_filter_maybe((void *)p), "the alias's count keeps the shared byte up");
	hp_filter_dec(p + 2 * SPAN);
	ok(!hp_filter_maybe((void *)p) && !hp_filter_maybe((void *)(p + SPAN)), "and both drain it to zero");
}

static void test_pin(void)
{
	uintptr_t a = 0x7f4000010000ULL;
	int pinned = 0;

	hp_filter_pin((void *)a, 5 * PAGE);
	for (uintptr_t q = a; q < a + 5 * PAGE; q += PAGE / 2)
		pinned += byte_of(q) == 255;
	ok(pinned == 10 && !hp_filter_maybe((void *)(a - 1)) && !hp_filter_maybe((void *)(a + 5 * PAGE)),
	   "pin marks exactly the pages of a page-aligned range");
	hp_filter_inc(a);
	hp_filter_dec(a);
	hp_filter_dec(a + PAGE);
	ok(byte_of(a) == 255 && byte_of(a + PAGE) == 255, "pinned pages stay pinned");

	/* The contract says [start, start+len): an unaligned range's last
	 * page too (the one caller, the bootstrap pool, is page-aligned). */
	uintptr_t u = 0x7f4000100800ULL;   /* half a page in */
	hp_filter_pin((void *)u, PAGE);     /* ends half a page into the next page */
	ok(hp_filter_maybe((void *)u) && hp_filter_maybe((void *)(u + PAGE - 1)) &&
	   !hp_filter_maybe((void *)(u + 2 * PAGE)),
	   "pin covers every page an unaligned range touches, and no more");
}

#define ONE_SPAN ((uintptr_t)1 << (HP_FILTER_PAGE_SHIFT + HP_FILTER_ONE_BITS))   /* 64 MiB */

static void test_second_look(void)
{
	uintptr_t p = 0x7f5000403000ULL, q = p + 0x40, r = p + 0x800;

	ok(!hp_filter_second_look((void *)p), "second look: an untouched page is not ours");
	hp_filter_inc(p);
	ok(hp_filter_second_look((void *)p), "second look: a page's one block is maybe");
	ok(!hp_filter_second_look((void *)q) && !hp_filter_second_look((void *)r),
	   "second look: its neighbours in the page are certainly not sampled");
	ok(!hp_filter_second_look((void *)(p + SPAN + 0x40)), "second look: nor are its 4 GiB aliases' blocks");
	hp_filter_inc(q);
	ok(hp_filter_second_look((void *)p) && hp_filter_second_look((void *)q) && hp_filter_second_look((void *)r),
	   "second look: two blocks in the page: maybe for every pointer in it");
	hp_filter_dec(p);
	ok(hp_filter_second_look((void *)q) && !hp_filter_second_look((void *)r) && !hp_filter_second_look((void *)p),
	   "second look: the first of two freed, the second is the one block");
	hp_filter_inc(p);
	hp_filter_dec(p);
	ok(hp_filter_second_look((void *)q) && !hp_filter_second_look((void *)r),
	   "second look: the second of two freed, the first is the one block");
	hp_filter_inc(p);
	hp_filter_inc(r);
	hp_filter_dec(r);
	ok(hp_filter_second_look((void *)p) && hp_filter_second_look((void *)q) && hp_filter_second_look((void *)r),
	   "second look: three down to two: maybe for every pointer");
	hp_filter_dec(p);
	ok(hp_filter_second_look((void *)q) && hp_filter_second_look((void *)r) && hp_filter_second_look((void *)(r + 16)),
	   "second look: down to one of three, which one is not known: maybe still");
	hp_filter_dec(q);
	ok(!hp_filter_second_look((void *)q) && !hp_filter_second_look((void *)p), "second look: none left");
	hp_filter_inc(r);
	ok(hp_filter_second_look((void *)r) && !hp_filter_second_look((void *)p), "second look: a new one block");

	/* Pages 64 MiB apart (glibc's thread arenas' heaps are aligned to
	 * 64 MiB) take slots of their own; so do the pages of two heaps
	 * 128 MiB apart across a 4 GiB boundary, whose indexes xor-folding
	 * matched page for page. */
	uintptr_t t = r + ONE_SPAN;
	hp_filter_inc(t);
	ok(hp_filter_one_slot(hp_filter_index(t)) != hp_filter_one_slot(hp_filter_index(r)) &&
	   !hp_filter_second_look((void *)(r + 16)) && !hp_filter_second_look((void *)(t + 16)) &&
	   hp_filter_second_look((void *)r) && hp_filter_second_look((void *)t),
	   "second look: pages 64 MiB apart each keep their one block");
	hp_filter_dec(t);
	int shared = 0;
	for (uintptr_t k = 0; k < 128; k++)
		for (uintptr_t l = 0; l < 128; l++)
			shared += hp_filter_one_slot(hp_filter_index(0x7f05fc000000ULL + k * PAGE)) ==
				  hp_filter_one_slot(hp_filter_index(0x7f0604000000ULL + l * PAGE));
	ok(shared < 16, "second look: two 2 MiB heaps 128 MiB apart share few slots (%d of 16384 pairs)", shared);

	/* The first page after r's that shares its slot: each byte's one
	 * block overwrites the other's, and the loser's pointers are
	 * maybe. */
	uintptr_t s = r + PAGE;
	while (hp_filter_one_slot(hp_filter_index(s)) != hp_filter_one_slot(hp_filter_index(r)))
		s += PAGE;
	ok(s - r < SPAN, "second look: a page within 4 GiB of r shares its slot");
	hp_filter_inc(s);
	ok(hp_filter_second_look((void *)s) && !hp_filter_second_look((void *)(s + 16)),
	   "second look: a page sharing the slot has its own one block");
	ok(hp_filter_second_look((void *)r) && hp_filter_second_look((void *)(r + 16)),
	   "second look: the page that lost the slot is maybe for every pointer");
	hp_filter_dec(s);
	hp_filter_dec(r);
	ok(!hp_filter_second_look((void *)r) && !hp_filter_second_look((void *)s), "second look: both drained");

	uintptr_t a = 0x7f6000800000ULL;
	hp_filter_pin((void *)a, PAGE);
	ok(hp_filter_second_look((void *)a) && hp_filter_second_look((void *)(a + 64)),
	   "second look: pinned pages are always maybe");

	/* A slot marked unknown holds (inverted) an address of the next
	 * byte, whose index differs from byte 0's in the lowest bit: a page
	 * of byte 0 down to one block of three must still say maybe. */
	uintptr_t z = 0x7f4000000000ULL;   /* 4 GiB-aligned: byte 0 */
	hp_filter_inc(z + 0x100);
	hp_filter_inc(z + 0x200);
	hp_filter_inc(z + 0x300);
	hp_filter_dec(z + 0x100);
	hp_filter_dec(z + 0x200);
	ok(hp_filter_index(z) == 0 && hp_filter_second_look((void *)(z + 0x300)) &&
	   hp_filter_second_look((void *)(z + 0x400)),
	   "second look: a slot marked unknown is not taken for a block of byte 0");
	hp_filter_dec(z + 0x300);
}

/* One thread counts blocks in and out of a page, as the live table's
 * shard lock lets one thread at a time; another, without a lock, must
 * never be told that the page's block it holds is not sampled. */
enum { RACE_ROUNDS = 300000 };
static uintptr_t race_page = 0x7f7000a00000ULL;
static int race_stop;
static long race_rounds;

static void *race_writer(void *arg)
{
	uintptr_t q = race_page + 0x100, r = race_page + 0x2000;

	while (!__atomic_load_n(&race_stop, __ATOMIC_RELAXED)) {
		hp_filter_inc(q);
		hp_filter_inc(r);
		hp_filter_dec(q);
		hp_filter_dec(r);
		hp_filter_inc(r);
		hp_filter_dec(r);
		__atomic_add_fetch(&race_rounds, 1, __ATOMIC_RELAXED);
	}
	return arg;
}

static void test_second_look_race(void)
{
	uintptr_t held = race_page + 0x1000;
	pthread_t th;
	long missed = 0, looks = 0;

	hp_filter_inc(held);   /* a live sampled block, counted before its free */
	pthread_create(&th, NULL, race_writer, NULL);
	while (__atomic_load_n(&race_rounds, __ATOMIC_RELAXED) < RACE_ROUNDS) {
		missed += !hp_filter_second_look((void *)held);
		looks++;
	}
	__atomic_store_n(&race_stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	ok(!missed, "second look under a writer's %d rounds: a live block is never cleared (%ld of %ld looks)",
	   RACE_ROUNDS, missed, looks);
	hp_filter_dec(held);
	ok(!hp_filter_maybe((void *)held), "second look under a writer: the page drains");
}

int main(void)
{
	test_counts();
	test_sticky();
	test_alias();
	test_pin();
	test_second_look();
	test_second_look_race();
	return done_testing();
}
