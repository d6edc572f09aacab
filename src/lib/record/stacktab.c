/*
 * stacktab.c -- the interned stack table (see stacktab.h).
 *
 * Owns the hash index, the id-to-stack directory and the stack arena.
 * Readers probe the index without a lock; a writer holding insert_lock
 * adds a stack, and when the index fills it builds a bigger one, publishes
 * it, and retires the old one with hp_pages_retire: a reader still probing
 * it reads zeros, misses, and retries under the lock.
 */
#include <string.h>

#include "base/pages.h"
#include "base/spin.h"
#include "record/stacktab.h"
#include "stack/unwind.h"
#include "base/banned.h"

#define DIR_SHIFT 16
#define DIR_LEN   (1u << DIR_SHIFT)
#define DIR_MAX   4096u        /* up to 2^28 stacks */
#define INDEX_MIN 4096u

struct index {
	uint32_t mask;
	uint32_t ids[];
};

static struct index *index_cur;
static struct hp_stack **dir[DIR_MAX];
static uint32_t count;
static uint64_t frames_stored;   /* for the debug log */
static struct hp_spin insert_lock;
static struct hp_pages_arena arena = { .chunk = 4u << 20 };

uint64_t hp_stacktab_hash(const uintptr_t *f, uint32_t depth)
{
	uint64_t h = HP_STACK_HASH_SEED;

	for (uint32_t i = depth; i-- > 0;)
		h = hp_stack_hash_step(h, f[i]);
	return hp_stack_hash_end(h, depth);
}

const struct hp_stack *hp_stacktab_get(uint32_t id)
{
	struct hp_stack **d = HP_LOAD_ACQ(&dir[id >> DIR_SHIFT]);

	return d ? HP_LOAD_ACQ(&d[id & (DIR_LEN - 1)]) : NULL;
}

uint64_t hp_stacktab_frames(void)
{
	return HP_LOAD(&frames_stored);
}

uint32_t hp_stacktab_count(void)
{
	return HP_LOAD_ACQ(&count);
}

static int same(const struct hp_stack *s, uint64_t h, const uintptr_t *f, uint32_t depth)
{
	return s && s->hash == (uint32_t)h && s->depth == depth &&
	       !memcmp(s->frames, f, depth * sizeof(*f));
}

/* Inline: the lock-free look of every sample whose stack the unwinder's
 * memo did not vouch for (in exact mode on cc1, nearly all of them). */
HP_INLINE const struct hp_stack *lookup(const struct index *ix, uint64_t h, const uintptr_t *f, uint32_t depth)
{
	if (!ix)
		return NULL;
	for (uint32_t i = (uint32_t)h & ix->mask;; i = (i + 1) & ix->mask) {
		uint32_t id = HP_LOAD_ACQ(&ix->ids[i]);
		if (!id)
			return NULL;
		const struct hp_stack *s = hp_stacktab_get(id);
		if (same(s, h, f, depth))
			return s;
	}
}

static size_t index_bytes(uint32_t slots)
{
	return sizeof(struct index) + (size_t)slots * sizeof(uint32_t);
}

static void index_put(struct index *ix, uint32_t id, uint64_t h)
{
	uint32_t i = (uint32_t)h & ix->mask;

	while (ix->ids[i])
		i = (i + 1) & ix->mask;
	HP_STORE_REL(&ix->ids[i], id);
}

/* Under insert_lock: makes room for one more id. */
static int ensure_room(void)
{
	struct index *ix = index_cur;
	uint32_t slots = ix ? ix->mask + 1 : 0;

	if (ix && (uint64_t)(count + 1) * 2 <= slots)
		return 0;
	uint32_t nslots = slots ? slots * 2 : INDEX_MIN;
	struct index *fresh = hp_pages_alloc(index_bytes(nslots));
	if (!fresh)
		return -1;
	fresh->mask = nslots - 1;
	for (uint32_t id = 1; id <= count; id++) {
		const struct hp_stack *s = hp_stacktab_get(id);
		index_put(fresh, id, s->hash);
	}
	HP_STORE_REL(&index_cur, fresh);
	if (ix)
		hp_pages_retire(ix, index_bytes(slots));
	return 0;
}

static const struct hp_stack *insert(uint64_t h, const uintptr_t *f, uint32_t depth)
{
	uint32_t id = count + 1;

	if ((id >> DIR_SHIFT) >= DIR_MAX || ensure_room())
		return NULL;
	struct hp_stack **d = dir[id >> DIR_SHIFT];
	if (!d) {
		d = hp_pages_alloc(DIR_LEN * sizeof(*d));
		if (!d)
			return NULL;
		HP_STORE_REL(&dir[id >> DIR_SHIFT], d);
	}
	struct hp_stack *s = hp_pages_arena_alloc(&arena, sizeof(*s) + depth * sizeof(*f), 8);
	if (!s)
		return NULL;
	s->hash = (uint32_t)h;
	s->id = id;
	s->depth = depth;
	memcpy(s->frames, f, depth * sizeof(*f));
	HP_STORE(&frames_stored, frames_stored + depth);
	HP_STORE_REL(&d[id & (DIR_LEN - 1)], s);
	HP_STORE_REL(&count, id);
	index_put(index_cur, id, h);
	return s;
}

/* A new stack, or one another thread is inserting: under the lock. */
static HP_NOINLINE const struct hp_stack *intern_locked(const uintptr_t *frames, uint32_t depth, uint64_t h)
{
	hp_spin_lock(&insert_lock);
	const struct hp_stack *s = lookup(index_cur, h, frames, depth);
	if (!s)
		s = insert(h, frames, depth);
	hp_spin_unlock(&insert_lock);
	return s;
}

const struct hp_stack *hp_stacktab_intern(const uintptr_t *frames, uint32_t depth, uint64_t h)
{
	const struct hp_stack *s = lookup(HP_LOAD_ACQ(&index_cur), h, frames, depth);

	return s ? s : intern_locked(frames, depth, h);
}

void hp_stacktab_prefork(void)
{
	hp_spin_lock(&insert_lock);
	hp_spin_lock(&arena.lock);
}

void hp_stacktab_postfork_parent(void)
{
	hp_spin_unlock(&arena.lock);
	hp_spin_unlock(&insert_lock);
}

void hp_stacktab_postfork_child(void)
{
	hp_spin_reset(&insert_lock);
	hp_spin_reset(&arena.lock);
}
