/*
 * stacktab.c -- the interned stack table (see stacktab.h).
 *
 * Owns the prefix tree's nodes and their hash index (by the path's hash,
 * stack/unwind.h's), and the stacks' records by id.  Both are arrays in chunks
 * that never move, found through directories whose entries are set once.
 * Readers probe the index without a lock; a writer holding insert_lock
 * adds a node or a stack, and when the index fills it builds a bigger
 * one, publishes it, and retires the old one with hp_pages_retire: a
 * reader still probing it reads zeros, misses, and retries under the
 * lock.  A node's stack id is set once, under the lock, after its
 * record.
 */
#include <string.h>

#include "base/pages.h"
#include "base/spin.h"
#include "record/stacktab.h"
#include "base/banned.h"

#define CHUNK_SHIFT 14
#define CHUNK_LEN   (1u << CHUNK_SHIFT)
#define CHUNKS_MAX  4096u      /* up to 2^26 nodes, and as many stacks (the
				* directories, 64 KiB, count against a
				* small RLIMIT_AS: t/0746) */
#define INDEX_MIN   4096u

/* A frame under its caller's node (0: the root). */
struct node {
	uintptr_t ip;      /* its return address, as walked */
	uint32_t parent;
	uint32_t sid;      /* the stack this node ends, 0 until recorded */
};

struct index {
	uint32_t mask;
	uint32_t ids[];    /* node ids, 0: empty */
};

static struct index *index_cur;
static void *node_dir[CHUNKS_MAX];     /* chunks of struct node */
static void *stack_dir[CHUNKS_MAX];    /* chunks of struct hp_stack */
static uint32_t nnodes, count;
static uint64_t frames_total;    /* for the debug log */
static struct hp_spin insert_lock;

HP_INLINE const struct node *node_at(uint32_t id)
{
	return (const struct node *)HP_LOAD(&node_dir[id >> CHUNK_SHIFT]) + (id & (CHUNK_LEN - 1));
}

HP_INLINE struct hp_stack *stack_at(uint32_t id)
{
	return (struct hp_stack *)HP_LOAD(&stack_dir[id >> CHUNK_SHIFT]) + (id & (CHUNK_LEN - 1));
}

const struct hp_stack *hp_stacktab_get(uint32_t id)
{
	if (!id || id > HP_LOAD_ACQ(&count))
		return NULL;
	return stack_at(id);
}

uint64_t hp_stacktab_frames(void)
{
	return HP_LOAD(&frames_total);
}

uint32_t hp_stacktab_nodes(void)
{
	return HP_LOAD(&nnodes);
}

uint32_t hp_stacktab_count(void)
{
	return HP_LOAD_ACQ(&count);
}

uintptr_t hp_stacktab_next(struct hp_stack_frames *it)
{
	if (!it->node)
		return 0;
	const struct node *nd = node_at(it->node);
	uintptr_t pc = nd->ip - it->back;
	it->back = 0;
	it->node = nd->parent;
	return pc;
}

/* ---- nodes ------------------------------------------------------------ */

/* The node (parent, ip), whose path's hash is h, in ix: 0 if absent (or
 * ix retired). */
HP_INLINE uint32_t find(const struct index *ix, uint32_t parent, uintptr_t ip, uint64_t h)
{
	for (uint32_t i = (uint32_t)h & ix->mask;; i = (i + 1) & ix->mask) {
		uint32_t id = HP_LOAD_ACQ(&ix->ids[i]);
		if (!id)
			return 0;
		const struct node *nd = node_at(id);
		if (nd->ip == ip && nd->parent == parent)
			return id;
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

/* Under insert_lock: makes room in the index for one more node.  Nodes
 * keep no hash: a parent comes before its children, so one pass in id
 * order works every path's out, in a scratch array. */
static int ensure_room(void)
{
	struct index *ix = index_cur;
	uint32_t slots = ix ? ix->mask + 1 : 0;

	if (ix && (uint64_t)(nnodes + 1) * 2 <= slots)
		return 0;
	uint32_t nslots = slots ? slots * 2 : INDEX_MIN;
	struct index *fresh = hp_pages_alloc(index_bytes(nslots));
	size_t hs_bytes = ((size_t)nnodes + 1) * sizeof(uint64_t);
	uint64_t *hs = nnodes ? hp_pages_alloc(hs_bytes) : NULL;
	if (!fresh || (nnodes && !hs)) {
		if (fresh)
			hp_pages_free(fresh, index_bytes(nslots));
		return -1;
	}
	fresh->mask = nslots - 1;
	for (uint32_t id = 1; id <= nnodes; id++) {
		const struct node *nd = node_at(id);
		hs[id] = hp_stack_hash_step(nd->parent ? hs[nd->parent] : HP_STACK_HASH_SEED, nd->ip);
		index_put(fresh, id, hs[id]);
	}
	if (hs)
		hp_pages_free(hs, hs_bytes);
	HP_STORE_REL(&index_cur, fresh);
	if (ix)
		hp_pages_retire(ix, index_bytes(slots));
	return 0;
}

/* Under insert_lock: the chunk that slot id of dir falls in, mapped if
 * new; NULL when memory ran out. */
static void *chunk_for(void **dir, uint32_t id, size_t size)
{
	if ((id >> CHUNK_SHIFT) >= CHUNKS_MAX)
		return NULL;
	void *c = dir[id >> CHUNK_SHIFT];
	if (!c) {
		c = hp_pages_alloc((size_t)CHUNK_LEN * size);
		if (c)
			HP_STORE_REL(&dir[id >> CHUNK_SHIFT], c);
	}
	return c;
}

static HP_NOINLINE uint32_t child_locked(uint32_t parent, uintptr_t ip, uint64_t h)
{
	hp_spin_lock(&insert_lock);
	uint32_t id = index_cur ? find(index_cur, parent, ip, h) : 0;
	if (!id) {
		uint32_t next = nnodes + 1;
		struct node *c = chunk_for(node_dir, next, sizeof(struct node));
		if (c && !ensure_room()) {
			struct node *nd = &c[next & (CHUNK_LEN - 1)];
			nd->ip = ip;
			nd->parent = parent;
			HP_STORE_REL(&nnodes, next);
			index_put(index_cur, next, h);
			id = next;
		}
	}
	hp_spin_unlock(&insert_lock);
	return id;
}

/* The node of frame ip under parent, whose path's hash is h, inserted if
 * new; 0 when memory ran out. */
HP_INLINE uint32_t child(uint32_t parent, uintptr_t ip, uint64_t h)
{
	const struct index *ix = HP_LOAD_ACQ(&index_cur);
	uint32_t id = ix ? find(ix, parent, ip, h) : 0;

	return HP_LIKELY(id) ? id : child_locked(parent, ip, h);
}

/* ---- stacks ----------------------------------------------------------- */

static HP_NOINLINE const struct hp_stack *stack_locked(uint32_t node, uint32_t depth)
{
	struct node *nd = (struct node *)node_at(node);
	struct hp_stack *s = NULL;

	hp_spin_lock(&insert_lock);
	uint32_t sid = nd->sid;
	if (sid) {
		s = stack_at(sid);
	} else {
		uint32_t id = count + 1;
		struct hp_stack *c = chunk_for(stack_dir, id, sizeof(struct hp_stack));
		if (c) {
			s = &c[id & (CHUNK_LEN - 1)];
			s->id = id;
			s->depth = depth;
			s->node = node;
			HP_STORE(&frames_total, frames_total + depth);
			HP_STORE_REL(&count, id);
			HP_STORE_REL(&nd->sid, id);
		}
	}
	hp_spin_unlock(&insert_lock);
	return s;
}

HP_INLINE const struct hp_stack *stack_of(uint32_t node, uint32_t depth)
{
	uint32_t sid = HP_LOAD_ACQ(&node_at(node)->sid);

	if (HP_LIKELY(sid))
		return stack_at(sid);
	return stack_locked(node, depth);
}

const struct hp_stack *hp_stacktab_of_node(uint32_t node, uint32_t depth)
{
	return stack_of(node, depth);
}

const struct hp_stack *hp_stacktab_intern(const uintptr_t *frames, uint32_t depth)
{
	uint32_t node = 0;
	uint64_t h = HP_STACK_HASH_SEED;

	for (uint32_t i = depth; i-- > 0;) {
		h = hp_stack_hash_step(h, frames[i]);
		if (!(node = child(node, frames[i], h)))
			return NULL;
	}
	return depth ? stack_of(node, depth) : NULL;
}

/* Whether node id is the path f[top] .. f[from] under the node anc,
 * as one probe of the path's hash finds it: each frame's node is
 * written into f as it checks.  A path too short reaches the root, node
 * 0, whose slot (the first chunk's first, never used) reads as frame 0,
 * which no frame is. */
HP_INLINE bool is_path(uint32_t id, struct hp_unwind_frame *f, int top, int from, uint32_t anc)
{
	for (struct hp_unwind_frame *p = &f[top], *end = &f[from]; p >= end; p--) {
		const struct node *nd = node_at(id);
		if (nd->ip != p->ip)
			return false;
		p->node = id;
		id = nd->parent;
	}
	return id == anc;
}

HP_NOINLINE const struct hp_stack *hp_stacktab_memo_new(struct hp_unwind_memo *m, int top, uint32_t depth)
{
	struct hp_unwind_frame *f = m->f;
	/* The frames from the innermost that has a node in (from the root
	 * after a sentinel f[0], whose node is 0). */
	int from = (int)m->named;
	if (!from && !f[0].ip)
		from = 1;
	uint32_t anc = from ? f[from - 1].node : 0;

	/* Mostly known: one probe for the innermost, checked up to anc. */
	const struct index *ix = HP_LOAD_ACQ(&index_cur);
	for (uint32_t i = ix ? (uint32_t)f[top].h & ix->mask : 0; ix; i = (i + 1) & ix->mask) {
		uint32_t id = HP_LOAD_ACQ(&ix->ids[i]);
		if (!id)
			break;
		if (is_path(id, f, top, from, anc)) {
			m->named = (uint32_t)top + 1;
			return stack_of(id, depth);
		}
	}
	/* Else a frame at a time, inserting what is new. */
	uint32_t node = anc;
	for (int k = from; k <= top; k++) {
		if (!(node = child(node, f[k].ip, f[k].h)))
			return NULL;
		f[k].node = node;
		m->named = (uint32_t)k + 1;
	}
	return stack_of(node, depth);
}

void hp_stacktab_prefork(void)
{
	hp_spin_lock(&insert_lock);
}

void hp_stacktab_postfork_parent(void)
{
	hp_spin_unlock(&insert_lock);
}

void hp_stacktab_postfork_child(void)
{
	hp_spin_reset(&insert_lock);
}
