/*
 * stacktab.h -- interned call stacks.
 *
 * Stacks are kept as a tree of shared prefixes: a node is a frame (a
 * return address) under its caller's node, the outermost frames under
 * the root, so that a frame two stacks share from the outermost in is
 * stored once.  A stack is a node, the innermost frame of its path, named
 * by a dense id (1, 2, 3...) when it is first recorded.  Nodes are
 * indexed by their path's hash (stack/unwind.h's, which the unwinder's
 * memo keeps frame by frame), and the memo remembers each frame's node:
 * a stack that shares its outer frames with the last walk's is found
 * with one probe, checking only its new inner frames and then that their
 * caller is the memo's node (which stands for every frame out of it): no
 * copy, no comparison of the whole stack.  Lookups are lock-free; inserting a node or a stack takes one
 * lock, which is never held while unwinding.  Everything is kept until
 * exit.
 */
#ifndef HP_STACKTAB_H
#define HP_STACKTAB_H

#include <stdint.h>

#include "base/compiler.h"
#include "stack/unwind.h"

struct hp_stack {
	uint32_t id;
	uint32_t depth;
	uint32_t node;        /* its innermost frame's node */
	/* The counter context (record/counters.h) of the first thread to
	 * sample this stack, at its first rate and generation; 0 until set.
	 * A hint that saves that thread its context map's look-up: readers
	 * check the context is theirs.  Written once (relaxed), so that
	 * threads sharing stacks do not fight over the line. */
	uint32_t ctx_hint;
};

/* The stack whose frames are frames[0] (the innermost) .. frames[depth -
 * 1], return addresses as walked (stack/stack.h), inserted if new; NULL
 * when memory ran out.  1 <= depth <= HP_BT_LIMIT. */
const struct hp_stack *hp_stacktab_intern(const uintptr_t *frames, uint32_t depth);

/* The stack whose frames are m->f[top] (the innermost) down to f[0]
 * (without f[0] when it is a sentinel of return address 0), depth of
 * them: the memo's nodes from its outermost frame in, interned for the
 * frames that have none yet and written into m; NULL when memory ran
 * out.  Called by the memo's owner. */
HP_INLINE const struct hp_stack *hp_stacktab_memo(struct hp_unwind_memo *m, int top, uint32_t depth);

/* The stack with this id, 1 <= id <= hp_stacktab_count(). */
const struct hp_stack *hp_stacktab_get(uint32_t id);
uint32_t hp_stacktab_count(void);
/* Frames over all stacks, and nodes stored for them, for the debug
 * log. */
uint64_t hp_stacktab_frames(void);
uint32_t hp_stacktab_nodes(void);

/* A stack's frames, innermost first, as dumps write them: the innermost
 * moved back one byte into its call (stack/stack.h).  Lock-free:
 *     struct hp_stack_frames it = hp_stacktab_frames_of(st);
 *     for (uint32_t i = 0; i < st->depth; i++)
 *             use(hp_stacktab_next(&it));
 */
struct hp_stack_frames {
	uint32_t node;
	uintptr_t back;   /* 1 for the innermost frame, then 0 */
};

HP_INLINE struct hp_stack_frames hp_stacktab_frames_of(const struct hp_stack *s)
{
	return (struct hp_stack_frames){ .node = s->node, .back = 1 };
}

/* The next frame; 0 past the outermost. */
uintptr_t hp_stacktab_next(struct hp_stack_frames *it);

/* ---- inline parts ----------------------------------------------------- */

const struct hp_stack *hp_stacktab_memo_new(struct hp_unwind_memo *m, int top, uint32_t depth);
/* The stack node ends (depth frames), recorded if new: hp_stacktab_memo's
 * and hp_stacktab_intern's end. */
const struct hp_stack *hp_stacktab_of_node(uint32_t node, uint32_t depth);

HP_INLINE const struct hp_stack *hp_stacktab_memo(struct hp_unwind_memo *m, int top, uint32_t depth)
{
	if (HP_LIKELY((uint32_t)top < m->named))
		return hp_stacktab_of_node(m->f[top].node, depth);
	return hp_stacktab_memo_new(m, top, depth);
}

void hp_stacktab_prefork(void);
void hp_stacktab_postfork_parent(void);
void hp_stacktab_postfork_child(void);

#endif
