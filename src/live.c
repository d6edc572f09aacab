/*
 * live.c -- the page filter and the sharded live-block table (see live.h).
 *
 * Owns hp_live_filter and the shards.  Called from malloc/free slow paths:
 * a shard lock is held only for a probe and a store (and, rarely, a table
 * doubling); nothing here calls the host allocator.  Readers never look at
 * a table without its shard lock, so replaced tables are unmapped at once.
 *
 * A block's shard is chosen by its filter byte, so every block counted in
 * a filter byte lives in the same shard and the byte is only written under
 * that shard's lock: plain stores, no atomic read-modify-write.  Tables
 * use linear probing with backward-shift deletion: no tombstones, so a
 * table is rebuilt only when it doubles.
 */
#include <string.h>

#include "live.h"
#include "pages.h"
#include "spin.h"
#include "banned.h"

uint8_t hp_live_filter[1u << HP_FILTER_BITS];

#define SLOT_EMPTY   0u
#define MIN_SHIFT    8u          /* 256 slots: one 4 KiB page */
#define SIZE_BITS    40
#define HASH_MUL     0x9e3779b97f4a7c15ULL

struct slot {
	uintptr_t key;
	uint64_t val;   /* size in the low 40 bits, tctx in the high 24 */
};

struct shard {
	struct hp_spin lock;
	uint32_t live;   /* records */
	uint32_t shift;  /* 64 - log2(slots), or 0 before the first insert */
	uint32_t mask;
	struct slot *slots;
} __attribute__((aligned(HP_CACHELINE)));

static struct shard shards[HP_LIVE_SHARDS];
/* The shards this thread holds (or is taking), innermost last, so that a
 * signal handler that interrupts us and frees a sampled block does not
 * spin on a lock the interrupted code holds.  Handlers nest, hence a
 * stack; past HELD_MAX levels every shard counts as held. */
#define HELD_MAX 8
static __thread struct {
	int n;
	int shard[HELD_MAX];
} held;

static bool held_by_me(const struct shard *s)
{
	int idx = (int)(s - shards), n = held.n;

	if (n > HELD_MAX)
		return true;
	for (int i = 0; i < n; i++)
		if (held.shard[i] == idx)
			return true;
	return false;
}

static size_t filter_index(uintptr_t p)
{
	return (p >> HP_FILTER_PAGE_SHIFT) & ((1u << HP_FILTER_BITS) - 1);
}

static struct shard *shard_of(uintptr_t p)
{
	return &shards[((uint64_t)filter_index(p) * HASH_MUL) >> 56];
}

static uint32_t home(const struct shard *s, uintptr_t key)
{
	return (uint32_t)(((uint64_t)key * HASH_MUL) >> s->shift);
}

/* Filter updates happen under the block's shard lock (see above); relaxed
 * stores keep the lock-free readers in free() tear-free.  255 sticks. */
static void filter_inc(uintptr_t p)
{
	uint8_t *f = &hp_live_filter[filter_index(p)];
	uint8_t v = HP_LOAD(f);

	if (v != 255)
		HP_STORE(f, (uint8_t)(v + 1));
}

static void filter_dec(uintptr_t p)
{
	uint8_t *f = &hp_live_filter[filter_index(p)];
	uint8_t v = HP_LOAD(f);

	if (v != 255 && v != 0)
		HP_STORE(f, (uint8_t)(v - 1));
}

void hp_live_filter_pin(const void *start, size_t len)
{
	uintptr_t a = (uintptr_t)start;

	for (uintptr_t p = a; p < a + len; p += (1u << HP_FILTER_PAGE_SHIFT))
		HP_STORE(&hp_live_filter[filter_index(p)], 255);
}

/* The held stack covers the whole window in which the lock may be ours:
 * an entry is pushed before the lock is taken and popped after it is
 * released, so a handler that runs in between never spins on our own lock
 * (it defers, which is always safe). */
static void shard_lock(struct shard *s)
{
	if (held.n < HELD_MAX)
		held.shard[held.n] = (int)(s - shards);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	held.n++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	hp_spin_lock(&s->lock);
}

static void shard_unlock(struct shard *s)
{
	hp_spin_unlock(&s->lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	held.n--;
}

/* The slot holding key, or the empty slot ending its probe sequence. */
static uint32_t probe(const struct shard *s, uintptr_t key, bool *found)
{
	uint32_t i = home(s, key);

	for (;; i = (i + 1) & s->mask) {
		uintptr_t k = s->slots[i].key;
		if (k == key || k == SLOT_EMPTY) {
			*found = k == key;
			return i;
		}
	}
}

/* Doubles the shard's table (or creates it).  False if memory ran out:
 * the old table stays. */
static bool grow(struct shard *s)
{
	uint32_t old_slots = s->shift ? s->mask + 1 : 0;
	uint32_t shift = s->shift ? s->shift - 1 : 64 - MIN_SHIFT;
	uint32_t slots = 1u << (64 - shift);
	struct slot *fresh = hp_pages_alloc((size_t)slots * sizeof(*fresh));

	if (!fresh)
		return false;
	struct shard next = { .shift = shift, .mask = slots - 1, .slots = fresh };
	for (uint32_t i = 0; i < old_slots; i++) {
		uintptr_t k = s->slots[i].key;
		if (k == SLOT_EMPTY)
			continue;
		bool found;
		fresh[probe(&next, k, &found)] = s->slots[i];
	}
	if (old_slots)
		hp_pages_free(s->slots, (size_t)old_slots * sizeof(*s->slots));
	s->slots = fresh;
	s->shift = shift;
	s->mask = slots - 1;
	return true;
}

bool hp_live_insert(const void *p, uint64_t size, uint32_t tctx)
{
	uintptr_t key = (uintptr_t)p;
	struct shard *s = shard_of(key);
	bool ok = true, found = false;

	if (size > HP_LIVE_SIZE_MAX)
		size = HP_LIVE_SIZE_MAX;
	shard_lock(s);
	/* Keep the load under 75%. */
	if (!s->shift || (uint64_t)(s->live + 1) * 4 > (uint64_t)(s->mask + 1) * 3) {
		if (!grow(s)) {
			ok = false;
			goto out;
		}
	}
	uint32_t i = probe(s, key, &found);
	s->slots[i].key = key;
	s->slots[i].val = size | ((uint64_t)tctx << SIZE_BITS);
	if (!found) {
		s->live++;
		filter_inc(key);
	}
out:
	shard_unlock(s);
	return ok;
}

/* Backward-shift deletion: empties slot i and moves up every entry of its
 * cluster that would no longer be reachable from its home slot. */
static void delete_at(struct shard *s, uint32_t i)
{
	for (uint32_t j = (i + 1) & s->mask;; j = (j + 1) & s->mask) {
		uintptr_t k = s->slots[j].key;
		if (k == SLOT_EMPTY)
			break;
		uint32_t h = home(s, k);
		/* Entry j may move to i unless its home lies cyclically in
		 * (i, j]. */
		int stays = i <= j ? (h > i && h <= j) : (h > i || h <= j);
		if (!stays) {
			s->slots[i] = s->slots[j];
			i = j;
		}
	}
	s->slots[i].key = SLOT_EMPTY;
}

enum hp_live_result hp_live_remove(const void *p, uint64_t *size, uint32_t *tctx)
{
	uintptr_t key = (uintptr_t)p;
	struct shard *s = shard_of(key);
	bool found = false;

	if (key == SLOT_EMPTY)
		return HP_LIVE_ABSENT;
	if (held_by_me(s))
		return HP_LIVE_BUSY;
	shard_lock(s);
	if (s->shift) {
		uint32_t i = probe(s, key, &found);
		if (found) {
			uint64_t v = s->slots[i].val;
			*size = v & HP_LIVE_SIZE_MAX;
			*tctx = (uint32_t)(v >> SIZE_BITS);
			delete_at(s, i);
			s->live--;
			filter_dec(key);
		}
	}
	shard_unlock(s);
	return found ? HP_LIVE_REMOVED : HP_LIVE_ABSENT;
}

bool hp_live_find(const void *p, uint64_t *size, uint32_t *tctx)
{
	uintptr_t key = (uintptr_t)p;
	struct shard *s = shard_of(key);
	bool found = false;

	if (key == SLOT_EMPTY || held_by_me(s))
		return false;
	shard_lock(s);
	if (s->shift) {
		uint32_t i = probe(s, key, &found);
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
		for (uint32_t i = 0; s->shift && i <= s->mask; i++) {
			uintptr_t k = s->slots[i].key;
			if (k == SLOT_EMPTY)
				continue;
			uint64_t v = s->slots[i].val;
			fn(k, v & HP_LIVE_SIZE_MAX, (uint32_t)(v >> SIZE_BITS), arg);
		}
		shard_unlock(s);
	}
}

uint64_t hp_live_records(void)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < HP_LIVE_SHARDS; i++)
		n += HP_LOAD(&shards[i].live);
	return n;
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
	held.n = 0;
}
