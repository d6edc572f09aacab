/*
 * unwind.h -- heapprof's own fast unwinder (x86_64).
 *
 * libunwind's backtrace costs about 25 ns plus 7 ns per frame and most of
 * an exact-mode allocation; this unwinder walks the same DWARF call-frame
 * information (.eh_frame, found with glibc's lock-free _dl_find_object)
 * but interprets each frame's CFA program once and caches the resulting
 * rule by return address, so that a frame then costs a hash lookup and
 * two reads of the stack.  Every read is checked against the thread's
 * stack bounds.  Whatever it does not handle -- no FDE, DWARF expressions,
 * signal frames, a CFA in another register, a stack outside the thread's
 * own (sigaltstack, fibers) -- makes it give up, and the caller unwinds
 * the whole stack with libunwind instead.  On other architectures it
 * always gives up.
 */
#ifndef HP_UNWIND_H
#define HP_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "base/compiler.h"

#pragma GCC visibility push(hidden)

/* ---- the walk memo ----------------------------------------------------
 *
 * Consecutive allocations of a thread mostly share their outer frames.
 * A thread's memo keeps its last walk, outermost frame first: at each
 * frame the state the walk had (stack pointer, return address, RBP) and
 * the stack words the step out of it read (the caller's return address
 * at the next frame's sp - 8, and its RBP at bp_check, 0 when none was
 * read).  A walk is a function of its state and of those words alone
 * (the rules depend on the return address only), so when a new walk
 * reaches a state the memo holds, the rest of it is the memo's, frame
 * for frame, provided every word those steps read still holds what it
 * held: checked, two loads and compares a frame, not assumed.  Nothing is
 * trusted that the stack does not still say; a stale memo costs a miss.
 * Only complete walks (to the outermost frame) are kept, up to
 * HP_UNWIND_MEMO_MAX frames.  RBP is part of the state only where a
 * step from there on computes a CFA from it: in code without frame
 * pointers it holds the program's data, which changes between calls. */
#define HP_UNWIND_MEMO_MAX 160

/* The hash of a path of return addresses from the outermost frame in,
 * taken a frame at a time so that the memo keeps it frame by frame
 * (record/stacktab.h keys its prefix tree's nodes by it). */
#define HP_STACK_HASH_SEED 0x243f6a8885a308d3ULL
HP_INLINE uint64_t hp_stack_hash_step(uint64_t h, uintptr_t frame)
{
	h ^= (uint64_t)frame;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

struct hp_unwind_frame {
	uintptr_t sp, ip, bp;   /* the walk's state at this frame */
	/* Where the step out of it read RBP (0: nowhere); in f[], only where
	 * the frame out of it needs that RBP (else 0): the word to check. */
	uintptr_t bp_check;
	uint64_t h;             /* the path's hash over f[0] .. here (a sentinel's: the seed) */
	/* The layer above's name for the path f[0] .. here (record/stacktab.h:
	 * its prefix-tree node), 0 until it sets one; kept with the frame
	 * while the memo keeps the frames out of it, 0 in a frame new to it. */
	uint32_t node;
	uint8_t how;            /* its rule: HP_UNWIND_CFA_RBP, HP_UNWIND_KEEPS_RBP */
	bool bp_used;           /* some step from here on reads bp: else any bp walks the same */
	/* In f[]: 1 + the index of the nearest frame at or outside this one
	 * with a bp_check, 0 when none: where a check of the steps out
	 * stops reading one word a frame. */
	uint16_t chk;
};
enum { HP_UNWIND_CFA_RBP = 1, HP_UNWIND_KEEPS_RBP = 2 };

struct hp_unwind_memo {
	uintptr_t lo, hi;       /* the stack the frames are on */
	uint32_t n;             /* frames in f[], f[0] the outermost; 0: none */
	uint32_t max;           /* the max of the last walk */
	bool last_ok;           /* the last walk's frames are f[n - 1] .. f[0] */
	/* f[0] .. f[named - 1] have their node (a sentinel f[0] the root's,
	 * 0): the layer above raises it as it names frames, the memo lowers
	 * it when it replaces some. */
	uint32_t named;
	uint32_t depth;         /* what the caller made of them (stack/stack.h): */
	int32_t top;            /* its depth, its innermost frame in f[] (-1: not f[]'s), */
	unsigned ranges;        /* and its own state then */
	uint32_t sid;           /* the layer above's id of that stack (0: none) */
	/* With last_ok, for hp_unwind_again: the frame its check of the
	 * steps out stops at, and the frames it gives (the last walk's,
	 * cut at max), worked out once when the walk was kept. */
	int32_t again_low, again_n;
	/* Scratch, this walk's frames, innermost first: shared by a
	 * thread's memos (one walk at a time). */
	struct hp_unwind_frame *fresh;
	struct hp_unwind_frame f[HP_UNWIND_MEMO_MAX];
};

/* ---- a thread's memos ---------------------------------------------------
 *
 * One memo holds one path: a program whose allocations alternate between
 * a few call paths (perl's allocator wrappers, called from a handful of
 * places) would walk every sample's inner frames again.  So a thread that
 * has walked HP_UNWIND_MEMOS_AFTER times gets HP_UNWIND_MEMOS memos, the
 * one a capture uses chosen by its starting stack pointer (paths into
 * one wrapper mostly differ in depth), each with its own last walk, its
 * stack table nodes and its stack: alternating paths find each their own
 * last walk.  A walk whose chosen memo starts elsewhere (a path new to
 * it) joins the frames of the thread's last walk instead, which mostly
 * shares the most with it, and takes the frames it joins into its memo
 * (copied: nodes and all).  Until then, and when the memory cannot be
 * had, one memo: a program of many threads that sample little pays one
 * memo a thread.  The memos must pay for those copies: 4096 walks after
 * growing, a thread whose captures were not at least as often a memo's
 * last walk again (gcc's cc1, whose paths are many) goes back to one
 * memo, and tries again 65536 walks later, then twice as many walks
 * after each trial that failed (up to 2^24): cc1 -O0 on SQLite's
 * amalgamation (1.85 M walks) had 27 trials, 6% of its walks, now 5. */
#define HP_UNWIND_MEMOS 8
#define HP_UNWIND_MEMOS_AFTER 1024
#define HP_UNWIND_MEMOS_TRIAL 4096
#define HP_UNWIND_MEMOS_AGAIN 65536
#define HP_UNWIND_MEMOS_AGAIN_MAX (1u << 24)
struct hp_unwind_memos {
	uint32_t mask;          /* memos in use - 1: 0 or HP_UNWIND_MEMOS - 1 */
	uint32_t walks;         /* walks taken (wrapping) */
	uint32_t review;        /* the count of walks at which hp_unwind_memos_review runs */
	uint32_t since;         /* the count of walks at the last review */
	uint32_t again;         /* walks from a failed trial to the next: doubles */
	uint32_t hits;          /* captures that were a memo's last walk again, since then */
	struct hp_unwind_memo *last;     /* the last walk's memo */
	struct hp_unwind_memo *in_buf;   /* the memo whose capture the caller's buffer holds (stack.h) */
	struct hp_unwind_memo *m[HP_UNWIND_MEMOS];   /* by starting stack pointer */
	struct hp_unwind_memo *more;     /* m[1..]'s memory, kept when a set is reused; NULL: none yet */
	struct hp_unwind_frame fresh[HP_UNWIND_MEMO_MAX];
	struct hp_unwind_memo first;     /* m[0] */
};

/* The memo of a capture starting at stack pointer sp: by sp's bits 4-6,
 * so that paths whose depths differ by 16 to 112 bytes (modulo 128)
 * have memos of their own, whatever the stack's random start. */
HP_INLINE struct hp_unwind_memo *hp_unwind_memo_pick(struct hp_unwind_memos *s, uintptr_t sp)
{
	return s->m[(uint32_t)(sp >> 4) & s->mask];
}

/* The memo whose frames a walk into m, starting at (ip, sp), joins: m
 * itself when its last walk started there too, else the thread's last
 * walk's (stacks permitting). */
HP_INLINE struct hp_unwind_memo *hp_unwind_memo_from(const struct hp_unwind_memos *s, struct hp_unwind_memo *m,
						     uintptr_t ip, uintptr_t sp)
{
	struct hp_unwind_memo *l = s->last;
	if (l == m || !m->n)
		return m;
	const struct hp_unwind_frame *in = &m->f[m->n - 1];
	return in->sp == sp && in->ip == ip ? m : l;   /* hp_unwind_walk checks l's stack */
}

/* Sets up a thread's memos, or forgets what a reused set held: one memo
 * (its memory for more kept). */
void hp_unwind_memos_reset(struct hp_unwind_memos *s);
/* At walks == review: one memo gives way to HP_UNWIND_MEMOS (mapped the
 * first time; without memory the set stays as it was), or after a trial
 * they give way to one again, as the hits since say (above).  Cold. */
void hp_unwind_memos_review(struct hp_unwind_memos *s);

/* Checks the words that the steps out of f[j], f[j - 1], ..., f[low + 1]
 * read (each the step to the next frame out): the stack must still hold
 * the outer frame's return address at its sp - 8, and its RBP where the
 * step read one.  -1 when every word holds, else the k of the first step
 * (from f[j] outwards) that would now read something else.  out: NULL,
 * or where f[j].ip, ..., f[low + 1].ip are written as they are checked.
 * Code without frame pointers reads no RBP: between two frames with a
 * bp_check (chk) a step is one load and compare. */
HP_INLINE int hp_unwind_memo_check(const struct hp_unwind_frame *f, int j, int low, uintptr_t *out)
{
	const struct hp_unwind_frame *p = &f[j];

	for (;;) {
		int b = (int)p->chk - 1;   /* the next frame out with a bp_check */
		const struct hp_unwind_frame *seg = &f[b > low ? b : low];
		uintptr_t ip = p->ip;
		for (; p > seg; p--) {
			uintptr_t up = p[-1].ip;
			if (out)
				*out++ = ip;
			if (*(const uintptr_t *)(p[-1].sp - 8) != up)
				return (int)(p - f);
			ip = up;
		}
		if (b <= low)
			return -1;
		/* p is f[b]: its step reads an RBP too. */
		if (out)
			*out++ = ip;
		if (*(const uintptr_t *)(p[-1].sp - 8) != p[-1].ip || *(const uintptr_t *)p->bp_check != p[-1].bp)
			return (int)(p - f);
		p--;
	}
}

/* Forgets everything: a memo whose memory was another thread's.  Its
 * scratch (fresh) is left as set. */
void hp_unwind_memo_reset(struct hp_unwind_memo *m);

/* Fills buf with return addresses, innermost first, starting at a frame
 * whose return address is ip, whose caller's stack pointer (after the
 * return) is sp and whose caller's RBP is bp -- what a function compiled
 * with frame pointers finds at its frame pointer.  lo and hi bound the
 * current thread's stack.  Returns the number of frames, or -1 to ask for
 * libunwind.  m: the calling thread's memo, or NULL.  same NULL: buf is
 * always filled.  Else *same is set when the frames are exactly those of
 * the memo's last walk (buf is then not written: the caller kept what it
 * made of them), and buf holds only the frames the walk took itself when
 * the memo holds the whole walk (m->last_ok and the return value is
 * m->n less a sentinel f[0]): its frames are then m->f[m->n - 1] (the
 * innermost) down to f[0]'s, and a frame the memo already held is
 * checked, not copied.  from: the memo whose frames the walk may join
 * (hp_unwind_memo_from), m or another on the same stack, whose frames
 * it joins are then copied into m; NULL: m. */
int hp_unwind_fast(uintptr_t *buf, int max, uintptr_t lo, uintptr_t hi, uintptr_t ip,
		   uintptr_t sp, uintptr_t bp, struct hp_unwind_memo *m, const struct hp_unwind_memo *from,
		   bool *same);
/* hp_unwind_fast for a caller that tried hp_unwind_again first, which
 * it does not try again. */
int hp_unwind_walk(uintptr_t *buf, int max, uintptr_t lo, uintptr_t hi, uintptr_t ip,
		   uintptr_t sp, uintptr_t bp, struct hp_unwind_memo *m, const struct hp_unwind_memo *from,
		   bool *same);

/* hp_unwind_fast's first test, inlined into the capture (stack/stack.h)
 * so that the common case, a loop allocating in one place, pays no call
 * with nine arguments and no saved registers: the memo's last walk
 * again, starting at the same state, with every word its steps read
 * checked (as hp_unwind_fast checks them).  The frame count of that walk
 * (the caller's buffer still holds its frames), or -1: then
 * hp_unwind_fast walks.  Count it with hp_unwind_count_memo. */
HP_INLINE int hp_unwind_again(const struct hp_unwind_memo *m, int max, uintptr_t lo, uintptr_t hi,
			      uintptr_t ip, uintptr_t sp, uintptr_t bp)
{
	if (!m->last_ok || m->max != (uint32_t)max || m->lo != lo || m->hi != hi)
		return -1;
	const struct hp_unwind_frame *f = m->f;
	int j = (int)m->n - 1;   /* last_ok: n >= 1 */
	if (f[j].sp != sp || f[j].ip != ip || (f[j].bp != bp && f[j].bp_used))
		return -1;
	if (hp_unwind_memo_check(f, j, m->again_low, NULL) >= 0)
		return -1;
	return m->again_n;
}

/* Statistics, for the debug log and prof_unwinder:check.  Counted only
 * while hp_unwind_counting is set (log_level:debug or prof_unwinder:check):
 * a shared counter on every sample would be a cache line that all
 * threads fight over. */
extern bool hp_unwind_counting;
struct hp_unwind_stats {
	uint64_t fast;       /* stacks unwound here */
	uint64_t memo;       /* of them, finished from the walk memo */
	uint64_t again;      /* of those, a memo's last walk again (hp_unwind_again) */
	uint64_t fallback;   /* stacks handed to libunwind */
	uint64_t libunwind;  /* stacks walked by libunwind, fallbacks included */
	uint64_t rules;      /* distinct return addresses cached */
};
void hp_unwind_stats(struct hp_unwind_stats *out);
void hp_unwind_count_libunwind(void);
/* A stack hp_unwind_again gave (as a fast walk finished from the memo). */
void hp_unwind_count_memo(void);

/* fork(): the rule cache's lock is taken before (first: its holder takes
 * no other lock of ours but the pages'), released after; the child resets
 * it, since a thread that held it does not exist there. */
void hp_unwind_prefork(void);
void hp_unwind_postfork_parent(void);
void hp_unwind_postfork_child(void);

#pragma GCC visibility pop

#endif
