/*
 * filter.c -- the page filter (see filter.h).
 *
 * Owns hp_filter, hp_filter_one and hp_filter_two.  Never allocates; safe on any thread, before
 * everything else is initialised.
 */
#include "next/filter.h"
#include "base/banned.h"

uint8_t hp_filter[1u << HP_FILTER_BITS];
uintptr_t hp_filter_one[1u << HP_FILTER_ONE_BITS];
uintptr_t hp_filter_two[1u << HP_FILTER_ONE_BITS];

void hp_filter_pin(const void *start, size_t len)
{
	uintptr_t page = (uintptr_t)1 << HP_FILTER_PAGE_SHIFT;
	uintptr_t a = (uintptr_t)start & ~(page - 1), end = (uintptr_t)start + len;

	/* From the page that holds start: an unaligned range's last page is
	 * covered too. */
	for (uintptr_t p = a; p < end; p += page)
		HP_STORE(&hp_filter[hp_filter_index(p)], 255);
}
