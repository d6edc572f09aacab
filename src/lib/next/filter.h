/*
 * filter.h -- the page filter: which pointers free() must not hand straight
 * to the next allocator.
 *
 * A byte per 4 KiB page (modulo 1 GiB of address space: 256 KiB, which
 * every process maps at load, so it stays small -- at 1 MiB a program
 * that starts under a 4 MiB RLIMIT_AS could not be loaded).  It counts the
 * live sampled blocks that start in the page (record/live.c keeps the
 * counts), and pages of heapprof's bootstrap pool are pinned at 255
 * (next/next.c), because a pool block must never reach the next
 * allocator's free.  free() and realloc() read it on every call: one load,
 * no lock; a zero byte means "certainly nothing of ours", anything else
 * sends the call to the slow path, where the live table answers exactly.
 *
 * It lives in the next-allocator layer because both the bootstrap pool
 * (here) and the live table (above) write it; the interposed functions
 * (intercept/) read it.
 */
#ifndef HP_FILTER_H
#define HP_FILTER_H

#pragma GCC visibility push(hidden)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

#define HP_FILTER_BITS 18      /* 2^18 pages of 4 KiB: 1 GiB */
#define HP_FILTER_PAGE_SHIFT 12

extern uint8_t hp_filter[1u << HP_FILTER_BITS];

HP_INLINE size_t hp_filter_index(uintptr_t p)
{
	return (p >> HP_FILTER_PAGE_SHIFT) & ((1u << HP_FILTER_BITS) - 1);
}

/* The free() fast-path test: false means "certainly not sampled".  A
 * relaxed load (a plain byte load on every target): the byte changes
 * under other threads' feet, by design. */
HP_INLINE bool hp_filter_maybe(const void *p)
{
	uintptr_t i = ((uintptr_t)p >> HP_FILTER_PAGE_SHIFT) &
		      ((1u << HP_FILTER_BITS) - 1);
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__) && !defined(__SANITIZE_THREAD__)
	/* The same one-byte load, compared in place (the compiler will not
	 * fold an atomic load into the compare): one instruction fewer on
	 * every free. */
	bool nz;
	__asm__("cmpb $0, %1" : "=@ccnz"(nz) : "m"(hp_filter[i]));
	return nz;
#else
	return HP_LOAD(&hp_filter[i]) != 0;
#endif
}

/* One more, or one fewer, live sampled block starting in p's page.  The
 * caller serialises updates of each byte (record/live.c: under the lock of
 * the shard that owns the page); relaxed stores keep the lock-free readers
 * tear-free.  255 sticks. */
HP_INLINE void hp_filter_inc(uintptr_t p)
{
	uint8_t *f = &hp_filter[hp_filter_index(p)];
	uint8_t v = HP_LOAD(f);

	if (v != 255)
		HP_STORE(f, (uint8_t)(v + 1));
}

HP_INLINE void hp_filter_dec(uintptr_t p)
{
	uint8_t *f = &hp_filter[hp_filter_index(p)];
	uint8_t v = HP_LOAD(f);

	if (v != 255 && v != 0)
		HP_STORE(f, (uint8_t)(v - 1));
}

/* Marks [start, start+len) as "maybe" forever (the bootstrap pool). */
void hp_filter_pin(const void *start, size_t len);

#pragma GCC visibility pop

#endif
