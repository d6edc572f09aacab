/*
 * filter.c -- the page filter (see filter.h).
 *
 * Owns hp_filter.  Never allocates; safe on any thread, before
 * everything else is initialised.
 */
#include "next/filter.h"
#include "base/banned.h"

uint8_t hp_filter[1u << HP_FILTER_BITS];

void hp_filter_pin(const void *start, size_t len)
{
	uintptr_t a = (uintptr_t)start;

	for (uintptr_t p = a; p < a + len; p += (1u << HP_FILTER_PAGE_SHIFT))
		HP_STORE(&hp_filter[hp_filter_index(p)], 255);
}
