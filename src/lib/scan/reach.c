/*
 * reach.c -- the reachability scan (see reach.h).
 *
 * Owns nothing between scans: each scan maps the arrays it can size
 * beforehand (the mappings of the process) before it takes any lock, and
 * the rest (the block index, scan/blocks.h; the mark stack; the lost
 * blocks) once the threads are stopped, through hp_pages_alloc_held, and
 * unmaps them at its end (the lost blocks in hp_reach_release).  While
 * the other threads are stopped it holds every live-table shard lock and
 * the page registry's lock (both taken before the stop, so no stopped
 * thread holds them), and the dynamic loader's lock (the scan runs inside
 * dl_iterate_phdr, as LeakSanitizer's does, so no stopped thread can be
 * in dlopen); it makes no call that allocates through malloc or takes
 * another lock until the threads go on.
 *
 * Marking reads each word of the roots and of every block reached: the
 * words that fall in the blocks' span are looked up in the index (a hash
 * of chunk numbers, a bitmap word, a rank), and the blocks they point
 * into are marked there and pushed as ranges.  The blocks left unmarked
 * are listed, in address order, into hp_reach.blocks, where the lost
 * ones form their cliques.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/file.h"
#include "base/pages.h"
#include "base/sys.h"
#include "next/next.h"
#include "next/nextmaps.h"
#include "stack/entry.h"
#include "record/counters.h"
#include "record/stale.h"
#include "record/live.h"
#include "record/sampled.h"
#include "record/switches.h"
#include "record/stacktab.h"
#include "record/threads.h"
#include "scan/blocks.h"
#include "scan/reach.h"
#include "scan/pair.h"
#include "scan/world.h"
#include "base/banned.h"

/* A mapping of /proc/self/maps. */
struct mapping {
	uintptr_t lo, hi;
	unsigned readable : 1, writable : 1, exec : 1, shared : 1, named : 1;
	unsigned heap : 1;     /* [heap] */
	unsigned device : 1;   /* a file under /dev other than /dev/zero */
	unsigned special : 1;  /* [vvar], [vdso], [vsyscall]... */
	unsigned stack : 1;    /* holds a scanned thread's stack pointer */
	unsigned dead : 1;     /* an exited thread's stack */
	unsigned walked : 1;   /* [heap], walked beside the marking */
};

struct scan {
	struct hp_reach *r;
	int at_exit;                   /* hp_reach_run's */
	int valgrind;                  /* the program runs under valgrind */
	struct hp_world world;
	char *maps_text;
	size_t maps_cap;
	struct mapping *maps;
	size_t nmaps, maps_max;
	uintptr_t self_lo, self_hi;    /* heapprof's own object */
	uintptr_t ld_lo, ld_hi;        /* the dynamic loader */
	struct hp_blocks idx;          /* the recorded blocks by address */
	struct grey {
		uintptr_t lo, hi;
	} *stack;                      /* blocks marked, to scan */
	uint64_t nstack;
	int wait_ms;
	int careful;         /* some thread still runs: read without faulting */
	/* careful: the page read_word copied last (COPIED_WORDS) */
	uintptr_t *copied;
	uintptr_t copied_page;
	size_t copied_n;
	int copied_valid;
	/* the walk of [heap] beside the marking: its roots and stack */
	void *walk_found, *walk_stack;
	int exact;           /* every allocation since start-up is recorded */
	int pair_ok;         /* a second thread may help (scan/pair.h) */
	const struct hp_stack_entry *entry;
	int glibc;           /* the blocks are glibc's chunks */
	uintptr_t heap_top;  /* the top chunk of glibc's main heap */
	uintptr_t links_lo, links_hi;   /* glibc's main arena's lists */
	struct hp_nextmaps_range *skip; /* never roots, sorted: the arena's */
	size_t nskip;                   /* lists, the next allocator's TLS */
	intptr_t alloc_tls_off;         /* the next allocator's static TLS, */
	uintptr_t alloc_tls_size;       /* from each thread's pthread_self */
	uintptr_t heap_lo, heap_hi;     /* glibc's main heap */
	uintptr_t *fast;     /* the chunks in the main arena's fast bins, */
	size_t nfast, fast_max;         /* sorted */
	int fast_known;                 /* they were listed */
	struct hp_nextmaps_range *alloc;   /* the next allocator's own ranges, */
	size_t nalloc;                     /* sorted: not roots in exact mode */
	int alloc_known;                   /* they are complete */
	uint32_t leader;     /* the clique being classified */
	int done;
	int err;
	const char *why;
};

/* ---- /proc/self/maps ------------------------------------------------- */

/* Reads the whole file into buf (cap bytes); returns its length, or -1. */
static ssize_t read_maps(char *buf, size_t cap)
{
	size_t len;

	/* Too small a buffer is a failure: the caller sized it beforehand. */
	/* The thread's own view: after main's pthread_exit, /proc/self/maps
	 * (main's) reads empty. */
	if (!hp_file_read_all("/proc/thread-self/maps", buf, cap, &len) && len)
		return (ssize_t)len;
	return hp_file_read_all("/proc/self/maps", buf, cap, &len) ? -1 : (ssize_t)len;
}

static uintptr_t hex(const char **p)
{
	uintptr_t v = 0;

	for (;; (*p)++) {
		char c = **p;
		if (c >= '0' && c <= '9')
			v = v * 16 + (uintptr_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uintptr_t)(c - 'a' + 10);
		else
			return v;
	}
}

/* "lo-hi perms offset dev inode   path" */
static void parse_maps(struct scan *s, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	s->nmaps = 0;
	while (p < end && s->nmaps < s->maps_max) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		struct mapping *m = &s->maps[s->nmaps];
		memset(m, 0, sizeof(*m));
		m->lo = hex(&p);
		if (*p == '-')
			p++;
		m->hi = hex(&p);
		if (p + 5 < eol) {
			m->readable = p[1] == 'r';
			m->writable = p[2] == 'w';
			m->exec = p[3] == 'x';
			m->shared = p[4] == 's';
		}
		/* the path: after the fifth field */
		int fields = 0;
		const char *q = p;
		while (q < eol && fields < 4) {
			while (q < eol && *q == ' ')
				q++;
			while (q < eol && *q != ' ')
				q++;
			fields++;
		}
		while (q < eol && *q == ' ')
			q++;
		if (q < eol) {
			m->named = 1;
			size_t n = (size_t)(eol - q);
			m->heap = n == 6 && !memcmp(q, "[heap]", 6);
			m->special = *q == '[' && !m->heap && !(n >= 6 && !memcmp(q, "[stack", 6)) &&
				     !(n >= 5 && !memcmp(q, "[anon", 5));
			m->device = n > 5 && !memcmp(q, "/dev/", 5) &&
				    !(n >= 9 && !memcmp(q, "/dev/zero", 9));
		}
		/* One heap, however the kernel split it (a forked child's). */
		struct mapping *prev = s->nmaps ? &s->maps[s->nmaps - 1] : NULL;
		if (m->heap && prev && prev->heap && prev->hi == m->lo && prev->readable == m->readable &&
		    prev->writable == m->writable)
			prev->hi = m->hi;
		else
			s->nmaps++;
		p = eol + 1;
	}
}

static struct mapping *mapping_of(struct scan *s, uintptr_t a)
{
	size_t lo = 0, hi = s->nmaps;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (s->maps[m].hi <= a)
			lo = m + 1;
		else if (s->maps[m].lo > a)
			hi = m;
		else
			return &s->maps[m];
	}
	return NULL;
}

/* ---- roots the program registered ------------------------------------ */

static struct {
	uintptr_t lo, hi;   /* hi 0: free, or being filled in */
} registered[HP_REACH_ROOTS];

int hp_reach_add_root(const void *p, size_t n)
{
	uintptr_t lo = (uintptr_t)p;

	if (!p || !n)
		return EINVAL;
	for (unsigned i = 0; i < HP_REACH_ROOTS; i++) {
		uintptr_t none = 0;
		if (HP_CAS(&registered[i].lo, &none, lo)) {
			HP_STORE_REL(&registered[i].hi, lo + n);
			return 0;
		}
	}
	return ENOSPC;
}

int hp_reach_remove_root(const void *p)
{
	for (unsigned i = 0; i < HP_REACH_ROOTS; i++) {
		if (HP_LOAD(&registered[i].lo) == (uintptr_t)p && HP_LOAD(&registered[i].hi)) {
			HP_STORE(&registered[i].hi, 0);
			HP_STORE_REL(&registered[i].lo, 0);
			return 0;
		}
	}
	return ENOENT;
}

/* ---- blocks ---------------------------------------------------------- */

/* The lost block at start (hp_reach.blocks, sorted), or -1. */
static int64_t lost_at(const struct hp_reach *r, uintptr_t start)
{
	uint64_t lo = 0, hi = r->nblocks;

	while (lo < hi) {
		uint64_t m = lo + (hi - lo) / 2;
		if (r->blocks[m].start < start)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < r->nblocks && r->blocks[lo].start == start ? (int64_t)lo : -1;
}

/* ---- glibc's chunks ---------------------------------------------------- */

/* Copies n words at a into buf without faulting: process_vm_readv on
 * ourselves.  Returns the words copied (fewer at an unmapped page). */
static size_t copy_words(uintptr_t a, uintptr_t *buf, size_t n)
{
	struct iovec local = { buf, n * sizeof(*buf) };
	struct iovec remote = { (void *)a, n * sizeof(*buf) };
	ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

	return got > 0 ? (size_t)got / sizeof(*buf) : 0;
}

#define COPIED_WORDS 512   /* 4 KiB */

/* The word at a, copied: from the copy of its page, which is taken
 * once for the words read there one at a time (the walks of glibc's
 * chunks ask for a header, then the next): a copy of a page costs what a
 * copy of a word does.  0 if unreadable. */
static HP_NOINLINE uintptr_t read_word_copied(struct scan *s, uintptr_t a)
{
	uintptr_t w = 0, page = a & ~(uintptr_t)(COPIED_WORDS * sizeof(w) - 1);

	if (a & (sizeof(w) - 1)) {
		copy_words(a, &w, 1);
		return w;
	}
	if (page != s->copied_page || !s->copied_valid) {
		s->copied_n = copy_words(page, s->copied, COPIED_WORDS);
		s->copied_page = page;
		s->copied_valid = 1;
	}
	size_t i = (a - page) / sizeof(w);
	return i < s->copied_n ? s->copied[i] : 0;
}

/* One word, without faulting when careful; 0 if unreadable. */
HP_INLINE uintptr_t read_word(struct scan *s, uintptr_t a)
{
	if (HP_LIKELY(!s->careful))
		return *(const uintptr_t *)a;
	return read_word_copied(s, a);
}

/* glibc's own pointers into a block: the chunk after a block starts 8
 * bytes before the block's usable end (its prev_size word is the block's
 * last word, in use while the block is), so when the requested size n has
 * n % 16 in 1..8 the block's last bytes hold that chunk's start.  glibc
 * points there (the arena's top, its bins and fastbins, last_remainder,
 * free chunks' links), and its old links stay in memory handed out since.
 * Such a word is taken for glibc's, not for a reference to the block: a
 * program whose only pointer to a block is to that very byte (n - 8 to
 * n - 1, 16-aligned) has it reported as leaked. */
static int glibc_next_chunk(struct scan *s, uintptr_t start, uint64_t n, uintptr_t w)
{
	const uintptr_t W = sizeof(uintptr_t);

	if (!s->glibc || (w & (2 * W - 1)) || w <= start || w + W < start + n)
		return 0;
	uintptr_t size = read_word(s, start - W);
	if (size & 2)
		return 0;   /* mmapped: nothing follows it */
	return start - 2 * W + (size & ~(uintptr_t)7) == w;
}

/* ---- marking ---------------------------------------------------------- */

static void push(struct scan *s, uintptr_t start, uint64_t size)
{
	struct grey *t = &s->stack[s->nstack++];

	t->lo = start;
	t->hi = start + size;
}

/* The word w of a root or of a reachable block: marks the block it points
 * into, if not yet, and pushes it. */
HP_INLINE void visit_reachable(struct scan *s, uintptr_t w)
{
	struct hp_blocks_hit h;

	if (HP_LIKELY(!hp_blocks_find_unmarked(&s->idx, w, &h)))
		return;
	if (HP_UNLIKELY(w + sizeof(w) >= h.start + h.size) && glibc_next_chunk(s, h.start, h.size, w))
		return;
	hp_blocks_set_mark(&s->idx, &h);
	push(s, h.start, h.size);
}

/* The word w of a lost block, while the cliques are formed: a lost block
 * it points into joins the clique of s->leader (skip: the leader itself,
 * whose own clique points back to it). */
static void visit_lost(struct scan *s, uintptr_t w, int64_t skip)
{
	struct hp_reach *r = s->r;
	struct hp_blocks_hit h;

	if (!hp_blocks_find_unmarked(&s->idx, w, &h))
		return;
	int64_t i = lost_at(r, h.start);
	if (i < 0 || i == skip)
		return;
	struct hp_reach_block *b = &r->blocks[i];
	if (HP_UNLIKELY(w + sizeof(w) >= b->start + b->size) && glibc_next_chunk(s, b->start, b->size, w))
		return;
	if (b->kind != 0 && b->kind != HP_REACH_DIRECT)
		return;   /* already in a clique */
	b->kind = HP_REACH_INDIRECT;
	b->leader = s->leader;
	push(s, b->start, b->size);
}

static void visit(struct scan *s, uintptr_t w, uint8_t kind, int64_t skip)
{
	if (kind == HP_REACH_REACHABLE)
		visit_reachable(s, w);
	else
		visit_lost(s, w, skip);
}

/* Blocks popped from the mark stack wait in a queue this long, their
 * first line fetched (drain). */
#define DRAIN_AHEAD 8

/* Marks what [lo, hi) points to as reachable, read directly (every
 * thread is stopped): the loop that reads the heap, most of whose words
 * point nowhere near a block.  While the mark stack is shallow (a chain:
 * each block leads to the next), what a word points to is fetched before
 * its look-up, so that the two misses overlap; with blocks enough waiting
 * (drain's queue fetches theirs), it is not: most words then point into
 * blocks marked already (perl's arenas at exit, 1.8 M look-ups for 5,700
 * blocks marked), and those fetches only filled the memory system. */
HP_INLINE void scan_reachable(struct scan *s, uintptr_t lo, uintptr_t hi)
{
	const uintptr_t W = sizeof(uintptr_t);
	const uintptr_t base = s->idx.lo, span = s->idx.hi - s->idx.lo;
	const int ahead = s->nstack < DRAIN_AHEAD;

	for (uintptr_t a = (lo + W - 1) & ~(W - 1); a + W <= hi; a += W) {
		uintptr_t w = *(const uintptr_t *)a;
		if (HP_UNLIKELY(w - base < span)) {
			if (ahead)
				__builtin_prefetch((const void *)w);
			visit_reachable(s, w);
		}
	}
}

/* Marks what [lo, hi) points to with kind, pushing newly marked blocks;
 * skip is a block not to mark (the one being scanned).  When some thread
 * still runs, memory can be unmapped under us: words are then copied
 * without faulting, and an unreadable page is skipped. */
static void scan_range(struct scan *s, uintptr_t lo, uintptr_t hi, uint8_t kind, int64_t skip)
{
	const uintptr_t W = sizeof(uintptr_t);

	if (!s->careful && kind == HP_REACH_REACHABLE) {
		scan_reachable(s, lo, hi);
		return;
	}
	lo = (lo + W - 1) & ~(W - 1);
	if (!s->careful) {
		for (uintptr_t a = lo; a + W <= hi; a += W)
			visit(s, *(const uintptr_t *)a, kind, skip);
		return;
	}
	uintptr_t buf[512];
	while (lo + W <= hi) {
		size_t want = (hi - lo) / W;
		if (want > HP_ARRAY_LEN(buf))
			want = HP_ARRAY_LEN(buf);
		size_t got = copy_words(lo, buf, want);
		for (size_t k = 0; k < got; k++)
			visit(s, buf[k], kind, skip);
		if (got < want)   /* unreadable: on to the next page */
			lo = ((lo + got * W) | 4095) + 1;
		else
			lo += got * W;
	}
}

/* Scans the marked blocks until none is left.  Each block popped waits in
 * a short queue (DRAIN_AHEAD), its first line prefetched, while the ones
 * before it are scanned: over a heap whose pointers jump about, the
 * misses overlap (the order changes nothing: each block's clique is its
 * leader's). */
static void drain(struct scan *s, uint8_t kind, int64_t leader)
{
	struct grey queue[DRAIN_AHEAD];
	unsigned head = 0, n = 0;
	/* Marking with every thread stopped, most of the scan's time: the
	 * loop that reads the heap inline. */
	const int direct = !s->careful && kind == HP_REACH_REACHABLE;

	for (;;) {
		while (n < DRAIN_AHEAD && s->nstack) {
			struct grey t = s->stack[--s->nstack];
			__builtin_prefetch((const void *)t.lo);
			queue[(head + n++) % DRAIN_AHEAD] = t;
		}
		if (!n)
			return;
		struct grey t = queue[head];
		head = (head + 1) % DRAIN_AHEAD;
		n--;
		if (direct)
			scan_reachable(s, t.lo, t.hi);
		else
			scan_range(s, t.lo, t.hi, kind, leader);
	}
}

static void scan_root_words(struct scan *s, uintptr_t lo, uintptr_t hi)
{
	if (hi <= lo)
		return;
	s->r->root_bytes += hi - lo;
	scan_range(s, lo, hi, HP_REACH_REACHABLE, -1);
	drain(s, HP_REACH_REACHABLE, -1);
}

/* Calls scan on the parts of [lo, hi) outside the sorted, disjoint
 * ranges k[0..n). */
static void each_gap(struct scan *s, const struct hp_nextmaps_range *k, size_t n, uintptr_t lo,
		     uintptr_t hi, void (*scan)(struct scan *, uintptr_t, uintptr_t))
{
	size_t a = 0, b = n;

	while (a < b) {   /* the first range that ends after lo */
		size_t m = a + (b - a) / 2;
		if (k[m].hi <= lo)
			a = m + 1;
		else
			b = m;
	}
	for (size_t i = a; i < n && lo < hi; i++) {
		if (k[i].lo >= hi)
			break;
		if (k[i].lo > lo)
			scan(s, lo, k[i].lo);
		if (k[i].hi > lo)
			lo = k[i].hi;
	}
	if (lo < hi)
		scan(s, lo, hi);
}

/* [lo, hi) as a root, minus the ranges that never are (s->skip). */
static void scan_root(struct scan *s, uintptr_t lo, uintptr_t hi)
{
	each_gap(s, s->skip, s->nskip, lo, hi, scan_root_words);
}

#define SKIP_MAX (HP_WORLD_MAX + 8u)

/* Adds [lo, hi) to the ranges that are never roots (they are sorted and
 * merged by sort_skip once all are in). */
static void skip_range(struct scan *s, uintptr_t lo, uintptr_t hi)
{
	if (hi > lo && s->nskip < SKIP_MAX) {
		s->skip[s->nskip].lo = lo;
		s->skip[s->nskip].hi = hi;
		s->nskip++;
	}
}

static void sort_skip(struct scan *s)
{
	struct hp_nextmaps_range *k = s->skip;
	size_t n = s->nskip, out = 0;

	for (size_t i = 1; i < n; i++)   /* insertion: a few, or sorted threads */
		for (size_t j = i; j > 0 && k[j - 1].lo > k[j].lo; j--) {
			struct hp_nextmaps_range t = k[j];
			k[j] = k[j - 1];
			k[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		if (out && k[i].lo <= k[out - 1].hi) {
			if (k[i].hi > k[out - 1].hi)
				k[out - 1].hi = k[i].hi;
		} else {
			k[out++] = k[i];
		}
	}
	s->nskip = out;
}

/* Calls scan on the parts of [lo, hi) outside heapprof's own mappings. */
static void not_ours(struct scan *s, uintptr_t lo, uintptr_t hi, void (*scan)(struct scan *, uintptr_t, uintptr_t))
{
	const struct hp_pages_range *own;
	int complete;
	size_t n = hp_pages_registry(&own, &complete), i = 0, j = n;

	/* The first of our mappings that ends after lo (they are sorted and
	 * disjoint): a heap whose chunks are scanned between blocks asks
	 * once a block, and the registry holds hundreds (a walk from its
	 * start took 1,100 instructions a call, most of a scan of the main
	 * arena mapped outside [heap]). */
	while (i < j) {
		size_t m = i + (j - i) / 2;
		if (own[m].hi <= lo)
			i = m + 1;
		else
			j = m;
	}
	for (; i < n && lo < hi; i++) {
		if (own[i].hi <= lo)
			continue;
		if (own[i].lo >= hi)
			break;
		if (own[i].lo > lo)
			scan(s, lo, own[i].lo);
		lo = own[i].hi;
	}
	if (lo < hi)
		scan(s, lo, hi);
}

/* [lo, hi) as a root, minus heapprof's own mappings. */
static void scan_root_not_ours(struct scan *s, uintptr_t lo, uintptr_t hi)
{
	not_ours(s, lo, hi, scan_root);
}

/* [lo, hi) as a root, minus the recorded blocks in it (scanned only when
 * reached) and heapprof's own mappings; gap: how what lies between them
 * is scanned. */
static void between_blocks(struct scan *s, uintptr_t lo, uintptr_t hi,
			   void (*gap)(struct scan *, uintptr_t, uintptr_t))
{
	uintptr_t start;
	uint64_t size;

	while (lo < hi && hp_blocks_next(&s->idx, lo, hi, &start, &size)) {
		if (start > lo)
			gap(s, lo, start);
		if (start + size > lo)
			lo = start + size;
	}
	if (lo < hi)
		gap(s, lo, hi);
}

static void scan_root_between_blocks(struct scan *s, uintptr_t lo, uintptr_t hi)
{
	between_blocks(s, lo, hi, scan_root_not_ours);
}

/* A gap between recorded blocks in an anonymous mapping that may be
 * glibc's (its main arena goes on in such mappings when the break cannot
 * grow): its chunks known free -- by the stamp heapprof left in each
 * block it freed, or the key glibc writes in a block in a tcache
 * (record/stale.h) -- are stale memory, not roots, as the walk of [heap]
 * (heap_roots) skips them; the rest is scanned.  Each 16-byte granule
 * that may start a chunk's user memory is asked: one word read for every
 * two scanned. */
static void scan_root_skipping_free(struct scan *s, uintptr_t lo, uintptr_t hi)
{
	const uintptr_t W = sizeof(uintptr_t);
	uintptr_t from = lo;

	/* u - W, the chunk's size, is the first word the gap must hold (a
	 * block before it may end mid-granule, over the chunk's first
	 * word). */
	for (uintptr_t u = (lo + W + 15) & ~(uintptr_t)15; u + 3 * W <= hi; u += 2 * W) {
		if (!hp_stale_free(u, read_word(s, u + W), read_word(s, u + 2 * W)))
			continue;
		uintptr_t size = read_word(s, u - W) & ~(uintptr_t)7, end = u - 2 * W + size;
		if (size < 4 * W || size % (2 * W) || end > hi || end <= u)
			continue;
		if (u > from)
			scan_root(s, from, u);
		/* Its memory runs on over the next chunk's first word (glibc's
		 * prev_size, the block's own while it is in use). */
		from = end + W < hi ? end + W : hi;
		u = end;   /* the next chunk's user memory is a granule on */
	}
	if (from < hi)
		scan_root(s, from, hi);
}

/* A gap as above, minus heapprof's own mappings, which are never read
 * (the live table's pages lie between the blocks of any heap). */
static void scan_root_gap_glibc(struct scan *s, uintptr_t lo, uintptr_t hi)
{
	not_ours(s, lo, hi, scan_root_skipping_free);
}

static void scan_root_between_blocks_glibc(struct scan *s, uintptr_t lo, uintptr_t hi)
{
	between_blocks(s, lo, hi, s->glibc && hp_stale_on() ? scan_root_gap_glibc : scan_root_not_ours);
}

/* An anonymous mapping as a root, minus what the next allocator mapped for
 * itself (in exact mode, when that is known): its free memory and
 * metadata, where only the recorded blocks matter, scanned when reached. */
static void scan_root_not_allocators(struct scan *s, uintptr_t lo, uintptr_t hi)
{
	if (!s->exact || !s->alloc_known) {
		scan_root_between_blocks_glibc(s, lo, hi);
		return;
	}
	each_gap(s, s->alloc, s->nalloc, lo, hi, scan_root_between_blocks_glibc);
}

/* Calls scan on the parts of [lo, hi) that lie in readable mappings. */
static void each_readable(struct scan *s, uintptr_t lo, uintptr_t hi,
			  void (*scan)(struct scan *, uintptr_t, uintptr_t))
{
	while (lo < hi) {
		struct mapping *m = mapping_of(s, lo);
		if (!m) {
			lo = (lo | 4095) + 1;
			continue;
		}
		uintptr_t end = m->hi < hi ? m->hi : hi;
		if (m->readable)
			scan(s, lo, end);
		lo = end;
	}
}

/* A readable range clipped to the mappings that exist, recorded blocks
 * left to be reached. */
static void scan_root_mapped(struct scan *s, uintptr_t lo, uintptr_t hi)
{
	each_readable(s, lo, hi, scan_root_between_blocks);
}

/* A region the program registered: every word of it that is mapped and
 * readable, recorded blocks included (a pool carved from one). */
static void scan_root_registered(struct scan *s, uintptr_t lo, uintptr_t hi)
{
	each_readable(s, lo, hi, scan_root);
}

/* A stack from sp to the end of its mapping; marks the mapping as a
 * thread's stack, so that it is not scanned whole later. */
static void scan_stack(struct scan *s, uintptr_t sp)
{
	struct mapping *m = mapping_of(s, sp);

	if (!m || !m->readable)
		return;
	m->stack = 1;
	scan_root_not_ours(s, sp, m->hi);
}

/* Register values as roots. */
static void scan_words(struct scan *s, const uintptr_t *w, unsigned n)
{
	s->r->root_bytes += n * sizeof(*w);
	for (unsigned i = 0; i < n; i++)
		visit(s, w[i], HP_REACH_REACHABLE, -1);
	drain(s, HP_REACH_REACHABLE, -1);
}

/* Static TLS and the thread control block next to the thread pointer.
 * x86_64 puts static TLS below it (glibc's struct pthread above), aarch64
 * the TCB and then TLS above it (struct pthread below). */
static void scan_tls(struct scan *s, uintptr_t tp)
{
	uintptr_t below = 16384, above = 16384;

	if (!tp)
		return;
	scan_root_mapped(s, tp > below ? tp - below : 0, tp + above);
}

/* glibc's main arena (struct malloc_state, in the C library's data):
 * its free lists point at chunk headers, and last_remainder keeps
 * pointing where a remainder once began, inside whatever block the
 * memory went to since.  Found by its top field, the one word of the
 * library's data that holds the main heap's top chunk: the fast bins
 * before it, last_remainder and the bins after it are glibc's, never a
 * reference to the program's blocks. */
#define ARENA_FASTBINS 10u
#define FASTBIN_CHUNKS_MAX 65536u   /* unstamped ones; more are scanned, as in use */    /* fastbinsY[NFASTBINS], before top */
#define ARENA_BINS     254u   /* bins[NBINS * 2 - 2], after last_remainder */

/* Whether the word at a, in the C library's data from lo on, is the main
 * arena's top: it holds a chunk of the main heap that ends where the heap
 * does (the last chunk, as a walk of the heap finds it), and the words
 * before it, the fast bins, each hold nothing or a chunk of the heap. */
static int arena_top(struct scan *s, uintptr_t a, uintptr_t lo)
{
	const uintptr_t W = sizeof(uintptr_t);
	uintptr_t top = read_word(s, a);

	/* top > heap_hi first: a word near the top of the address space
	 * would wrap top + 4 * W round to a small number. */
	if (top < s->heap_lo || top > s->heap_hi || s->heap_hi - top < 4 * W || (top & (2 * W - 1)) ||
	    a < lo + ARENA_FASTBINS * W)
		return 0;
	uintptr_t end = top + (read_word(s, top + W) & ~(uintptr_t)7);
	if (end < top + 4 * W || end > s->heap_hi || end + 2 * W <= s->heap_hi)
		return 0;
	for (unsigned bin = 0; bin < ARENA_FASTBINS; bin++) {
		uintptr_t c = read_word(s, a - (ARENA_FASTBINS - bin) * W);
		if (c && (c < s->heap_lo || c >= s->heap_hi))
			return 0;
	}
	return 1;
}

static int arena_links(struct dl_phdr_info *info, size_t size, void *arg)
{
	const uintptr_t W = sizeof(uintptr_t);
	struct scan *s = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || !ph->p_memsz)
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (!hp_next_in_malloc_object((const void *)lo))
			return 0;
		for (uintptr_t a = (lo + W - 1) & ~(W - 1); a + W <= hi; a += W) {
			if (!arena_top(s, a, lo))
				continue;
			s->heap_top = read_word(s, a);
			s->links_lo = a - ARENA_FASTBINS * W;
			s->links_hi = a + (2 + ARENA_BINS) * W;
			skip_range(s, s->links_lo, s->links_hi);
			return 1;
		}
	}
	return 0;
}

static int object_roots(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *s = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || !ph->p_memsz)
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (lo >= s->self_lo && lo < s->self_hi)
			continue;   /* heapprof's own data is never a root */
		scan_root_mapped(s, lo, hi);
	}
	return 0;
}

/* Blocks the dynamic loader allocated itself (its first frame is in
 * ld.so: link maps, dlopen state, threads' TLS tables) are kept for the
 * process's life and found through the loader's own structures, some of
 * which live where no root reaches (a joined thread's TLS table hangs off
 * glibc's cache of thread stacks): reachable, as in LeakSanitizer. */
static void loader_roots(struct scan *s)
{
	for (uint64_t i = 0; i < s->idx.nloader; i++) {
		struct hp_blocks_hit h;
		if (!hp_blocks_find_unmarked(&s->idx, s->idx.loader[i], &h))
			continue;
		hp_blocks_set_mark(&s->idx, &h);
		push(s, h.start, h.size);
		drain(s, HP_REACH_REACHABLE, -1);
	}
}

static int find_loader(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *s = arg;
	uintptr_t base = (uintptr_t)getauxval(AT_BASE), lo = UINTPTR_MAX, hi = 0;

	(void)size;
	if (!base || info->dlpi_addr != base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = base + ph->p_vaddr, b = a + ph->p_memsz;
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	s->ld_lo = lo;
	s->ld_hi = hi;
	return 1;
}

/* glibc's thread arenas: mappings aligned to 64 MiB whose first word (the
 * heap_info's arena pointer) points into the mapping itself. */
static int glibc_arena(struct scan *s, const struct mapping *m)
{
	uintptr_t first;

	if (m->lo & ((64u << 20) - 1) || m->hi - m->lo < sizeof(first))
		return 0;
	first = read_word(s, m->lo);
	return first > m->lo && first < m->hi;
}

static void sift_words(uintptr_t *a, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && a[child + 1] > a[child])
			child++;
		if (a[root] >= a[child])
			return;
		uintptr_t t = a[root];
		a[root] = a[child];
		a[child] = t;
		root = child;
	}
}

/* Heapsort: no allocation while the threads are stopped. */
static void sort_words(uintptr_t *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_words(a, i, n);
	for (size_t end = n; end-- > 1;) {
		uintptr_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift_words(a, 0, end);
	}
}

/* A chunk header of the main heap, as a fast bin may hold one. */
static int heap_chunk(struct scan *s, uintptr_t c)
{
	return c >= s->heap_lo && c + 4 * sizeof(uintptr_t) <= s->heap_hi && !(c & 15);
}

/* The main arena's fast bins: freed small chunks that keep PREV_INUSE
 * set.  The ones freed through heapprof carry its stamp, but glibc frees
 * some itself (what a realloc or an aligned allocation splits off), and
 * their stale contents must not be roots: each list is walked from the
 * arena (its links are mangled since glibc 2.32: revealed by the address
 * they are stored at), checking every chunk's size against its bin. */
static void find_fastbins(struct scan *s)
{
	const uintptr_t W = sizeof(uintptr_t);
	/* The bins' chunks are distinct chunks of the heap, each at least
	 * four words: more steps than that, over all bins, is a cycle (a
	 * corrupted list).  No tighter bound: a bin walked only part of the
	 * way leaves the chunks past it taken for blocks in use, and their
	 * stale contents for roots (70,000 chunks freed through heapprof
	 * into the bin of a realloc's tail hid the leak it pointed to). */
	size_t budget = s->heap_hi > s->heap_lo ? (s->heap_hi - s->heap_lo) / (4 * W) : 0;

	for (unsigned bin = 0; s->links_lo && bin < ARENA_FASTBINS; bin++) {
		uintptr_t c = read_word(s, s->links_lo + bin * W);
		for (; heap_chunk(s, c) && budget; budget--) {
			if ((read_word(s, c + W) & ~(uintptr_t)7) != (bin + 2) * 2 * W)
				break;
			uintptr_t fd = read_word(s, c + 2 * W);
			/* A chunk freed through heapprof is known free by its
			 * stamp, which the scan asks first: only the others
			 * take a place, so that a long bin does not fill the
			 * list before the others are walked. */
			if (!hp_stale_free(c + 2 * W, read_word(s, c + 3 * W), read_word(s, c + 4 * W))) {
				if (s->nfast == s->fast_max)
					break;
				s->fast[s->nfast++] = c;
			}
			uintptr_t revealed = fd ^ ((c + 2 * W) >> 12);
			c = heap_chunk(s, revealed) ? revealed : fd;
		}
	}
	sort_words(s->fast, s->nfast);
}

/* Whether chunk c, of size bytes, may be in a fast bin: its size is a
 * fast bin's and its first word is a link as glibc stores one there (the
 * next chunk of the list, or none, mangled with the address it is stored
 * at: glibc 2.32 and later, which the library needs).  A chunk in use
 * holds the program's data there, which is almost never such a link: it
 * is known to be in use without the walk of the bins, which follows a
 * cache miss per chunk (65536 of them, 10 ms, at perl's exit: its hash's
 * entries freed). */
static int may_be_in_fastbin(struct scan *s, uintptr_t c, uintptr_t size)
{
	const uintptr_t W = sizeof(uintptr_t);

	if (size > (ARENA_FASTBINS + 1) * 2 * W)
		return 0;
	uintptr_t fd = read_word(s, c + 2 * W), revealed = fd ^ ((c + 2 * W) >> 12);
	return !revealed || heap_chunk(s, revealed);
}

/* Whether c is a chunk in a fast bin; the bins are walked the first time
 * it is asked (most heaps never ask: a block freed through heapprof
 * carries its stamp, and the walk follows a list of cache misses). */
static int in_fastbin(struct scan *s, uintptr_t c)
{
	if (!s->fast_known) {
		s->fast_known = 1;
		find_fastbins(s);
	}
	size_t a = 0, b = s->nfast;

	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (s->fast[m] < c)
			a = m + 1;
		else
			b = m;
	}
	return a < s->nfast && s->fast[a] == c;
}

/* The next allocator's own memory (a shared object other than the
 * program, whose data are the program's globals too): its writable
 * segments, to the end of their pages (the anonymous tail of its .bss,
 * which the kernel may merge with a mapping of the program's that
 * follows it: only the object's own pages are left out), and where its
 * static TLS lies from a thread's pthread_self, the same in every
 * thread. */
static int alloc_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *s = arg;
	int ours = 0;

	(void)size;
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0;
	for (int i = 0; i < info->dlpi_phnum && !ours; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD)
			ours = hp_next_in_malloc_object((const void *)(info->dlpi_addr +
								     info->dlpi_phdr[i].p_vaddr));
	if (!ours)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W)) {
			uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
			skip_range(s, lo, (lo + ph->p_memsz + 4095) & ~(uintptr_t)4095);
		}
		if (ph->p_type == PT_TLS && info->dlpi_tls_data) {
			s->alloc_tls_off = (intptr_t)((uintptr_t)info->dlpi_tls_data -
						      (uintptr_t)pthread_self());
			s->alloc_tls_size = ph->p_memsz;
		}
	}
	return 1;
}

/* In exact mode over another allocator, its own data and its threads'
 * caches (jemalloc's hold addresses aligned to 1 GiB, inside whatever
 * block spans one; tcmalloc's central free lists keep the addresses of
 * objects it has handed out again) are not roots: they are the
 * allocator's, like its mappings. */
static void skip_allocator(struct scan *s)
{
	if (!s->exact || !s->alloc_known)
		return;
	dl_iterate_phdr(alloc_object, s);
	if (!s->alloc_tls_size)
		return;
	uintptr_t self = (uintptr_t)pthread_self() + (uintptr_t)s->alloc_tls_off;
	skip_range(s, self, self + s->alloc_tls_size);
	for (unsigned i = 0; i < s->world.n; i++) {
		const struct hp_world_thread *t = &s->world.threads[i];
		if (t->tid > 0 && HP_LOAD_ACQ(&t->stopped) && t->tp) {
			uintptr_t lo = t->tp + (uintptr_t)s->alloc_tls_off;
			skip_range(s, lo, lo + s->alloc_tls_size);
		}
	}
}

static void find_arena(struct scan *s)
{
	for (size_t i = 0; s->glibc && i < s->nmaps; i++)
		if (s->maps[i].heap && s->maps[i].readable) {
			s->heap_lo = s->maps[i].lo;
			s->heap_hi = s->maps[i].hi;
			break;
		}
	/* Found from the arena, not by walking the heap to its end. */
	if (s->heap_hi)
		dl_iterate_phdr(arena_links, s);
}

/* A walk of [heap], on the scan's thread, or on a second one beside it
 * (scan/pair.h) while the scan's marks from the other roots: that one
 * lists the roots it finds, which the scan marks from once it is done. */
struct heap_walk {
	struct scan *s;
	const struct mapping *m;
	int beside;                /* on a second thread: the roots listed */
	struct heap_range {
		uintptr_t lo, hi;
	} *found;
	size_t n, cap;
	uintptr_t rest;            /* the chunk where the list ran out of room,
				    * from which the scan's thread goes on */
};

/* A root the walk found, [lo, hi) between the recorded blocks in it:
 * marked from, or listed; 0, or 1 when the list is full (then the walk
 * stops before it). */
static int heap_found(struct heap_walk *hw, uintptr_t lo, uintptr_t hi)
{
	if (!hw->beside) {
		scan_root_between_blocks(hw->s, lo, hi);
		return 0;
	}
	if (hw->n == hw->cap)
		return 1;
	hw->found[hw->n].lo = lo;
	hw->found[hw->n].hi = hi;
	hw->n++;
	return 0;
}

/* glibc's main heap ([heap]): its in-use chunks that are not recorded
 * blocks are roots.  They were allocated before heapprof began to record
 * (by the C runtime and the dynamic loader at start-up) or inside
 * heapprof's guard, and they may hold the only pointer to a block (the
 * C library's dlerror state, for one).  Free chunks are skipped: what
 * they hold is stale.  The walk follows glibc's chunk headers (size and
 * PREV_INUSE of the next chunk) and checks every step; at anything
 * unexpected it scans the rest between blocks, conservatively.
 * The walk goes from chunk c on; its roots go to heap_found. */
static void walk_heap(struct heap_walk *hw, uintptr_t c)
{
	const uintptr_t W = sizeof(uintptr_t);
	struct scan *s = hw->s;
	const struct mapping *m = hw->m;

	while (c + 4 * W <= m->hi) {
		/* Each header is found from the one before: a chain of loads
		 * the hardware does not run ahead of by itself (perl's heap
		 * at exit, 600,000 freed chunks: 6 ms, 3 with this; the
		 * prefetch of an address past the heap does not fault). */
		__builtin_prefetch((const void *)(c + 4096));
		/* Past recorded blocks laid end to end (most of a heap in
		 * exact mode) without reading their headers. */
		if (s->glibc)
			c = hp_blocks_glibc_run(&s->idx, c, m->hi);
		uintptr_t size = read_word(s, c + W) & ~(uintptr_t)7;
		uintptr_t next = c + size;
		if (size < 4 * W || size % (2 * W) || next > m->hi || next < c) {
			if (heap_found(hw, c, m->hi))
				hw->rest = c;
			return;
		}
		if (next + 2 * W > m->hi)
			return;   /* the top chunk: free */
		int in_use = read_word(s, next + W) & 1;
		uintptr_t user = c + 2 * W;
		/* A block in a tcache or a fastbin is free (record/stale.h).
		 * Its stamp is asked first: it is in the chunk's own line,
		 * and a heap the program has freed much of at exit is mostly
		 * such chunks (perl's hash entries), each of which would
		 * otherwise cost a search of the index. */
		if (in_use && !hp_stale_free(user, read_word(s, user + W), read_word(s, user + 2 * W)) &&
		    !(hw->beside ? hp_blocks_starts_in_beside(&s->idx, user, next + W)
				 : hp_blocks_starts_in(&s->idx, user, next + W)) &&
		    !(may_be_in_fastbin(s, c, size) && in_fastbin(s, c)) &&
		    heap_found(hw, user, next + W)) {
			hw->rest = c;
			return;
		}
		c = next;
	}
}

static void heap_roots(struct scan *s, const struct mapping *m)
{
	struct heap_walk hw = { .s = s, .m = m };

	walk_heap(&hw, m->lo);
}

/* Whether m is glibc's main heap, walked for its chunks (heap_roots).
 * Over another allocator [heap] is that allocator's (tcmalloc takes it
 * with sbrk, which next/nextmaps records): not glibc's chunks; scanned as
 * any anonymous mapping. */
static int heap_walked(const struct scan *s, const struct mapping *m)
{
	return m->heap && m->readable && !(s->exact && s->alloc_known);
}

/* The walk of [heap] beside the marking from the other roots. */
static void walk_beside(void *arg)
{
	struct heap_walk *hw = arg;

	walk_heap(hw, hw->m->lo);
}

#define WALK_FOUND (64u << 10)   /* roots listed; past them, the walk goes
				  * on on the scan's thread */
#define WALK_STACK (64u << 10)

/* [heap] from this size on is walked beside the marking even when the
 * index, of fewer blocks, was built on one thread: perl's hash freed at
 * exit leaves 45 MB of heap around 5,700 blocks (600,000 frees), whose
 * walk took 6-14 ms after the marking. */
#define WALK_BESIDE_MIN (8u << 20)

/* Starts the walk of [heap] on a second thread, when one may help (the
 * index was built on two, or [heap] is large) and every thread is
 * stopped (the walk reads the heap directly): 1, or 0 (other_roots walks
 * it). */
static int walk_beside_start(struct scan *s, struct heap_walk *hw, struct hp_pair *pair)
{
	struct mapping *m = NULL;

	if (s->careful)
		return 0;
	for (size_t i = 0; i < s->nmaps && !m; i++)
		if (heap_walked(s, &s->maps[i]))
			m = &s->maps[i];
	if (!m || (s->idx.threads < 2 && !(s->pair_ok && m->hi - m->lo >= WALK_BESIDE_MIN)))
		return 0;
	if (!s->walk_found)
		s->walk_found = hp_pages_alloc_held(WALK_FOUND * sizeof(*hw->found));
	if (!s->walk_stack)
		s->walk_stack = hp_pages_alloc_held(WALK_STACK);
	if (!s->walk_found || !s->walk_stack)
		return 0;
	hw->m = m;
	hw->found = s->walk_found;
	hw->cap = WALK_FOUND;
	if (hp_pair_start(pair, s->walk_stack, WALK_STACK, walk_beside, hw))
		return 0;
	m->walked = 1;
	return 1;
}

/* Once the walk is done: marks from the roots it found, and walks the
 * rest of the heap here if its list ran out of room. */
static void walk_beside_end(struct scan *s, struct heap_walk *hw, struct hp_pair *pair)
{
	hp_pair_join(pair);
	for (size_t i = 0; i < hw->n; i++)
		scan_root_between_blocks(s, hw->found[i].lo, hw->found[i].hi);
	if (hw->rest) {
		hw->beside = 0;
		walk_heap(hw, hw->rest);
	}
}

/* Stacks of threads that have exited (glibc caches them for new
 * threads): dead memory, as valgrind treats it.  Known only for threads
 * that allocated, which in exact mode is every thread that ever held a
 * block.  A cached stack that a new thread runs on holds its stack
 * pointer and was scanned from it already. */
static void mark_dead_stacks(struct scan *s)
{
	for (struct hp_thread *t = hp_threads_list(); t; t = t->next) {
		if (!HP_LOAD(&t->exited) || !t->stack_hi)
			continue;
		struct mapping *m = mapping_of(s, t->stack_lo);
		if (m && !m->stack)
			m->dead = 1;
	}
}

/* heapprof's own threads' stacks hold heapprof's data, not the
 * program's. */
static void mark_own_stacks(struct scan *s)
{
	const struct hp_threads_own *own;
	unsigned n = hp_threads_own(&own);

	for (unsigned i = 0; i < n; i++) {
		if (!own[i].stack_hi)
			continue;
		struct mapping *m = mapping_of(s, own[i].stack_lo);
		if (m)
			m->dead = 1;
	}
}

static void other_roots(struct scan *s)
{
	mark_own_stacks(s);
	/* Only when every thread stopped: a stack we cannot tell from a dead
	 * one may be a live thread's. */
	if (s->world.stopped == s->world.n && !s->world.missed)
		mark_dead_stacks(s);
	for (size_t i = 0; i < s->nmaps; i++) {
		struct mapping *m = &s->maps[i];
		if (heap_walked(s, m)) {
			if (!m->walked)
				heap_roots(s, m);
			continue;
		}
		if (!m->readable || !m->writable || m->special || m->device || m->stack || m->dead)
			continue;
		if (m->lo < s->self_hi && m->hi > s->self_lo)
			continue;   /* heapprof's own object */
		/* A thread arena holds recorded blocks and free chunks; with
		 * some allocations unrecorded, also blocks we do not know,
		 * which may hold the only pointer to one we do: roots then,
		 * with the free chunks (a leak may be missed, not invented). */
		if (!m->named && s->exact && glibc_arena(s, m))
			continue;
		scan_root_not_allocators(s, m->lo, m->hi);
	}
}

static void add_lost(uintptr_t start, uint64_t size, uint32_t tctx, void *arg)
{
	struct hp_reach *r = arg;

	if (r->nblocks == r->cap)
		return;
	struct hp_reach_block *b = &r->blocks[r->nblocks++];
	b->start = start;
	b->size = size;
	b->counters = tctx;
	b->leader = 0;
	b->kind = 0;
}

/* The blocks no root reaches, in address order, into r->blocks; 0 or
 * ENOMEM. */
static int list_lost(struct scan *s)
{
	struct hp_reach *r = s->r;

	r->cap = s->idx.nblocks - s->idx.nmarked;
	if (!r->cap)
		return 0;
	r->blocks = hp_pages_alloc_held(r->cap * sizeof(*r->blocks));
	if (!r->blocks)
		return ENOMEM;
	hp_blocks_each_unmarked(&s->idx, add_lost, r);
	return 0;
}

/* valgrind's cliques: each block still unreached, in address order, leads
 * the blocks it reaches, which become indirect (a former leader too). */
static void classify(struct scan *s)
{
	struct hp_reach *r = s->r;

	for (uint64_t i = 0; i < r->nblocks; i++) {
		struct hp_reach_block *b = &r->blocks[i];
		if (b->kind != 0)
			continue;
		b->kind = HP_REACH_DIRECT;
		b->leader = (uint32_t)i;
		s->leader = (uint32_t)i;
		scan_range(s, b->start, b->start + b->size, HP_REACH_INDIRECT, (int64_t)i);
		drain(s, HP_REACH_INDIRECT, (int64_t)i);
	}
	/* A demoted leader's clique follows it to its new leader. */
	for (uint64_t i = 0; i < r->nblocks; i++) {
		struct hp_reach_block *b = &r->blocks[i];
		if (b->kind != HP_REACH_INDIRECT)
			continue;
		uint32_t l = b->leader;
		for (int hops = 0; r->blocks[l].kind != HP_REACH_DIRECT && hops < 64; hops++)
			l = r->blocks[l].leader;
		b->leader = l;
	}
	for (uint64_t i = 0; i < r->nblocks; i++) {
		const struct hp_reach_block *b = &r->blocks[i];
		if (b->kind == HP_REACH_DIRECT) {
			r->direct_bytes += b->size;
			r->direct_objects++;
		} else if (b->kind == HP_REACH_INDIRECT) {
			r->indirect_bytes += b->size;
			r->indirect_objects++;
		}
	}
}

/* ---- the stopped world ------------------------------------------------ */

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

static int calling_thread_is_own(void)
{
	const struct hp_threads_own *own;
	unsigned n = hp_threads_own(&own);
	pid_t self = gettid();

	for (unsigned i = 0; i < n; i++)
		if (HP_LOAD_ACQ(&own[i].tid) == self)
			return 1;
	return 0;
}

/* A stopped thread's stack from where it stopped; but a thread that
 * waits in heapprof for this scan (heapprof_leak_check() handed to the
 * helper thread) from where the program's call entered, with the
 * registers it had there: heapprof's frames below hold stale copies of
 * the program's pointers, as on an exit path. */
static void scan_stopped_stack(struct scan *s, const struct hp_world_thread *t, const struct hp_stack_entry *e)
{
	if (e && e->sp && e->tid == t->tid && e->sp >= t->sp && e->sp - t->sp < HP_ENTRY_DEPTH_MAX) {
		scan_stack(s, e->sp);
		scan_words(s, e->regs, e->nregs);
	} else {
		scan_stack(s, t->sp);
	}
}

/* Under valgrind, the mappings listed hold valgrind's own too, which it
 * maps and unmaps as it goes (its translations, its heap), even while
 * the program's threads are stopped: they are not the program's memory,
 * and reading one unmapped since faults.  valgrind refuses the program
 * an mprotect of its memory (ENOMEM), and lets one of the program's own
 * through, where the same protection again changes nothing. */
static void drop_valgrinds(struct scan *s)
{
	for (size_t i = 0; i < s->nmaps; i++) {
		struct mapping *m = &s->maps[i];
		if (!m->readable || !m->writable || m->special)
			continue;
		long prot = PROT_READ | PROT_WRITE | (m->exec ? PROT_EXEC : 0);
		if (hp_sys_raw(SYS_mprotect, (long)m->lo, (long)(m->hi - m->lo), prot, 0, 0, 0) < 0)
			m->special = 1;
	}
}

static HP_NOINLINE void scan_stopped(struct scan *s)
{
	struct hp_reach *r = s->r;
	ssize_t len = read_maps(s->maps_text, s->maps_cap);

	if (len < 0) {
		s->err = EAGAIN;
		s->why = "/proc/self/maps could not be read";
		return;
	}
	parse_maps(s, s->maps_text, (size_t)len);
	if (s->valgrind)
		drop_valgrinds(s);
	s->alloc_known = hp_nextmaps_complete();
	s->nalloc = s->alloc_known ? hp_nextmaps_list(s->alloc, HP_NEXTMAPS_MAX) : 0;
	s->r->alloc_ranges = s->alloc_known ? (int)s->nalloc : -1;
	s->careful = s->world.stopped < s->world.n || s->world.missed;
	if (s->careful) {
		/* process_vm_readv may be denied (seccomp): then read directly. */
		uintptr_t probe = 1, got = 0;
		s->careful = copy_words((uintptr_t)&probe, &got, 1) == 1 && got == 1;
	}
	uint64_t t0 = now_us();
	/* Two threads for the index, not under valgrind: it runs one at a
	 * time.  Each block is pushed at most once while marking, and at most
	 * once more while the lost ones form their cliques. */
	s->pair_ok = !s->valgrind && (s->at_exit || s->world.n) && hp_pair_possible();
	if (hp_blocks_build(&s->idx, s->glibc, s->ld_lo, s->ld_hi, s->pair_ok) ||
	    !(s->stack = hp_pages_alloc_held((s->idx.nblocks + 1) * sizeof(*s->stack)))) {
		s->err = ENOMEM;
		s->why = "no memory for the scan";
		return;
	}
	r->recorded = s->idx.nblocks;
	r->index_threads = s->idx.threads;
	uint64_t t1 = now_us();
	/* This thread: its stack from where the program's call entered us,
	 * and the registers it had there, not from here: heapprof's deeper
	 * frames hold stale copies of the program's pointers. */
	find_arena(s);
	skip_allocator(s);
	sort_skip(s);
	struct heap_walk hw = { .s = s, .beside = 1 };
	struct hp_pair pair;
	int walking = walk_beside_start(s, &hw, &pair);
	r->heap_beside = walking;
	__builtin_unwind_init();
	volatile uintptr_t here = 0;
	const struct hp_stack_entry *e = s->entry;
	/* heapprof's helper thread (a leak check of the running process)
	 * holds none of the program's pointers: its stack and TLS are not
	 * roots, as for a scan from any other thread. */
	if (!calling_thread_is_own()) {
		scan_stack(s, e && e->sp ? e->sp : (uintptr_t)&here);
		if (e && e->sp)
			scan_words(s, e->regs, e->nregs);
		scan_tls(s, (uintptr_t)pthread_self());
	}
	for (unsigned i = 0; i < s->world.n; i++) {
		const struct hp_world_thread *t = &s->world.threads[i];
		if (t->tid > 0 && HP_LOAD_ACQ(&t->stopped)) {
			scan_stopped_stack(s, t, e);
			scan_tls(s, t->tp);
		}
	}
	loader_roots(s);
	for (unsigned i = 0; i < HP_REACH_ROOTS; i++) {
		uintptr_t lo = HP_LOAD_ACQ(&registered[i].lo), hi = HP_LOAD_ACQ(&registered[i].hi);
		if (lo && hi > lo)
			scan_root_registered(s, lo, hi);
	}
	dl_iterate_phdr(object_roots, s);
	uintptr_t plo, phi;
	hp_next_pool_span(&plo, &phi);
	scan_root_mapped(s, plo, phi);
	/* Last: what no allocator we see hands out, including the stacks of
	 * threads that did not stop, whole. */
	uint64_t t2 = now_us();
	if (walking)
		walk_beside_end(s, &hw, &pair);
	other_roots(s);
	uint64_t t3 = now_us();
	if (list_lost(s)) {
		s->err = ENOMEM;
		s->why = "no memory for the scan";
		return;
	}
	classify(s);
	r->us_index = (uint32_t)(t1 - t0);
	r->us_roots = (uint32_t)(t2 - t1);
	r->us_other = (uint32_t)(t3 - t2);
	r->us_lost = (uint32_t)(now_us() - t3);
	r->threads = s->world.n + s->world.missed;
	r->threads_stopped = s->world.stopped;
	for (unsigned i = 0; i < s->world.n && r->nunstopped < HP_REACH_UNSTOPPED_MAX; i++) {
		const struct hp_world_thread *t = &s->world.threads[i];
		if (t->tid > 0 && !HP_LOAD_ACQ(&t->stopped))
			r->unstopped[r->nunstopped++] = t->tid;
	}
}

/* Runs once, inside dl_iterate_phdr: the loader's lock is held, so no
 * thread we stop can be holding it. */
static int with_loader_lock(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *s = arg;

	(void)info;
	(void)size;
	if (s->done)
		return 1;
	s->done = 1;
	hp_live_prefork();              /* every shard lock */
	hp_pages_registry_lock();
	hp_nextmaps_lock();
	uint64_t t0 = now_us();
	int err = hp_world_stop(&s->world, s->wait_ms);
	if (err) {
		s->err = err;
		s->why = "the other threads could not be stopped";
	} else {
		scan_stopped(s);
	}
	hp_world_resume(&s->world);
	s->r->us_paused = now_us() - t0;
	hp_nextmaps_unlock();
	hp_pages_registry_unlock();
	hp_live_postfork_parent();
	return 1;
}

struct maps_size {
	size_t bytes, lines;
};

static void count_chunk(const char *buf, size_t n, void *arg)
{
	struct maps_size *m = arg;

	m->bytes += n;
	for (size_t i = 0; i < n; i++)
		m->lines += buf[i] == '\n';
}

static size_t maps_size_now(size_t *lines)
{
	struct maps_size m = { 0, 0 };

	hp_file_each_chunk("/proc/thread-self/maps", count_chunk, &m);
	if (!m.bytes)
		hp_file_each_chunk("/proc/self/maps", count_chunk, &m);
	*lines = m.lines;
	return m.bytes;
}

static void self_object(struct scan *s)
{
	Dl_info info;
	const ElfW(Phdr) *ph;

	if (!dladdr((void *)hp_reach_run, &info) || !info.dli_fbase)
		return;
	const ElfW(Ehdr) *eh = info.dli_fbase;
	ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
	uintptr_t base = (uintptr_t)info.dli_fbase, lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		uintptr_t a = base + ph[i].p_vaddr, b = a + ph[i].p_memsz;
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	/* A shared object's first segment starts at its load address. */
	s->self_lo = base < lo ? base : lo;
	s->self_hi = hi;
}

/* valgrind loads its core's preload object into every program it runs. */
static int valgrind_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	return info->dlpi_name && strstr(info->dlpi_name, "/vgpreload_core-") != NULL;
}

int hp_reach_run(struct hp_reach *r, int wait_ms, const struct hp_stack_entry *entry, int at_exit,
		 const char **why)
{
	struct scan s;
	size_t lines;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	s.r = r;
	s.at_exit = at_exit;
	s.valgrind = dl_iterate_phdr(valgrind_object, NULL);
	*why = NULL;
	hp_sampled_settle();   /* the blocks this thread freed leave the table first */
	/* Everything is mapped before any lock is taken: room for the blocks
	 * there are now and a quarter more, and for twice the mappings. */
	size_t maps_len = maps_size_now(&lines);
	if (!maps_len) {
		*why = "/proc/self/maps could not be read";
		return ENOENT;
	}
	s.maps_cap = maps_len * 2 + 65536;
	s.maps_max = lines * 2 + 256;
	s.maps_text = hp_pages_alloc(s.maps_cap);
	s.maps = hp_pages_alloc(s.maps_max * sizeof(*s.maps));
	s.alloc = hp_pages_alloc(HP_NEXTMAPS_MAX * sizeof(*s.alloc));
	s.skip = hp_pages_alloc(SKIP_MAX * sizeof(*s.skip));
	s.copied = hp_pages_alloc(COPIED_WORDS * sizeof(*s.copied));
	s.fast_max = FASTBIN_CHUNKS_MAX;
	s.fast = hp_pages_alloc(s.fast_max * sizeof(*s.fast));
	int err = hp_world_prepare(&s.world);
	if (!s.maps_text || !s.maps || !s.alloc || !s.fast || !s.skip || !s.copied || err) {
		*why = "no memory for the scan";
		err = ENOMEM;
		goto out;
	}
	self_object(&s);
	s.exact = !HP_LOAD(&hp_switches.missed);
	r->exact = s.exact;
	dl_iterate_phdr(find_loader, &s);
	s.wait_ms = wait_ms;
	s.entry = entry;
	s.glibc = hp_next_is_glibc();
	dl_iterate_phdr(with_loader_lock, &s);
	err = s.done ? s.err : EAGAIN;
	if (err)
		*why = s.why ? s.why : "the scan did not run";
out:
	hp_pages_free(s.maps_text, s.maps_cap);
	hp_pages_free(s.maps, s.maps_max * sizeof(*s.maps));
	hp_pages_free(s.alloc, HP_NEXTMAPS_MAX * sizeof(*s.alloc));
	hp_pages_free(s.fast, FASTBIN_CHUNKS_MAX * sizeof(*s.fast));
	hp_pages_free(s.skip, SKIP_MAX * sizeof(*s.skip));
	hp_pages_free(s.copied, COPIED_WORDS * sizeof(*s.copied));
	hp_pages_free(s.walk_found, WALK_FOUND * sizeof(struct heap_range));
	hp_pages_free(s.walk_stack, WALK_STACK);
	hp_world_release(&s.world);
	if (s.stack)
		hp_pages_free(s.stack, (s.idx.nblocks + 1) * sizeof(*s.stack));
	hp_blocks_release(&s.idx);
	if (err)
		hp_reach_release(r);
	return err;
}

void hp_reach_release(struct hp_reach *r)
{
	hp_pages_free(r->blocks, r->cap * sizeof(*r->blocks));
	r->blocks = NULL;
	r->nblocks = 0;
	r->cap = 0;
}
