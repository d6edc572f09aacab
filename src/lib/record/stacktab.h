/*
 * stacktab.h -- interned call stacks.
 *
 * Each distinct stack is stored once and named by a dense id (1, 2, 3...).
 * Lookups are lock-free; inserting a new stack takes one lock, which is
 * never held while unwinding.  Stacks are kept until exit.
 */
#ifndef HP_STACKTAB_H
#define HP_STACKTAB_H

#include <stdint.h>

struct hp_stack {
	uint32_t hash;        /* the hash's low half: the index's slot, and a first test */
	uint32_t id;
	uint32_t depth;
	/* The counter context (record/counters.h) of the first thread to
	 * sample this stack, at its first rate and generation; 0 until set.
	 * A hint that saves that thread its context map's look-up: readers
	 * check the context is theirs.  Written once (relaxed), so that
	 * threads sharing stacks do not fight over the line. */
	uint32_t ctx_hint;
	uintptr_t frames[];   /* innermost first, see stack.h */
};

/* The hash the table keys stacks by (stack/unwind.h's, outermost frame
 * first). */
uint64_t hp_stacktab_hash(const uintptr_t *frames, uint32_t depth);

/* This stack's record (whose hash is h; its id is the record's),
 * inserted if new; NULL when memory ran out. */
const struct hp_stack *hp_stacktab_intern(const uintptr_t *frames, uint32_t depth, uint64_t h);

/* The stack with this id, 1 <= id <= hp_stacktab_count(). */
const struct hp_stack *hp_stacktab_get(uint32_t id);
uint32_t hp_stacktab_count(void);
/* Frames stored over all stacks, for the debug log. */
uint64_t hp_stacktab_frames(void);

void hp_stacktab_prefork(void);
void hp_stacktab_postfork_parent(void);
void hp_stacktab_postfork_child(void);

#endif
