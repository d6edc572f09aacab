/*
 * next-filter.c -- unit tests of next/filter: a counting byte per 4 KiB
 * page, modulo 1 GiB of address space; 255 sticks; pinned ranges.
 *
 * The addresses are never dereferenced: the filter only indexes by them.
 * Nothing else in this program writes the filter.
 */
#include <stdint.h>

#include "next/filter.h"

#include "tap.h"

#define PAGE ((uintptr_t)1 << HP_FILTER_PAGE_SHIFT)
#define SPAN ((uintptr_t)1 << (HP_FILTER_PAGE_SHIFT + HP_FILTER_BITS))   /* 1 GiB */

static unsigned byte_of(uintptr_t p)
{
	return hp_filter[hp_filter_index(p)];
}

static void test_counts(void)
{
	uintptr_t p = 0x7f1234567000ULL;

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
	uintptr_t p = 0x7f2000000000ULL;

	for (int i = 0; i < 300; i++)
		hp_filter_inc(p);
	ok(byte_of(p) == 255, "counts saturate at 255");
	for (int i = 0; i < 300; i++)
		hp_filter_dec(p);
	ok(byte_of(p) == 255 && hp_filter_maybe((void *)p), "255 sticks: decrements leave it");
}

static void test_alias(void)
{
	uintptr_t p = 0x7f3000005000ULL;

	ok(hp_filter_index(p) == hp_filter_index(p + SPAN) && hp_filter_index(p) == hp_filter_index(p - 3 * SPAN),
	   "pages 1 GiB apart share a byte");
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

int main(void)
{
	test_counts();
	test_sticky();
	test_alias();
	test_pin();
	return done_testing();
}
