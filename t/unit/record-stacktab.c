/*
 * record-stacktab.c -- unit tests of record/stacktab: interning many
 * stacks of every depth, ids stable on a second pass.
 */
#include <stdint.h>
#include <string.h>

#include "record/stacktab.h"

#include "tap.h"

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
			const struct hp_stack *r = hp_stacktab_intern(f, depth, hp_stacktab_hash(f, depth));
			uint32_t id = r ? r->id : 0;
			if (pass == 0)
				ids[i] = id;
			else if (id != ids[i])
				bad++;
			const struct hp_stack *s = hp_stacktab_get(id);
			if (!s || s != r || s->depth != depth || memcmp(s->frames, f, depth * sizeof(*f)))
				bad++;
		}
	}
	ok(bad == 0 && hp_stacktab_count() == N, "%d stacks interned once each, ids stable", N);
	return done_testing();
}
