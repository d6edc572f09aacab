/*
 * record-stacktab.c -- unit tests of record/stacktab: interning many
 * stacks of every depth, ids stable on a second pass, frames read back
 * as written (the innermost moved back into its call); stacks that share
 * their outer frames share their nodes; a stack found through a walk
 * memo's frames is the one interned from the same frames in a buffer.
 */
#include <stdint.h>
#include <string.h>

#include "record/stacktab.h"

#include "tap.h"

/* Whether st's frames read back as f (depth of them, innermost first). */
static int reads_back(const struct hp_stack *st, const uintptr_t *f, uint32_t depth)
{
	if (!st || st->depth != depth)
		return 0;
	struct hp_stack_frames it = hp_stacktab_frames_of(st);
	for (uint32_t i = 0; i < depth; i++)
		if (hp_stacktab_next(&it) != f[i] - (i ? 0 : 1))
			return 0;
	return hp_stacktab_next(&it) == 0;
}

int main(void)
{
	enum { N = 20000 };
	static uint32_t ids[N];
	uintptr_t f[8];
	int bad = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < N; i++) {
			uint32_t depth = 1 + (uint32_t)(i % 8);
			for (uint32_t d = 0; d < depth; d++)
				f[d] = 0x400000 + (uintptr_t)i * 64 + d;
			const struct hp_stack *r = hp_stacktab_intern(f, depth);
			uint32_t id = r ? r->id : 0;
			if (pass == 0)
				ids[i] = id;
			else if (id != ids[i])
				bad++;
			const struct hp_stack *s = hp_stacktab_get(id);
			if (s != r || !reads_back(s, f, depth))
				bad++;
		}
	}
	ok(bad == 0 && hp_stacktab_count() == N, "%d stacks interned once each, ids stable, frames read back", N);
	ok(hp_stacktab_get(0) == NULL && hp_stacktab_get(N + 1) == NULL, "no stack 0, none past the count");

	/* One outer path, 100 leaves: 100 + 30 nodes, not 100 x 31. */
	uint32_t nodes = hp_stacktab_nodes();
	uintptr_t g[31];
	for (int d = 1; d < 31; d++)
		g[d] = 0x7000000 + (uintptr_t)d * 16;
	bad = 0;
	for (int leaf = 0; leaf < 100; leaf++) {
		g[0] = 0x8000000 + (uintptr_t)leaf * 16;
		if (!reads_back(hp_stacktab_intern(g, 31), g, 31))
			bad++;
	}
	ok(!bad && hp_stacktab_nodes() - nodes == 130, "100 stacks sharing 30 outer frames: %u nodes",
	   hp_stacktab_nodes() - nodes);
	/* A stack and its outer part are two stacks. */
	const struct hp_stack *whole = hp_stacktab_intern(g, 31), *outer = hp_stacktab_intern(g + 1, 30);
	ok(whole && outer && whole != outer && whole->depth == 31 && outer->depth == 30 &&
	   reads_back(outer, g + 1, 30), "a stack's outer part is a stack of its own");

	/* The memo's frames (outermost first, a sentinel of return address
	 * 0 at f[0]), some with nodes and some new: the stack is the one
	 * the same frames give from a buffer, and the memo learns every
	 * node. */
	static struct hp_unwind_memo m;
	m.f[0] = (struct hp_unwind_frame){ .ip = 0, .h = HP_STACK_HASH_SEED };
	for (int k = 1; k <= 31; k++)
		m.f[k] = (struct hp_unwind_frame){ .ip = g[31 - k], .h = hp_stack_hash_step(m.f[k - 1].h, g[31 - k]) };
	m.n = 32;
	const struct hp_stack *a = hp_stacktab_memo(&m, 31, 31);
	int named = 1;
	for (int k = 1; k <= 31; k++)
		named &= m.f[k].node != 0;
	ok(a == whole && named && m.f[0].node == 0 && m.named == 32,
	   "the memo's frames give the buffer's stack; every node noted");
	m.f[31].ip = 0x9000000;   /* a new innermost frame under known nodes */
	m.f[31].h = hp_stack_hash_step(m.f[30].h, 0x9000000);
	m.f[31].node = 0;
	m.named = 31;   /* as the memo leaves it when it takes a new frame */
	uintptr_t h[31];
	memcpy(h, g, sizeof(h));
	h[0] = 0x9000000;
	const struct hp_stack *b = hp_stacktab_memo(&m, 31, 31), *c = hp_stacktab_intern(h, 31);
	ok(b && b == c && b != a && reads_back(b, h, 31), "a new innermost frame under the memo's nodes");
	ok(hp_stacktab_memo(&m, 20, 20) == hp_stacktab_intern(g + 11, 20), "an inner frame of the memo ends its own stack");
	/* Frames the memo took again (named lowered, their nodes gone):
	 * found by one probe, every node noted again. */
	uint32_t want[32];
	for (int k = 0; k < 32; k++)
		want[k] = m.f[k].node;
	uint32_t before = hp_stacktab_nodes();
	for (int k = 10; k < 32; k++)
		m.f[k].node = 0;
	m.named = 10;
	int same_nodes = 1;
	const struct hp_stack *again = hp_stacktab_memo(&m, 31, 31);
	for (int k = 0; k < 32; k++)
		same_nodes &= m.f[k].node == want[k];
	ok(again == b && same_nodes && m.named == 32 && hp_stacktab_nodes() == before,
	   "frames the memo took again: the same stack and nodes, none new");
	/* The same frames under another caller are another stack. */
	m.f[9].ip = 0x9100000;
	m.f[9].node = 0;
	for (int k = 9; k < 32; k++)
		m.f[k].h = hp_stack_hash_step(m.f[k - 1].h, m.f[k].ip);
	m.named = 9;
	const struct hp_stack *other = hp_stacktab_memo(&m, 31, 31);
	ok(other && other != b && hp_stacktab_nodes() == before + 23, "the same inner frames under another caller: %u new nodes",
	   hp_stacktab_nodes() - before);
	return done_testing();
}
