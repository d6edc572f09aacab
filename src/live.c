/*
 * live.c -- the page filter and the sharded live-block table (see live.h).
 *
 * Owns hp_live_filter and the shards.  Called from malloc/free slow paths:
 * a shard lock is held only for a probe and a store (and, rarely, a table
 * rebuild); nothing here calls the host allocator.  Readers never look at
 * a table without its shard lock, so replaced tables are unmapped at once.
 */
#include <string.h>

#include "live.h"
#include "pages.h"
#include "spin.h"
#include "banned.h"

uint8_t hp_live_filter[1u << HP_FILTER_BITS];

#define SLOT_EMPTY 0u
#define SLOT_TOMB  1u
#define MIN_SLOTS  256u
#define SIZE_BITS  40

struct slot {
	uintptr_t key;
	uint64_t val;   /* size in the low 40 bits, tctx in the high 24 */
};

struct shard {
	struct hp_spin lock;
	uint32_t live;   /* records */
	uint32_t used;   /* records + tombstones */
	uint32_t mask;   /* slots - 1, or 0 before the first insert */
	struct slot *slots;
} __attribute__((aligned(HP_CACHELINE)));

static struct shard shards[HP_LIVE_SHARDS];
static uint64_t records;
/* The shard this thread holds, so that a signal handler that interrupts
 * us and frees a sampled block does not spin on our own lock. */
static __thread int held_shard = -1;

static uint64_t mix(uintptr_t p)
{
	uint64_t h = (uint64_t)p;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static size_t filter_index(uintptr_t p)
{
	return (p >> HP_FILTER_PAGE_SHIFT) & ((1u << HP_FILTER_BITS) - 1);
}

/* Saturating counters: at 255 a bucket stays "maybe" for good. */
static void filter_inc(uintptr_t p)
{
	uint8_t *f = &hp_live_filter[filter_index(p)];
	uint8_t v = HP_LOAD(f);

	while (v != 255 && !HP_CAS(f, &v, (uint8_t)(v + 1)))
		;
}

static void filter_dec(uintptr_t p)
{
	uint8_t *f = &hp_live_filter[filter_index(p)];
	uint8_t v = HP_LOAD(f);

	while (v != 255 && v != 0 && !HP_CAS(f, &v, (uint8_t)(v - 1)))
		;
}

void hp_live_filter_pin(const void *start, size_t len)
{
	uintptr_t a = (uintptr_t)start;

	for (uintptr_t p = a; p < a + len; p += (1u << HP_FILTER_PAGE_SHIFT))
		HP_STORE(&hp_live_filter[filter_index(p)], 255);
}

static struct shard *shard_of(uint64_t h)
{
	return &shards[h >> 56];
}

static void shard_lock(struct shard *s)
{
	hp_spin_lock(&s->lock);
	held_shard = (int)(s - shards);
}

static void shard_unlock(struct shard *s)
{
	held_shard = -1;
	hp_spin_unlock(&s->lock);
}

/* Index of key's slot, or of the slot where it would go (the first
 * tombstone or empty slot on its probe path) with *found = false. */
static uint32_t probe(const struct shard *s, uintptr_t key, uint64_t h, bool *found)
{
	uint32_t i = (uint32_t)(h >> 16) & s->mask;
	uint32_t insert_at = UINT32_MAX;

	for (;; i = (i + 1) & s->mask) {
		uintptr_t k = s->slots[i].key;
		if (k == key) {
			*found = true;
			return i;
		}
		if (k == SLOT_EMPTY) {
			*found = false;
			return insert_at != UINT32_MAX ? insert_at : i;
		}
		if (k == SLOT_TOMB && insert_at == UINT32_MAX)
			insert_at = i;
	}
}

/* Rebuilds the shard's table with room for one more record: doubles it
 * when it is more than a third full of records, otherwise only drops the
 * tombstones.  False if memory ran out (the old table stays). */
static bool rebuild(struct shard *s)
{
	uint32_t cap = s->mask ? s->mask + 1 : 0;
	uint32_t ncap = cap ? cap : MIN_SLOTS;

	while ((uint64_t)(s->live + 1) * 3 > ncap)
		ncap *= 2;
	struct slot *fresh = hp_pages_alloc((size_t)ncap * sizeof(*fresh));
	if (!fresh)
		return false;

	struct shard next = { .mask = ncap - 1, .slots = fresh, .live = s->live,
			      .used = s->live };
	for (uint32_t i = 0; i < cap; i++) {
		uintptr_t k = s->slots[i].key;
		if (k == SLOT_EMPTY || k == SLOT_TOMB)
			continue;
		bool found;
		uint32_t j = probe(&next, k, mix(k), &found);
		fresh[j] = s->slots[i];
	}
	if (cap)
		hp_pages_free(s->slots, (size_t)cap * sizeof(*s->slots));
	s->slots = fresh;
	s->mask = next.mask;
	s->used = s->live;
	return true;
}

bool hp_live_insert(const void *p, uint64_t size, uint32_t tctx)
{
	uintptr_t key = (uintptr_t)p;
	uint64_t h = mix(key);
	struct shard *s = shard_of(h);
	bool ok = true, found;

	if (size > HP_LIVE_SIZE_MAX)
		size = HP_LIVE_SIZE_MAX;
	shard_lock(s);
	/* Keep the load (records + tombstones) under 70%. */
	if (!s->mask || (uint64_t)(s->used + 1) * 10 > (uint64_t)(s->mask + 1) * 7) {
		if (!rebuild(s)) {
			ok = false;
			goto out;
		}
	}
	uint32_t i = probe(s, key, h, &found);
	if (!found) {
		if (s->slots[i].key == SLOT_EMPTY)
			s->used++;
		s->live++;
		s->slots[i].key = key;
	}
	s->slots[i].val = size | ((uint64_t)tctx << SIZE_BITS);
out:
	shard_unlock(s);
	if (ok && !found) {
		filter_inc(key);
		HP_ADD(&records, 1);
	}
	return ok;
}

enum hp_live_result hp_live_remove(const void *p, uint64_t *size, uint32_t *tctx)
{
	uintptr_t key = (uintptr_t)p;
	uint64_t h = mix(key);
	struct shard *s = shard_of(h);
	bool found = false;

	if (key <= SLOT_TOMB)
		return HP_LIVE_ABSENT;
	if (held_shard == (int)(s - shards))
		return HP_LIVE_BUSY;
	shard_lock(s);
	if (s->mask) {
		uint32_t i = probe(s, key, h, &found);
		if (found) {
			uint64_t v = s->slots[i].val;
			*size = v & HP_LIVE_SIZE_MAX;
			*tctx = (uint32_t)(v >> SIZE_BITS);
			s->slots[i].key = SLOT_TOMB;
			s->live--;
		}
	}
	shard_unlock(s);
	if (!found)
		return HP_LIVE_ABSENT;
	filter_dec(key);
	HP_SUB(&records, 1);
	return HP_LIVE_REMOVED;
}

bool hp_live_find(const void *p, uint64_t *size, uint32_t *tctx)
{
	uintptr_t key = (uintptr_t)p;
	uint64_t h = mix(key);
	struct shard *s = shard_of(h);
	bool found = false;

	if (key <= SLOT_TOMB || held_shard == (int)(s - shards))
		return false;
	shard_lock(s);
	if (s->mask) {
		uint32_t i = probe(s, key, h, &found);
		if (found) {
			*size = s->slots[i].val & HP_LIVE_SIZE_MAX;
			*tctx = (uint32_t)(s->slots[i].val >> SIZE_BITS);
		}
	}
	shard_unlock(s);
	return found;
}

void hp_live_foreach(void (*fn)(uintptr_t, uint64_t, uint32_t, void *), void *arg)
{
	for (unsigned n = 0; n < HP_LIVE_SHARDS; n++) {
		struct shard *s = &shards[n];
		shard_lock(s);
		for (uint32_t i = 0; s->mask && i <= s->mask; i++) {
			uintptr_t k = s->slots[i].key;
			if (k == SLOT_EMPTY || k == SLOT_TOMB)
				continue;
			uint64_t v = s->slots[i].val;
			fn(k, v & HP_LIVE_SIZE_MAX, (uint32_t)(v >> SIZE_BITS), arg);
		}
		shard_unlock(s);
	}
}

uint64_t hp_live_records(void)
{
	return HP_LOAD(&records);
}

void hp_live_prefork(void)
{
	for (unsigned n = 0; n < HP_LIVE_SHARDS; n++)
		hp_spin_lock(&shards[n].lock);
}

void hp_live_postfork_parent(void)
{
	for (unsigned n = 0; n < HP_LIVE_SHARDS; n++)
		hp_spin_unlock(&shards[n].lock);
}

void hp_live_postfork_child(void)
{
	for (unsigned n = 0; n < HP_LIVE_SHARDS; n++)
		hp_spin_reset(&shards[n].lock);
	held_shard = -1;
}
