/*
 * unwind.c -- the unwinders' micro-benchmark: nanoseconds per frame of a
 * backtrace taken at the bottom of a recursion 8, 32 and 128 calls deep,
 * for
 *
 *   fp           a frame-pointer walk (the floor: this program keeps
 *                frame pointers; most code does not)
 *   libunwind    libunwind's unw_backtrace, what heapprof falls back to
 *   fast         heapprof's unwinder (stack/unwind.c) without its walk
 *                memo: .eh_frame rules cached by return address
 *   memo-same    heapprof's unwinder with the memo, the same stack again
 *                (a loop allocating in one place)
 *   memo-leaf    with the memo, the innermost frame alternating between
 *                two callers (the rest replayed and checked)
 *   memo-half    with the memo, the inner half of the stack alternating
 *                between two call chains
 *
 * It links the library's objects as the unit tests do, and calls the
 * unwinder as the allocation slow path does (stack/stack.h).  Prints one
 * line per unwinder and depth: ns per frame, frames per walk.
 *
 * usage: unwind [milliseconds per measurement]   (default 200)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "stack/unwind.h"

#define MAX_FRAMES 512

enum how { FP, LIBUNWIND, FAST, MEMO_SAME, MEMO_LEAF, MEMO_HALF, HOWS };
static const char *const names[HOWS] = { "fp", "libunwind", "fast", "memo-same", "memo-leaf", "memo-half" };

static uintptr_t stack_lo, stack_hi;
static struct hp_unwind_memos memos;   /* one memo: memos.first */
static uintptr_t frames[MAX_FRAMES];
static volatile int sink;

/* One walk from the caller's frame, as hp_stack_capture starts. */
static __attribute__((noinline)) int walk(enum how how)
{
	const uintptr_t *fp = __builtin_frame_address(0);
	int n = 0;

	switch (how) {
	case FP:
		for (const uintptr_t *f = fp; n < MAX_FRAMES; f = (const uintptr_t *)f[0]) {
			if ((uintptr_t)f < stack_lo || (uintptr_t)f >= stack_hi - 16 || !f[1])
				break;
			frames[n++] = f[1];
		}
		return n;
	case LIBUNWIND:
		return unw_backtrace((void **)frames, MAX_FRAMES);
	case FAST:
		return hp_unwind_fast(frames, MAX_FRAMES, stack_lo, stack_hi, fp[1], (uintptr_t)fp + 16, fp[0],
				      NULL, NULL, NULL);
	default: {
		bool same;
		return hp_unwind_fast(frames, MAX_FRAMES, stack_lo, stack_hi, fp[1], (uintptr_t)fp + 16, fp[0],
				      &memos.first, NULL, &same);
	}
	}
}

/* Two distinct call sites for the alternating cases. */
static __attribute__((noinline)) int site_a(enum how how)
{
	int n = walk(how);
	__asm__ __volatile__("" ::: "memory");
	return n;
}

static __attribute__((noinline)) int site_b(enum how how)
{
	int n = walk(how) + 0;
	__asm__ __volatile__("" ::: "memory");
	return n;
}

static __attribute__((noinline)) int chain(int d, int alt, enum how how);

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double budget_ns = 200e6;
static double result_ns_per_frame, result_frames;

/* At the bottom: walk in a loop for the time budget. */
static __attribute__((noinline)) int bottom(enum how how, int half)
{
	long walks = 0, frames_total = 0;
	double start = now_ns(), t;

	do {
		for (int i = 0; i < 256; i++) {
			int n;
			if (how == MEMO_LEAF)
				n = (i & 1) ? site_a(how) : site_b(how);
			else if (how == MEMO_HALF)
				n = chain(half, i & 1, how);
			else
				n = site_a(how);
			if (n <= 0) {
				fprintf(stderr, "unwind: %s gave up on this stack\n", names[how]);
				exit(1);
			}
			frames_total += n;
			walks++;
		}
		t = now_ns() - start;
	} while (t < budget_ns);
	result_ns_per_frame = t / (double)frames_total;
	result_frames = (double)frames_total / (double)walks;
	return (int)walks;
}

/* The inner half for memo-half: two call chains of d frames. */
static __attribute__((noinline)) int chain_b(int d, enum how how);

static __attribute__((noinline)) int chain(int d, int alt, enum how how)
{
	if (alt)
		return chain_b(d, how);
	if (d <= 0)
		return site_a(how);
	int n = chain(d - 1, 0, how);
	sink = n;
	return n;
}

static __attribute__((noinline)) int chain_b(int d, enum how how)
{
	if (d <= 0)
		return site_b(how);
	int n = chain_b(d - 1, how);
	sink = n + 1;
	return n;
}

static __attribute__((noinline)) int recurse(int d, enum how how, int half)
{
	if (d <= 0)
		return bottom(how, half);
	int n = recurse(d - 1, how, half);
	sink = n;
	return n;
}

int main(int argc, char **argv)
{
	static const int depths[] = { 8, 32, 128 };
	pthread_attr_t a;
	void *addr;
	size_t size;

	if (argc > 1)
		budget_ns = atof(argv[1]) * 1e6;
	if (pthread_getattr_np(pthread_self(), &a) || pthread_attr_getstack(&a, &addr, &size)) {
		fprintf(stderr, "unwind: cannot find the main thread's stack\n");
		return 1;
	}
	stack_lo = (uintptr_t)addr;
	stack_hi = stack_lo + size;
	printf("%-10s %6s %8s %12s\n", "unwinder", "depth", "frames", "ns/frame");
	for (unsigned d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		for (int how = 0; how < HOWS; how++) {
			int half = depths[d] / 2;
			/* memo-half: the recursion's outer half, then the
			 * alternating inner half. */
			int outer = how == MEMO_HALF ? depths[d] - half : depths[d];
			hp_unwind_memos_reset(&memos);
			recurse(outer, (enum how)how, half);
			printf("%-10s %6d %8.0f %12.2f\n", names[how], depths[d], result_frames,
			       result_ns_per_frame);
		}
	}
	return 0;
}
