/*
 * tsan-stacktab.c -- the stack table (record/stacktab.c) under four
 * threads interning the same stacks in different orders, while a reader
 * looks stacks up by id and reads their frames without a lock, as dump
 * writers do.  The index
 * grows several times meanwhile.  Every thread must get the same id for a
 * stack, and every id must hold its stack.
 */
#include <stdint.h>
#include <string.h>

#include "record/stacktab.h"

#include "tsan.h"

#define THREADS 4
#define STACKS  50000

static uint32_t ids[THREADS][STACKS];
static int stop, bad_reads;

static uint32_t frames_of(int s, uintptr_t *f)
{
	uint32_t depth = 1 + (uint32_t)(s % 12);

	for (uint32_t d = 0; d < depth; d++)
		f[d] = 0x400000 + (uintptr_t)s * 128 + d * 8;
	return depth;
}

/* Which s a stack read back is, from its outermost frame. */
static int whose(const struct hp_stack *st)
{
	struct hp_stack_frames it = hp_stacktab_frames_of(st);
	uintptr_t pc = 0;

	for (uint32_t i = 0; i < st->depth; i++)
		pc = hp_stacktab_next(&it);
	return (int)((pc + 1 - 0x400000) / 128);   /* + 1: a lone frame is moved back one */
}

/* Whether st's frames read back as f (the innermost moved back one). */
static int reads_back(const struct hp_stack *st, const uintptr_t *f)
{
	struct hp_stack_frames it = hp_stacktab_frames_of(st);

	for (uint32_t i = 0; i < st->depth; i++)
		if (hp_stacktab_next(&it) != f[i] - (i ? 0 : 1))
			return 0;
	return 1;
}

static void *interner(void *arg)
{
	int me = (int)(long)arg;
	uintptr_t f[16];

	for (int k = 0; k < STACKS; k++) {
		/* Each thread walks the stacks in its own order. */
		static const uint64_t mult[THREADS] = { 1, 3, 7, 9 };   /* prime to STACKS */
		int s = (int)(((uint64_t)k * mult[me] + (uint64_t)me * 7919) % STACKS);
		uint32_t depth = frames_of(s, f);
		const struct hp_stack *st = hp_stacktab_intern(f, depth);
		ids[me][s] = st ? st->id : 0;
	}
	return NULL;
}

static void *reader(void *arg)
{
	uint64_t rng = 42;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		uint32_t n = hp_stacktab_count();
		if (!n)
			continue;
		uint32_t id = 1 + (uint32_t)(xorshift(&rng) % n);
		const struct hp_stack *st = hp_stacktab_get(id);
		uintptr_t f[16];
		if (!st || st->id != id || !st->depth || st->depth > 12 || frames_of(whose(st), f) != st->depth ||
		    !reads_back(st, f))
			bad_reads++;
		(void)hp_stacktab_frames();
	}
	return NULL;
}

static void *interners(void *arg)
{
	(void)arg;
	run_threads(THREADS, interner);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

int main(void)
{
	pthread_t r, w;
	uintptr_t f[16];
	int differ = 0, wrong = 0;

	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&w, NULL, interners, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	for (int s = 0; s < STACKS; s++) {
		for (int t = 1; t < THREADS; t++)
			differ += ids[t][s] != ids[0][s];
		uint32_t depth = frames_of(s, f);
		const struct hp_stack *st = hp_stacktab_get(ids[0][s]);
		wrong += !st || st->depth != depth || !reads_back(st, f);
	}
	check(!differ && !wrong && hp_stacktab_count() == STACKS,
	      "stack table: %d threads x %d stacks, one id each (%d differ, %d wrong, %u ids)", THREADS,
	      STACKS, differ, wrong, hp_stacktab_count());
	check(!bad_reads, "lock-free reads by id saw whole stacks (%d bad)", bad_reads);
	return tsan_failed;
}
