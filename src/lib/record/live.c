/*
 * live.c -- the sharded live-block table (see live.h).
 *
 * Owns the shards, and the counts in the page filter (next/filter.h).
 * Called from malloc/free slow paths: a shard lock is held only for a probe and a store (and, rarely, a table
 * doubling); nothing here calls the host allocator.  Readers never look at
 * a table without its shard lock, so replaced tables are unmapped at once.
 *
 * A block's shard is chosen by its 64 KiB region, taken from its filter
 * index, so every block counted in a filter byte lives in the same shard
 * and the byte is only written under that shard's lock: plain stores, no
 * atomic read-modify-write; and threads allocating from their own arenas
 * take their own shards' locks.  Tables
 * use linear probing with backward-shift deletion: no tombstones, so a
 * table is rebuilt only when it grows.  Tables start at 16 slots, carved
 * with the other small ones from shared pages, so that a process with few
 * sampled blocks spread over all 256 shards holds 64 KiB of tables, not a
 * page per shard; they double up to a page, at most half full, then grow
 * by half, at most 80% full, so that a table is never less than 53% full
 * once it is large, 66% on average (doubling at 75% would leave every
 * shard 37.5% full at once: in exact mode the table is most of heapprof's
 * memory).  Each record moves about three times over the table's growth.
 * A probe never wraps round: past a table's n home slots come overflow
 * slots, where the clusters that reach the end run on, and an empty
 * sentinel that ends every probe, so that a probe's step has no bound to
 * test and a backward shift's only compare is an entry's home against
 * the hole (the wrap's tests were a third of a removal's instructions on
 * exact churn).  A cluster that would run past the overflow grows the
 * table early.
 * (By an eighth at 75%, nine times: recording a 1 GiB heap of 10 M
 * blocks took 4.3 s; by a quarter, five times, 3.3 s, then 1.92 s of CPU
 * with the prefetches below; by half at 80%, 1.59 s, its tables 220 MB
 * instead of 243 MB for that heap (by a third at 80%: 1.84 s against
 * 1.65 s for half, alternated in one run).  Over heap
 * sizes, by half at 80% takes 2-4% more table memory on average (24.9
 * bytes a record instead of 24.2 from 10^5 to 3 x 10^7 records), up to
 * 37% more at the unluckiest sizes, just after a growth.)  Slot
 * indexes are taken from the hash by a multiply, not a mask, so a table can have any number of slots.
 */
#include <string.h>
#include <sys/mman.h>

#include "record/live.h"
#include "record/ages.h"
#include "record/switches.h"
#include "base/pages.h"
#include "base/spin.h"
#include "base/banned.h"


#define SLOT_EMPTY   0u
#define MIN_SHIFT    4u          /* 16 slots, 256 bytes */
#define PAGE_SHIFT   8u          /* from 256 slots (4 KiB) on, a table is pages of its own */
#define PAGE_SLOTS   (1u << PAGE_SHIFT)
#define SIZE_BITS    40
#define HASH_MUL     0x9e3779b97f4a7c15ULL

struct slot {
	uintptr_t key;
	uint64_t val;   /* size in the low 40 bits, tctx in the high 24 */
};
_Static_assert(sizeof(struct slot) == sizeof(struct hp_live_slot) && SIZE_BITS == HP_LIVE_TCTX_SHIFT &&
	       SLOT_EMPTY == 0, "hp_live_slot is a slot");

struct shard {
	struct hp_spin lock;
	uint32_t live;      /* records */
	uint32_t n;         /* slots, 0 before the first insert */
	uint32_t grow_at;   /* records from which an insert takes its cold
			     * path: limit, or 0 with ages (below) */
	uint32_t limit;     /* records past which an insert grows the table
			     * (a half or 80% of n; 0 before the first) */
	uint32_t cap;       /* slots a record may take: the n home slots and
			     * the overflow (0 before the first table) */
	struct slot *slots; /* cap + 1: the last one always empty */
	uint32_t *ticks;    /* with ages: each slot's allocation tick
			     * (record/ages.h), after the slots in the same
			     * mapping; NULL without */
} __attribute__((aligned(HP_CACHELINE)));

/* Whether tables carry a tick per slot (prof_age): decided once, before
 * the first table, so that every table of the process has the same
 * layout and the small tables' free lists one size per class.  The hot
 * paths never test it: with ages every shard's grow_at is 0, so that
 * every insert takes the cold path, which dates the block (exact mode
 * has no ages by default, and its insert and backward shift paid about
 * seven instructions a call for their tests, 1.2% of exact churn); and a
 * removal tests it only when its backward shift moves an entry. */
static bool ages;

/* Bytes a slot takes in a table. */
static size_t slot_bytes(void)
{
	return sizeof(struct slot) + (ages ? sizeof(uint32_t) : 0);
}

/* Slots of a table of n home slots: the overflow slots past them, where
 * the clusters that reach the end run on (a small table at most half
 * full; a large one at most 80% full, whose longest cluster is some
 * hundreds of slots at 50,000 slots), and the sentinel; a multiple of 4,
 * so that small tables carved one after the other stay aligned to cache
 * lines. */
static uint32_t table_slots(uint32_t n)
{
	uint32_t over = n < PAGE_SLOTS ? n / 4 + 3 : n / 64 + 64;

	return (n + over + 1 + 3) & ~3u;
}

/* Bytes of a table of n home slots (0: none). */
static size_t table_size(uint32_t n)
{
	return n ? (size_t)table_slots(n) * slot_bytes() : 0;
}

/* A table's ticks: a word for each of its slots, after them. */
static uint32_t *ticks_of(struct slot *t, uint32_t n)
{
	return ages ? (uint32_t *)(t + table_slots(n)) : NULL;
}

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

static HP_NOINLINE bool held_in_stack(const struct shard *s)
{
	int idx = (int)(s - shards), n = held.n;

	if (n > HELD_MAX)
		return true;
	for (int i = 0; i < n; i++)
		if (held.shard[i] == idx)
			return true;
	return false;
}

/* Outside a signal handler that interrupted us, the stack is empty. */
HP_INLINE bool held_by_me(const struct shard *s)
{
	return HP_UNLIKELY(held.n) && held_in_stack(s);
}

/* Blocks are grouped by region (REGION_SHIFT bits of address, taken
 * from the filter index so that pages aliased modulo 4 GiB share a shard
 * as they share a filter byte).  Allocators give each thread its own
 * regions (glibc's arenas, jemalloc's and tcmalloc's thread caches), so a
 * thread mostly takes locks no other core touches: hashing each page to
 * a shard instead bounced every lock's cache line between cores in exact
 * mode (a third of the time of a 2-thread churn). */
#define REGION_SHIFT 16
static struct shard *shard_of(uintptr_t p)
{
	uint64_t region = hp_filter_index(p) >> (REGION_SHIFT - HP_FILTER_PAGE_SHIFT);
	return &shards[(region * HASH_MUL) >> 56];
}

/* A key's home slot in a table of n home slots.  The loops below keep the
 * table's slots and n in locals: read through the shard, the compiler
 * reloaded both at every step, since a slot's store might change them. */
static uint32_t home(uint32_t n, uintptr_t key)
{
	return (uint32_t)(((unsigned __int128)((uint64_t)key * HASH_MUL) * n) >> 64);
}



/* The held stack covers the whole window in which the lock may be ours:
 * an entry is pushed before the lock is taken and popped after it is
 * released, so a handler that runs in between never spins on our own lock
 * (it defers, which is always safe).  A process of one thread takes no
 * lock (base/spin.h: hp_single_threaded; nothing under a shard lock
 * creates a thread), only the held entry that its signal handlers
 * respect: the locked exchange was a third of an insert's time recording
 * a 1 GiB heap.  The unlock's store is then of the 0 the lock word
 * already holds. */
HP_INLINE void held_push(struct shard *s)
{
	if (held.n < HELD_MAX)
		held.shard[held.n] = (int)(s - shards);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	held.n++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* One exchange, after held_push: false if another thread holds the
 * lock.  The spin is the caller's, out of line: the insert and the
 * removal then make no call on their common paths and save no
 * registers (inlined, the spin's sched_yield call made each save and
 * restore six). */
HP_INLINE bool shard_trylock(struct shard *s)
{
	return hp_single_threaded() || !__atomic_exchange_n(&s->lock.locked, 1, __ATOMIC_ACQUIRE);
}

HP_INLINE void shard_lock(struct shard *s)
{
	held_push(s);
	if (!shard_trylock(s))
		hp_spin_lock(&s->lock);
}

HP_INLINE void shard_unlock(struct shard *s)
{
	hp_spin_unlock(&s->lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	held.n--;
}

/* The slot holding key, or the empty slot ending its probe sequence: at
 * most cap, the sentinel, which no record may take. */
static uint32_t probe(const struct shard *s, uintptr_t key, bool *found)
{
	const struct slot *slots = s->slots, *at = slots + home(s->n, key);
	uintptr_t k;

	while ((k = at->key) != key && k != SLOT_EMPTY)
		at++;
	*found = k == key;
	return (uint32_t)(at - slots);
}

/* ---- tables ----------------------------------------------------------- */

/* Small tables (16 to 128 slots) come from 64 KiB chunks with a free list
 * per size; the lock is taken only when a shard grows, under that shard's
 * lock, always in that order. */
#define SMALL_CLASSES (PAGE_SHIFT - MIN_SHIFT)
#define SMALL_CHUNK   (64u << 10)

static struct {
	struct hp_spin lock;
	void *free[SMALL_CLASSES];
	char *cur, *end;
} small;

/* Bytes of all shards' tables, now and at most, for the debug log. */
static uint64_t table_bytes, table_bytes_peak;

#define TABLES_BIG (1u << 20)
bool hp_live_tables_big;

static void note_table_bytes(int64_t delta)
{
	uint64_t now = HP_ADD(&table_bytes, (uint64_t)delta) + (uint64_t)delta;
	uint64_t peak = HP_LOAD(&table_bytes_peak);

	if (now >= TABLES_BIG && !HP_LOAD(&hp_live_tables_big))
		HP_STORE(&hp_live_tables_big, true);
	while (now > peak && !__atomic_compare_exchange_n(&table_bytes_peak, &peak, now, false,
							  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* The size class of a small table of n slots (16, 32, 64 or 128). */
static unsigned small_class(uint32_t n)
{
	unsigned c = 0;

	while ((1u << (MIN_SHIFT + c)) < n)
		c++;
	return c;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static struct slot *table_alloc(uint32_t n)
{
	size_t bytes = table_size(n);

	if (n >= PAGE_SLOTS) {
		/* Faulted in by one call: the rehash that follows reads
		 * every page before it writes it, which took two faults a
		 * page (the zero page, then its copy), a tenth of recording
		 * a 1 GiB heap.  Before Linux 5.14 this fails, harmlessly. */
		struct slot *t = hp_pages_alloc(bytes);
		if (t)
			madvise(t, bytes, MADV_POPULATE_WRITE);
		return t;
	}
	unsigned c = small_class(n);
	void *t = NULL;
	hp_spin_lock(&small.lock);
	if (small.free[c]) {
		t = small.free[c];
		small.free[c] = *(void **)t;
	} else {
		if (!small.cur || (size_t)(small.end - small.cur) < bytes) {
			char *chunk = hp_pages_alloc(SMALL_CHUNK);   /* the rest of the old one is lost */
			if (chunk) {
				small.cur = chunk;
				small.end = chunk + SMALL_CHUNK;
			}
		}
		if (small.cur && (size_t)(small.end - small.cur) >= bytes) {
			t = small.cur;
			small.cur += bytes;
		}
	}
	hp_spin_unlock(&small.lock);
	if (t)
		memset(t, 0, bytes);
	return t;
}

static void table_free(struct slot *t, uint32_t n)
{
	if (n >= PAGE_SLOTS) {
		hp_pages_free(t, table_size(n));
		return;
	}
	unsigned c = small_class(n);
	hp_spin_lock(&small.lock);
	*(void **)t = small.free[c];
	small.free[c] = t;
	hp_spin_unlock(&small.lock);
}

/* The next table size: 16 slots first, doubling to a page, then half
 * more each time, in whole pages. */
static uint32_t next_size(uint32_t n)
{
	if (n == 0)
		return 1u << MIN_SHIFT;
	if (n < PAGE_SLOTS)
		return n * 2;
	uint64_t grown = (uint64_t)n + n / 2;
	uint64_t per_page = 4096 / sizeof(struct slot);
	grown = (grown + per_page - 1) / per_page * per_page;
	return grown > UINT32_MAX / 2 ? n : (uint32_t)grown;
}

/* Moves the shard's records into fresh, a zeroed table of n home slots;
 * false if one would run past its overflow (fresh is then garbage). */
static bool rehash(const struct shard *s, struct slot *fresh, uint32_t n)
{
	uint32_t cap = table_slots(n) - 1, *ticks = ticks_of(fresh, n);

	for (uint32_t i = 0; i < s->cap; i++) {
		uintptr_t k = s->slots[i].key;
		if (k == SLOT_EMPTY)
			continue;
		uint32_t j = home(n, k);
		while (fresh[j].key != SLOT_EMPTY)
			j++;
		if (j == cap)
			return false;
		fresh[j] = s->slots[i];
		if (ticks)
			ticks[j] = s->ticks[i];
	}
	return true;
}

/* The shard's table is now t, of n home slots. */
static void adopt(struct shard *s, struct slot *t, uint32_t n)
{
	note_table_bytes((int64_t)table_size(n) - (int64_t)table_size(s->n));
	s->ticks = ticks_of(t, n);
	s->cap = table_slots(n) - 1;
	HP_STORE(&s->slots, t);   /* hp_live_prefetch reads both unlocked */
	HP_STORE(&s->n, n);
	/* Small tables at most half full: a removal's backward shift walks
	 * the rest of its cluster, 4.9 slots on average at up to 75% in a
	 * churn of 2 x 1000 blocks (their 256 shards then hold at most
	 * 512 KiB of small tables, not 256).  Large ones at most 80%
	 * full, since they grow by half (see the top). */
	s->limit = (uint32_t)(n < PAGE_SLOTS ? (uint64_t)n / 2 : (uint64_t)n * 4 / 5);
	s->grow_at = ages ? 0 : s->limit;
}

static bool grow(struct shard *s);

/* A record the in-place growth could not keep (no memory to grow the
 * table for it): it leaves the table and the filter, counted as
 * dropped, as an insert that fails. */
static HP_COLD void lose(struct shard *s, uintptr_t key)
{
	HP_STORE(&s->live, s->live - 1);
	hp_filter_dec(key);
	HP_ADD(&hp_switches.dropped, 1);
	HP_STORE(&hp_switches.missed, 1);
}

/* Puts back a record the in-place growth set aside: its counts never
 * left (live and the filter still count it). */
static void put_back(struct shard *s, struct slot e)
{
	bool found;
	uint32_t i;

	while ((i = probe(s, e.key, &found)) == s->cap)
		if (!grow(s)) {
			lose(s, e.key);
			return;
		}
	s->slots[i] = e;
}

/* The records an in-place growth sets aside: about one a growth (the
 * few near the table's start), so a few slots on the stack, and pages
 * for every record, so that none is ever counted first, only if those
 * fill (the pages' map and unmap were a third of the growths' time on
 * perl's hash).  Keys inverted, as every
 * address heapprof keeps in memory a leak scan may read: the stack's
 * copies outlive the growth. */
#define ASIDE_INLINE 16
struct aside {
	struct slot inl[ASIDE_INLINE];
	struct slot *at;    /* inl, or pages */
	uint32_t n, room;
	size_t bytes;       /* of the pages; 0 while inl */
};

/* False if e found no room (no memory for the pages). */
static bool aside_put(struct aside *a, struct slot e, uint32_t records)
{
	if (a->n == a->room) {
		size_t bytes = ((size_t)records + 1) * sizeof(struct slot);
		struct slot *pages = a->bytes ? NULL : hp_pages_alloc(bytes);
		if (!pages)
			return false;
		memcpy(pages, a->at, a->n * sizeof(struct slot));
		a->at = pages;
		a->room = records + 1;
		a->bytes = bytes;
	}
	e.key = ~e.key;
	a->at[a->n++] = e;
	return true;
}

/* Grows a large table without ages in place: its mapping grows (its
 * pages move, none is copied or faulted in again: growing into a fresh
 * table and unmapping the old one faulted in three times the final
 * tables' pages, most of the system time heapprof adds recording a
 * 1 GiB heap), then its records move, from the last slot down, to their
 * slots in the larger table.  A record's new home is never before its
 * old one (homes scale with n), so a record whose new home is at or
 * after its old slot only meets slots already rehashed, and its probe
 * passes no slot a later move empties; the others (near the table's
 * start, where a record can lie further from its home than half the
 * home) are set aside and put back at the end, with any whose cluster
 * would run past the overflow.  1 grown, 0 at its largest, -1 nothing
 * done (no memory): the caller copies. */
static int grow_in_place(struct shard *s)
{
	uint32_t old_n = s->n, n = next_size(old_n), old_cap = s->cap;
	struct slot *t = s->slots;
	struct aside aside;

	if (n == old_n)
		return 0;
	size_t old_bytes = table_size(old_n), bytes = table_size(n);
	t = hp_pages_resize(t, old_bytes, bytes);
	if (!t)
		return -1;
	/* The new pages at once (see table_alloc); the old ones are in. */
	size_t kept = hp_pages_round(old_bytes);   /* its first new page */
	if (kept < bytes)
		madvise((char *)t + kept, bytes - kept, MADV_POPULATE_WRITE);
	aside.at = aside.inl;
	aside.n = 0;
	aside.room = ASIDE_INLINE;
	aside.bytes = 0;
	uint32_t cap = table_slots(n) - 1;
	for (uint32_t i = old_cap; i-- > 0;) {
		uintptr_t k = t[i].key;
		if (k == SLOT_EMPTY)
			continue;
		struct slot e = t[i];
		t[i].key = SLOT_EMPTY;
		uint32_t j = home(n, k);
		if (j >= i) {
			while (t[j].key != SLOT_EMPTY)
				j++;
			if (j < cap) {
				t[j] = e;
				continue;
			}
		}
		if (!aside_put(&aside, e, s->live))
			lose(s, k);
	}
	adopt(s, t, n);
	for (uint32_t a = 0; a < aside.n; a++) {
		struct slot e = aside.at[a];
		e.key = ~e.key;
		put_back(s, e);
	}
	if (aside.bytes)
		hp_pages_free(aside.at, aside.bytes);
	return 1;
}

/* Grows the shard's table (or creates it): to the next size, or past it
 * if a cluster would run past the overflow.  False if memory ran out (or
 * the table cannot grow): the old table stays.  Out of line: inlined,
 * its registers made every insert save and restore six more. */
static HP_COLD bool grow(struct shard *s)
{
	uint32_t old_n = s->n, n = old_n;
	struct slot *fresh;

	if (old_n >= PAGE_SLOTS && !ages) {
		int r = grow_in_place(s);
		if (r >= 0)
			return r;
	}
	for (;;) {
		uint32_t bigger = next_size(n);
		if (bigger == n)
			return false;
		n = bigger;
		fresh = table_alloc(n);
		if (!fresh)
			return false;
		if (rehash(s, fresh, n))
			break;
		table_free(fresh, n);   /* a small one comes back dirty: table_alloc zeroes it */
	}
	if (old_n)
		table_free(s->slots, old_n);
	adopt(s, fresh, n);
	return true;
}

HP_INLINE void prefetch_slot(uintptr_t key, int lines)
{
	const struct shard *s = shard_of(key);
	uint32_t n = HP_LOAD(&s->n);
	struct slot *slots = HP_LOAD(&s->slots);

	/* Without the lock: a table being replaced may be unmapped under
	 * us, which a prefetch does not mind; n and slots may be of two
	 * tables, which only makes the prefetch useless. */
	if (n && slots) {
		const char *at = (const char *)&slots[(uint32_t)(((unsigned __int128)((uint64_t)key * HASH_MUL) * n) >> 64)];
		__builtin_prefetch(at, 1);
		for (int l = 1; l < lines; l++)
			__builtin_prefetch(at + l * HP_CACHELINE, 1);
	}
}

/* The stride between the thread's last inserted addresses: an allocator
 * that hands out consecutive blocks (glibc from its top chunk, any
 * allocator filling a fresh run) makes the next addresses predictable,
 * and the slots of the one eight strides ahead, a cache miss in a large
 * table, are fetched early: the insert's probe, up to three lines at 80%
 * load, was most of recording a 1 GiB heap in 10 M blocks (with tables
 * growing by a quarter: 1, 2 and 4 strides ahead, one line: 2.23, 2.08
 * and 2.00 s; 4 ahead, two lines: 1.92 s; by half: 4 ahead, two lines,
 * 1.68 s; 8 ahead, three lines, 1.50 s, and as good 16 ahead or four
 * lines).  Where the stride changes, one compare. */
static __thread struct {
	/* Both inverted: the leak scan reads thread-local memory, and must
	 * take neither for a pointer (a thread's first stride is its first
	 * block's address plus one). */
	uintptr_t last_inv;
	uintptr_t stride_inv;
} seq;

/* hp_live_prefetch's slot, unless the stride foretold this block: then
 * prefetch_next fetched its slot eight blocks ago (recording a 1 GiB
 * heap of 10 M blocks, the second fetch and its slot's arithmetic were
 * 1% of the time). */
void hp_live_prefetch_slot(const void *p)
{
	if ((uintptr_t)p - ~seq.last_inv == ~seq.stride_inv)
		return;
	prefetch_slot((uintptr_t)p, 1);
}

HP_INLINE void prefetch_next(uintptr_t key)
{
	uintptr_t stride = key - ~seq.last_inv;

	seq.last_inv = ~key;
	if (stride == ~seq.stride_inv)
		prefetch_slot(key + 8 * stride, 3);
	seq.stride_inv = ~stride;
}

/* Three lines from the home slot: a removal reads on to its cluster's
 * end (the backward shift), and in perl's hash freed at exit half of
 * remove_shift's samples were on the load of a slot past the first
 * line.  Batches of 32 (record/sampled.c), the after-exit phase's CPU:
 * 158 -> 151 ms, 161 -> 156, 151 -> 139 (medians of 21, 15 and 15;
 * bare 120). */
void hp_live_prefetch_remove(const void *p)
{
	prefetch_slot((uintptr_t)p, 3);
}

void hp_live_prefetch_shard(const void *p)
{
	__builtin_prefetch(shard_of((uintptr_t)p), 0);
}

/* Fills slot i (found: it held key already) with key's record. */
HP_INLINE void put(struct shard *s, uint32_t i, bool found, uintptr_t key, uint64_t size,
		   uint32_t tctx)
{
	s->slots[i].key = key;
	s->slots[i].val = size | ((uint64_t)tctx << SIZE_BITS);
	if (!found) {
		HP_STORE(&s->live, s->live + 1);   /* hp_live_records reads it unlocked */
		hp_filter_inc(key);
	}
}

/* The end of every insert: the lock, then the next blocks' slots. */
HP_INLINE bool insert_done(struct shard *s, uintptr_t key, bool ok)
{
	shard_unlock(s);
	if (HP_LOAD(&hp_live_tables_big))
		prefetch_next(key);
	return ok;
}

/* The insert of a shard at its growth threshold, or of any shard with
 * ages, or whose probe ended on the sentinel (the cluster fills the
 * overflow: the table grows early), under the lock: grows the table if
 * it must, then records key, dated with ages (the clock read under the
 * lock: with ages a sampled block costs hundreds of instructions
 * anyway). */
static HP_COLD bool insert_cold(struct shard *s, uintptr_t key, uint64_t size, uint32_t tctx)
{
	bool found;
	uint32_t i;

	if (s->live >= s->limit && !grow(s))
		return insert_done(s, key, false);
	while ((i = probe(s, key, &found)) == s->cap)
		if (!grow(s))
			return insert_done(s, key, false);
	put(s, i, found, key, size, tctx);
	if (s->ticks)
		s->ticks[i] = hp_ages_now();
	return insert_done(s, key, true);
}

/* The insert under the lock, which it releases. */
HP_INLINE bool insert_locked(struct shard *s, uintptr_t key, uint64_t size, uint32_t tctx)
{
	bool found;

	if (HP_UNLIKELY(s->live >= s->grow_at))
		return insert_cold(s, key, size, tctx);
	uint32_t i = probe(s, key, &found);
	if (HP_UNLIKELY(i == s->cap))
		return insert_cold(s, key, size, tctx);
	put(s, i, found, key, size, tctx);
	return insert_done(s, key, true);
}

static HP_COLD bool insert_contended(struct shard *s, uintptr_t key, uint64_t size, uint32_t tctx)
{
	hp_spin_lock(&s->lock);
	return insert_locked(s, key, size, tctx);
}

/* Every call that leaves the common path is a tail call: nothing is
 * live across a call, and the common path saves no register. */
bool hp_live_insert(const void *p, uint64_t size, uint32_t tctx)
{
	uintptr_t key = (uintptr_t)p;
	struct shard *s = shard_of(key);

	held_push(s);
	if (HP_UNLIKELY(!shard_trylock(s)))
		return insert_contended(s, key, size, tctx);
	return insert_locked(s, key, size, tctx);
}

/* Backward-shift deletion: empties slot i and moves back every entry of
 * its cluster that would no longer be reachable from its home slot: an
 * entry whose home is at or before the hole (homes are never after
 * their entries: a probe never wraps).  The cluster ends at the latest
 * on the sentinel. */
HP_INLINE void delete_at(struct shard *s, struct slot *slots, uint32_t n, uint32_t i)
{
	uintptr_t k;

	for (uint32_t j = i + 1; (k = slots[j].key) != SLOT_EMPTY; j++) {
		if (home(n, k) <= i) {
			slots[i] = slots[j];
			if (HP_UNLIKELY(HP_LOAD(&ages)))
				s->ticks[i] = s->ticks[j];
			i = j;
		}
	}
	slots[i].key = SLOT_EMPTY;
}

/* The end of a removal that found key: the counts, then the lock. */
HP_INLINE enum hp_live_result removed(struct shard *s, uintptr_t key)
{
	HP_STORE(&s->live, s->live - 1);
	hp_filter_dec(key);
	shard_unlock(s);
	return HP_LIVE_REMOVED;
}

/* A removal whose slot's cluster goes on past it: the backward shift,
 * out of line, so that the common removal (the next slot empty: in a
 * table at most half full, most of them) keeps few registers and saves
 * none. */
static HP_NOINLINE enum hp_live_result remove_shift(struct shard *s, struct slot *slots, uint32_t n,
						    uint32_t i, uintptr_t key)
{
	delete_at(s, slots, n, i);
	return removed(s, key);
}

/* The removal under the lock, which it releases. */
HP_INLINE enum hp_live_result remove_locked(struct shard *s, uintptr_t key, uint64_t *size,
					    uint32_t *tctx)
{
	struct slot *slots = s->slots;
	uint32_t n = s->n;

	if (HP_LIKELY(n)) {
		struct slot *at = slots + home(n, key);
		uintptr_t k;
		while ((k = at->key) != key && k != SLOT_EMPTY)
			at++;
		if (k == key) {
			uint64_t v = at->val;
			*size = v & HP_LIVE_SIZE_MAX;
			*tctx = (uint32_t)(v >> SIZE_BITS);
			if (at[1].key != SLOT_EMPTY)
				return remove_shift(s, slots, n, (uint32_t)(at - slots), key);
			at->key = SLOT_EMPTY;
			return removed(s, key);
		}
	}
	shard_unlock(s);
	return HP_LIVE_ABSENT;
}

/* A removal while this thread holds some shard: a signal handler's, or
 * one whose lock is taken by another thread. */
static HP_COLD enum hp_live_result remove_slow(struct shard *s, uintptr_t key, uint64_t *size,
					       uint32_t *tctx)
{
	if (held_in_stack(s))
		return HP_LIVE_BUSY;
	shard_lock(s);
	return remove_locked(s, key, size, tctx);
}

static HP_COLD enum hp_live_result remove_contended(struct shard *s, uintptr_t key, uint64_t *size,
						    uint32_t *tctx)
{
	hp_spin_lock(&s->lock);
	return remove_locked(s, key, size, tctx);
}

/* As the insert, with tail calls off the common path. */
enum hp_live_result hp_live_remove(const void *p, uint64_t *size, uint32_t *tctx)
{
	uintptr_t key = (uintptr_t)p;
	struct shard *s = shard_of(key);

	if (key == SLOT_EMPTY)
		return HP_LIVE_ABSENT;
	if (HP_UNLIKELY(held.n))
		return remove_slow(s, key, size, tctx);
	held_push(s);
	if (HP_UNLIKELY(!shard_trylock(s)))
		return remove_contended(s, key, size, tctx);
	return remove_locked(s, key, size, tctx);
}

bool hp_live_find(const void *p, uint64_t *size, uint32_t *tctx)
{
	uintptr_t key = (uintptr_t)p;
	struct shard *s = shard_of(key);
	bool found = false;

	if (key == SLOT_EMPTY || held_by_me(s))
		return false;
	shard_lock(s);
	if (s->n) {
		uint32_t i = probe(s, key, &found);
		if (found) {
			*size = s->slots[i].val & HP_LIVE_SIZE_MAX;
			*tctx = (uint32_t)(s->slots[i].val >> SIZE_BITS);
		}
	}
	shard_unlock(s);
	return found;
}

void hp_live_each_shard_held(unsigned from, unsigned to, void (*fn)(const struct hp_live_slot *, uint32_t, void *),
			     void *arg)
{
	for (unsigned n = from; n < to && n < HP_LIVE_SHARDS; n++)
		if (shards[n].live)
			fn((const struct hp_live_slot *)shards[n].slots, shards[n].cap, arg);
}

void hp_live_each_aged(void (*fn)(uint64_t size, uint32_t tctx, uint32_t tick, void *arg),
		       void *arg)
{
	if (!ages)
		return;
	for (unsigned n = 0; n < HP_LIVE_SHARDS; n++) {
		struct shard *s = &shards[n];
		shard_lock(s);
		for (uint32_t i = 0; i < s->cap; i++) {
			if (s->slots[i].key == SLOT_EMPTY)
				continue;
			uint64_t v = s->slots[i].val;
			fn(v & HP_LIVE_SIZE_MAX, (uint32_t)(v >> SIZE_BITS), s->ticks[i], arg);
		}
		shard_unlock(s);
	}
}

bool hp_live_keep_ages(void)
{
	if (!ages && !HP_LOAD(&table_bytes))
		ages = true;
	return ages;
}

bool hp_live_ages(void)
{
	return ages;
}

bool hp_live_find_held(uintptr_t p, uint64_t *size, uint32_t *tctx)
{
	const struct shard *s = shard_of(p);
	bool found = false;

	if (p == SLOT_EMPTY || !s->n)
		return false;
	uint32_t i = probe(s, p, &found);
	if (found) {
		*size = s->slots[i].val & HP_LIVE_SIZE_MAX;
		*tctx = (uint32_t)(s->slots[i].val >> SIZE_BITS);
	}
	return found;
}

void hp_live_table_bytes(uint64_t *now, uint64_t *peak)
{
	*now = HP_LOAD(&table_bytes);
	*peak = HP_LOAD(&table_bytes_peak);
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
	hp_spin_reset(&small.lock);   /* only ever taken under a shard lock: free here */
	held.n = 0;
}
