/*
 * memo.c -- allocations whose stacks differ only above a frame that is
 * the same, at the same stack address, every time: the unwinder's walk
 * memo (src/lib/stack/unwind.h) must see the difference.  helper() is
 * called from from_a() and from_b(), twins whose frames are laid out
 * alike, so helper's frame is identical either way; outer_a() and
 * outer_b() do the same one level further up, under mid().
 *
 * Prints nothing; t/0090 counts the objects per stack in the dump:
 * 300 under from_a, 600 under from_b, 200 under outer_a, 400 under
 * outer_b.
 */
#include <stdlib.h>

static void *volatile keep[1500];

__attribute__((noinline)) static void *helper(size_t n)
{
	void *p = malloc(n);
	__asm__ __volatile__("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *from_a(size_t n)
{
	void *p = helper(n);
	__asm__ __volatile__("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *from_b(size_t n)
{
	void *p = helper(n);
	__asm__ __volatile__("" ::: "memory");
	return p;
}

__attribute__((noinline)) static void *mid(size_t n)
{
	void *p = helper(n);
	__asm__ __volatile__("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *outer_a(size_t n)
{
	void *p = mid(n);
	__asm__ __volatile__("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *outer_b(size_t n)
{
	void *p = mid(n);
	__asm__ __volatile__("" ::: "memory");
	return p;
}

int main(void)
{
	int k = 0;

	for (int i = 0; i < 900; i++)
		keep[k++] = i % 3 == 0 ? from_a(16) : from_b(16);
	for (int i = 0; i < 600; i++)
		keep[k++] = i % 3 == 0 ? outer_a(32) : outer_b(32);
	return 0;
}
