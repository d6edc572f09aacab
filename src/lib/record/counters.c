/*
 * counters.c -- counter contexts (see counters.h).
 *
 * Owns the context array and id allocation.  Lookups go through the
 * owning thread's private map, so the common case takes no lock; a new
 * context costs one atomic increment and, once per 16384 contexts, a
 * mapping.
 */
#include <string.h>

#include "base/pages.h"
#include "record/counters.h"
#include "record/threads.h"
#include "record/live.h"
#include "base/banned.h"

#define CHUNK_SHIFT HP_COUNTERS_CHUNK_SHIFT
#define CHUNK_LEN   (1u << CHUNK_SHIFT)
#define MAP_MIN     64u

struct hp_counters *hp_counters_chunks[HP_COUNTERS_NCHUNKS];
#define chunks hp_counters_chunks
static uint32_t next_id = 1;   /* id 0 means "none" */
static struct hp_spin chunk_lock;

uint32_t hp_counters_end(void)
{
	uint32_t n = HP_LOAD_ACQ(&next_id);

	return n > HP_LIVE_COUNTERS_MAX + 1 ? HP_LIVE_COUNTERS_MAX + 1 : n;
}

static struct hp_counters *slot_for(uint32_t id)
{
	struct hp_counters **cp = &chunks[id >> CHUNK_SHIFT];
	struct hp_counters *c = HP_LOAD_ACQ(cp);

	if (c)
		return &c[id & (CHUNK_LEN - 1)];
	hp_spin_lock(&chunk_lock);
	c = HP_LOAD(cp);
	if (!c) {
		c = hp_pages_alloc(CHUNK_LEN * sizeof(struct hp_counters));
		if (c)
			HP_STORE_REL(cp, c);
	}
	hp_spin_unlock(&chunk_lock);
	return c ? &c[id & (CHUNK_LEN - 1)] : NULL;
}

static uint32_t new_context(struct hp_thread *t, uint32_t stack, int lg, uint16_t gen)
{
	uint32_t id = HP_ADD(&next_id, 1);

	if (id > HP_LIVE_COUNTERS_MAX)
		return 0;
	struct hp_counters *c = slot_for(id);
	if (!c)
		return 0;
	c->thread = t->uid;
	c->lg = (uint8_t)lg;
	c->gen = gen;
	HP_STORE_REL(&c->stack, stack);   /* publishes the context */
	return id;
}

static uint64_t map_key(uint32_t stack, int lg, uint16_t gen)
{
	return (uint64_t)stack | ((uint64_t)lg << 32) | ((uint64_t)gen << 40);
}

static uint32_t map_slot(uint64_t key, uint32_t mask)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

static int map_grow(struct hp_thread *t)
{
	uint32_t cap = t->map_keys ? t->map_mask + 1 : 0;
	uint32_t ncap = cap ? cap * 2 : MAP_MIN;
	uint64_t *keys = hp_pages_alloc((size_t)ncap * sizeof(*keys));
	uint32_t *vals = hp_pages_alloc((size_t)ncap * sizeof(*vals));

	if (!keys || !vals) {
		hp_pages_free(keys, (size_t)ncap * sizeof(*keys));
		hp_pages_free(vals, (size_t)ncap * sizeof(*vals));
		return -1;
	}
	for (uint32_t i = 0; i < cap; i++) {
		if (!t->map_keys[i])
			continue;
		uint32_t j = map_slot(t->map_keys[i], ncap - 1);
		while (keys[j])
			j = (j + 1) & (ncap - 1);
		keys[j] = t->map_keys[i];
		vals[j] = t->map_vals[i];
	}
	if (cap) {
		hp_pages_free(t->map_keys, (size_t)cap * sizeof(*keys));
		hp_pages_free(t->map_vals, (size_t)cap * sizeof(*vals));
	}
	t->map_keys = keys;
	t->map_vals = vals;
	t->map_mask = ncap - 1;
	return 0;
}

/* A context new to the thread's map (key is map_key's). */
static HP_NOINLINE uint32_t add(struct hp_thread *t, uint64_t key, uint32_t stack, int lg, uint16_t gen)
{
	if ((!t->map_keys || (t->map_count + 1) * 2 > t->map_mask + 1) && map_grow(t))
		return 0;
	uint32_t id = new_context(t, stack, lg, gen);
	if (!id)
		return 0;
	uint32_t i = map_slot(key, t->map_mask);
	while (t->map_keys[i])
		i = (i + 1) & t->map_mask;
	t->map_keys[i] = key;
	t->map_vals[i] = id;
	t->map_count++;
	return id;
}

/* The look-up alone, with the rest out of line (add): a leaf that saves
 * no registers, on every sample whose context is not the thread's last
 * one (in exact mode on cc1, nearly all of them). */
uint32_t hp_counters_get(struct hp_thread *t, uint32_t stack, int lg, uint16_t gen)
{
	uint64_t key = map_key(stack, lg, gen);
	const uint64_t *keys = t->map_keys;

	if (HP_LIKELY(keys)) {
		uint32_t mask = t->map_mask;
		for (uint32_t i = map_slot(key, mask); keys[i]; i = (i + 1) & mask)
			if (keys[i] == key)
				return t->map_vals[i];
	}
	return add(t, key, stack, lg, gen);
}

/* The owner's plain read-modify-write: only it writes these fields, and
 * relaxed atomic loads and stores keep concurrent dump readers tear-free. */
static void own_add(uint64_t *field, uint64_t v)
{
	HP_STORE(field, HP_LOAD(field) + v);
}

void hp_counters_temporary(struct hp_counters *c, uint64_t cnt)
{
	own_add(&c->tmp_cnt, cnt);
}

void hp_counters_read(const struct hp_counters *c, struct hp_counts *out)
{
	uint64_t rc = HP_LOAD(&c->remote_free_cnt), rb = HP_LOAD(&c->remote_free_bytes);
	uint64_t oc = HP_LOAD(&c->own_free_cnt), ob = HP_LOAD(&c->own_free_bytes);
	uint64_t ac = HP_LOAD(&c->alloc_cnt), ab = HP_LOAD(&c->alloc_bytes);

	/* Frees are read before allocations, so a racing allocate-then-free
	 * can only make live look larger, never wrap it around. */
	out->live_cnt = (int64_t)(ac - oc - rc);
	out->live_bytes = (int64_t)(ab - ob - rb);
	if (out->live_cnt < 0 || out->live_bytes < 0)
		out->live_cnt = out->live_bytes = 0;
	out->accum_cnt = ac;
	out->accum_bytes = ab;
	out->tmp_cnt = HP_LOAD(&c->tmp_cnt);
	out->peak_cnt = out->peak_bytes = 0;
}

void hp_counters_prefork(void)
{
	hp_spin_lock(&chunk_lock);
}

void hp_counters_postfork_parent(void)
{
	hp_spin_unlock(&chunk_lock);
}

void hp_counters_postfork_child(void)
{
	hp_spin_reset(&chunk_lock);
}
