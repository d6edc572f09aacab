/*
 * memoalt.c -- allocations that alternate between four call paths into
 * one allocating function, wrap(): the unwinder's walk memos
 * (src/lib/stack/unwind.h) must give each path its own last walk, and
 * every stack must still be its own.  path1() .. path4() differ only in
 * the size of their frames, 16 bytes apart, so that wrap()'s frame sits
 * at four stack addresses 16 bytes apart.
 *
 * Usage: memoalt [ROUNDS]  (default 5000): ROUNDS allocations of 16
 * bytes down each path, in turn, all kept.  Prints nothing; t/0090 counts
 * the objects per path in a dump and the memo's hits in the debug log.
 */
#include <stdlib.h>

static void **keep;

__attribute__((noinline)) static void *wrap(size_t n)
{
	void *p = malloc(n);
	__asm__ __volatile__("" ::: "memory");
	return p;
}

/* A path whose frame is 16 * k bytes bigger than path0's would be. */
#define PATH(k)                                                          \
	__attribute__((noinline)) void *path##k(size_t n)                \
	{                                                                \
		volatile char pad[16 * k];                               \
		pad[0] = 1;                                              \
		void *p = wrap(n + pad[0] - 1);                          \
		__asm__ __volatile__("" ::: "memory");                   \
		return p;                                                \
	}
PATH(1)
PATH(2)
PATH(3)
PATH(4)

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5000;
	int k = 0;

	keep = calloc((size_t)rounds * 4, sizeof(*keep));
	if (!keep)
		return 1;
	for (int i = 0; i < rounds; i++) {
		keep[k++] = path1(16);
		keep[k++] = path2(16);
		keep[k++] = path3(16);
		keep[k++] = path4(16);
	}
	return 0;
}
