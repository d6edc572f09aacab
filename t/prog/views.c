/*
 * views.c -- known numbers for heapprof report's views (--html, --svg,
 * --graph, --list; t/0470-0489).  Everything it allocates is kept:
 *
 *   grows(n)      n x 16 blocks of 64 KiB: n MiB
 *   shrinks(n)    (6 - n) x 8 blocks of 64 KiB: (6 - n) x 512 KiB
 *   steady()      10 blocks of 4096 bytes, whatever n
 *   lines()       3 x 1000 bytes on one line, 5 x 2000 on the next
 *                 loop's line, and 7000 through fill(), inlined: 20000
 *   deep(120)     121 nested calls, then 64 KiB: a tall, narrow tower
 *   this_function_has_a_name_far_too_long_to_fit_in_the_narrow_frame_it_gets()
 *                 256 KiB: a narrow frame with a long name
 *   via_a(), via_b()  each calls shared(), which keeps 64 KiB: shared() is
 *                 worth more than either of its callers
 *
 * usage: views N    (1 <= N <= 5)
 */
#include <stdlib.h>

static void *volatile sink;
static volatile int depth_sink;

__attribute__((noinline)) static void grows(int n)
{
	for (int i = 0; i < n * 16; i++)
		sink = malloc(65536);
}

__attribute__((noinline)) static void shrinks(int n)
{
	for (int i = 0; i < (6 - n) * 8; i++)
		sink = malloc(65536);
}

__attribute__((noinline)) static void steady(void)
{
	for (int i = 0; i < 10; i++)
		sink = malloc(4096);
}

static inline __attribute__((always_inline)) void *fill(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void lines(void)
{
	for (int i = 0; i < 3; i++)
		sink = malloc(1000);
	for (int i = 0; i < 5; i++)
		sink = malloc(2000);
	sink = fill(7000);
}

__attribute__((noinline)) static void deep(int d)
{
	if (d > 0)
		deep(d - 1);
	else
		sink = malloc(65536);
	depth_sink = d;	/* no tail call: every level stays on the stack */
}

__attribute__((noinline)) static void
this_function_has_a_name_far_too_long_to_fit_in_the_narrow_frame_it_gets(void)
{
	sink = malloc(262144);
}

__attribute__((noinline)) static void shared(void)
{
	sink = malloc(65536);
}

__attribute__((noinline)) static void via_a(void)
{
	shared();
	depth_sink = 1;
}

__attribute__((noinline)) static void via_b(void)
{
	shared();
	depth_sink = 2;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	if (n < 1 || n > 5)
		return 2;
	grows(n);
	shrinks(n);
	steady();
	lines();
	deep(120);
	this_function_has_a_name_far_too_long_to_fit_in_the_narrow_frame_it_gets();
	via_a();
	via_b();
	return 0;
}
