/*
 * filter.h -- the page filter: which pointers free() must not hand straight
 * to the next allocator.
 *
 * A byte per 16 KiB "page" of the low 4 GiB of address space (addresses
 * 4 GiB apart share a byte): 256 KiB, which every process maps at load,
 * so it stays small -- at 1 MiB a program that starts under a 4 MiB
 * RLIMIT_AS could not be loaded.  The index is the address's low 32 bits
 * shifted, no mask: free()'s test is six instructions on x86_64.  It
 * counts the live sampled blocks that start in the page (record/live.c
 * keeps the counts), and pages of heapprof's bootstrap pool are pinned
 * at 255 (next/next.c), because a pool block must never reach the next
 * allocator's free.  free() and realloc() read it on every call: one
 * load, no lock; a zero byte means "certainly nothing of ours", anything
 * else sends the call on.
 *
 * Most pointers the byte sends on are not sampled: they share a page
 * with one sampled block (on an allocation loop, three to six times as
 * many frees as the sampled ones).  A second look, out of line, tells
 * most of them apart before the slow path's lock: a small table, indexed
 * by the byte's index hashed to 2048 slots, keeps the address of the one
 * block a byte counts when it counts exactly one (inverted: a block's
 * address in heapprof's memory would be a root for the leak scan).  A
 * byte of 1 and a slot holding another block of the same byte mean
 * "certainly not this pointer"; anything else (a slot taken by a byte
 * that aliases in the table, a slot marked unknown because the count came
 * down to one) sends the call to the slow path, where the live table
 * answers exactly.  (With
 * 4 KiB pages and a mask, free() was seven instructions, and the second
 * look ran a quarter as often: on churn 2 x 1 M, 2 M instructions more in
 * the fast path against 1.3 M fewer in second looks and slow paths.)
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

#define HP_FILTER_PAGE_SHIFT 14   /* the filter's pages are 16 KiB */
#define HP_FILTER_BITS (32 - HP_FILTER_PAGE_SHIFT)   /* 2^18 of them: 4 GiB */
#define HP_FILTER_ONE_BITS 11   /* the second look's slots: 2 x 16 KiB */

extern uint8_t hp_filter[1u << HP_FILTER_BITS];
extern uintptr_t hp_filter_one[1u << HP_FILTER_ONE_BITS];
extern uintptr_t hp_filter_two[1u << HP_FILTER_ONE_BITS];

/* The low 32 bits of the address, shifted: on x86_64 a 32-bit move and
 * a shift, no mask. */
HP_INLINE size_t hp_filter_index(uintptr_t p)
{
	return (uint32_t)p >> HP_FILTER_PAGE_SHIFT;
}

/* The free() fast-path test: false means "certainly not sampled".  A
 * relaxed load (a plain byte load on every target): the byte changes
 * under other threads' feet, by design. */
HP_INLINE bool hp_filter_maybe(const void *p)
{
	uintptr_t i = hp_filter_index((uintptr_t)p);
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

/* A byte's slot: the top bits of its index times a 32-bit odd constant
 * (Fibonacci hashing), so that the pages of two heaps at any distance
 * spread over the slots.  glibc gives each thread arena a heap aligned to
 * 64 MiB: taken modulo the table (or with the bits above xor-folded in, which
 * only permutes each heap's run of pages), the index put blocks at like
 * offsets in two threads' heaps in one slot, and the byte that lost it
 * sent every free of its page to the slow path (on churn 2 x 1 M, about
 * 1,100 of 44,000 second looks).  Two instructions: a multiply and a
 * shift. */
#define HP_FILTER_ONE_MUL 0x9e3779b1u
HP_INLINE size_t hp_filter_slot_index(size_t i)
{
	return ((uint32_t)i * HP_FILTER_ONE_MUL) >> (32 - HP_FILTER_ONE_BITS);
}

HP_INLINE uintptr_t *hp_filter_one_slot(size_t i)
{
	return &hp_filter_one[hp_filter_slot_index(i)];
}

/* A byte's second block while it counts two (hp_filter_inc). */
HP_INLINE uintptr_t *hp_filter_two_slot(size_t i)
{
	return &hp_filter_two[hp_filter_slot_index(i)];
}

/* The second look, after hp_filter_maybe(p) said maybe: false means
 * "certainly not sampled" again.  Sound without a lock because the
 * writers (below) store a byte's slot before the byte, with release,
 * and a live sampled block p was counted before its free began: a byte
 * of 1 read now counts p itself, unless p is not sampled, and the
 * stores since that made it 1 left p's slot either p, or unknown, or a
 * block of another byte, never another block of p's (while p lives, a
 * byte down to one block keeps the other of two, which is p, or marks
 * its slot unknown). */
HP_INLINE bool hp_filter_second_look(const void *p)
{
	size_t i = hp_filter_index((uintptr_t)p);
	uint8_t v = HP_LOAD_ACQ(&hp_filter[i]);

	/* The index as the fast test left it, in place: without this the
	 * compiler keeps a copy of it for the slot's multiply, and the copy
	 * costs the fast test an instruction. */
	__asm__("" : "+r"(i));

	if (v != 1)
		return v != 0;   /* first: in exact mode nearly every byte is above 1 */
	/* d, the slot's block xor p, in its low 32 bits: the slot holds p's
	 * byte's one block when d's index bits are clear, and then p is
	 * certainly not sampled unless it is that block (d == 0): d in
	 * [1, 2^14).  The slot holds the block inverted, so its xor with p
	 * is ~d, and ~d + 2^14 = 2^14 - 1 - d: in [0, 2^14 - 1) exactly then
	 * (a d whose low 32 bits are 0, a block 4 GiB from p, is merely sent
	 * on).  One add and one compare.  Never written, a slot holds 0, as
	 * a block ~0, of the last byte; but a byte of 1 has written its
	 * slot. */
	uint32_t not_d = (uint32_t)(HP_LOAD(hp_filter_one_slot(i)) ^ (uintptr_t)p);
	uint32_t page = (uint32_t)1 << HP_FILTER_PAGE_SHIFT;
	return not_d + page >= page - 1;
}

/* What a byte down to one block of unknown address stores in its slot:
 * inverted, the first address of the byte next to it (index ^ 1), which
 * never shares the slot (indexes one apart differ by the multiplier,
 * which moves the top 11 bits of the product by 0x4f1 or 0x4f2), so
 * that the second look never takes it for a block of a byte that reads
 * the slot. */
HP_INLINE uintptr_t hp_filter_unknown(size_t i)
{
	return ~((uintptr_t)(i ^ 1) << HP_FILTER_PAGE_SHIFT);
}

/* One more, or one fewer, live sampled block starting in p's page.  The
 * caller serialises updates of each byte (record/live.c: under the lock of
 * the shard that owns the page); relaxed stores keep the lock-free readers
 * tear-free, and the byte is stored last, with release (the second
 * look).  255 sticks.
 *
 * The slots follow a byte's blocks while it counts at most two: its first
 * block in the slot, its second in the second slot (hp_filter_two), so
 * that when one of two is freed the other becomes the byte's one block.
 * Down from three blocks to two, which two is not known: the slot is
 * marked unknown, and stays so until the byte drains (a page that held
 * two sampled blocks, one of them freed, sent the frees of all its other
 * blocks to the slow path until the second was freed: on churn 2 x 1 M,
 * about 900 a run).  Another byte sharing a slot may overwrite either; a
 * block of another byte in the slot only sends frees on. */
HP_INLINE void hp_filter_inc(uintptr_t p)
{
	__asm__("" : "+r"(p));   /* the index afresh: kept from the caller's, it spills */
	size_t i = hp_filter_index(p);
	uint8_t *f = &hp_filter[i];
	uint8_t v = HP_LOAD(f);

	if (v == 255)
		return;
	/* One test for both slots (exact mode's counts are mostly above 1,
	 * and pay one compare here, as they did before the second slot). */
	if (v < 2) {
		size_t k = hp_filter_slot_index(i);
		if (v == 0)
			HP_STORE(&hp_filter_one[k], ~p);   /* the byte's one block, inverted */
		else
			HP_STORE(&hp_filter_two[k], ~p);   /* and its second */
	}
	HP_STORE_REL(f, (uint8_t)(v + 1));
}

HP_INLINE void hp_filter_dec(uintptr_t p)
{
	__asm__("" : "+r"(p));
	size_t i = hp_filter_index(p);
	uint8_t *f = &hp_filter[i];
	uint8_t v = HP_LOAD(f);

	if ((uint8_t)(v - 1) >= 254)
		return;   /* 0 or 255 */
	/* One test for exact mode's counts, mostly above 3; a sampled
	 * rate's, mostly 1, take a second and no slot. */
	if (v <= 3 && v != 1) {
		uintptr_t *one = hp_filter_one_slot(i);
		if (v == 3)
			HP_STORE(one, hp_filter_unknown(i));   /* two left: which, unknown */
		else if (HP_LOAD(one) == ~p)
			/* One left: the other of the two, if the slot held p
			 * (else it holds the other, or is unknown, or another
			 * byte's). */
			HP_STORE(one, HP_LOAD(hp_filter_two_slot(i)));
	}
	HP_STORE_REL(f, (uint8_t)(v - 1));
}

/* Marks [start, start+len) as "maybe" forever (the bootstrap pool). */
void hp_filter_pin(const void *start, size_t len);

#pragma GCC visibility pop

#endif
