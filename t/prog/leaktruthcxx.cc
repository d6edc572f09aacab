// leaktruthcxx.cc -- a std::shared_ptr cycle, for the truth corpus of the
// leak gate (t/0612-leak-truth.t; build/t/lsan/leaktruthcxx is the same
// source built with -fsanitize=leak).
//
//   leaktruthcxx fn|main N
//
// Two objects made by std::make_shared, each holding a shared_ptr to the
// other and N bytes of payload (N is 4088 or 4096: make_shared allocates
// 4120 or 4128 bytes, 8 and 0 modulo 16): when the outside shared_ptrs go
// the counts stay at 1 and both allocations (control block and object in
// one) leak, each reachable from the other.  "fn" makes the cycle in a
// function main calls; "main" makes it in a block of main itself, whose
// frame keeps the dead shared_ptrs' addresses until main returns.  Nothing
// overwrites the dead stack: a leak check that starts its scan of the main
// thread's stack where the program entered exit (LeakSanitizer, valgrind)
// never reads those slots; one that starts lower finds the cycle
// "reachable", or not, by the luck of the run.
//
// Writes "leaktruthcxx: case MODE N pid PID" to stderr first, then
// "leaktruthcxx: truth MODE N total B/2 direct - indirect -" (B is twice
// what libstdc++ allocates for one make_shared; which of the two is
// direct depends on the order a tool meets them) and exits 0.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unistd.h>

template <size_t N> struct node {
	std::shared_ptr<node> other;
	char payload[N];
};

// What make_shared allocates for one node: libstdc++'s in-place control
// block (vtable pointer, two counts) with the object inside.
template <size_t N> static size_t alloc_size()
{
	return sizeof(std::_Sp_counted_ptr_inplace<node<N>, std::allocator<node<N>>,
						   __gnu_cxx::_S_atomic>);
}

// The cycle, written out where it is used: in main itself, and in fn.
#define MAKE_CYCLE(N)                                        \
	do {                                                 \
		auto a = std::make_shared<node<N>>();        \
		auto b = std::make_shared<node<N>>();        \
		std::memset(a->payload, 0xa5, N);            \
		std::memset(b->payload, 0xa5, N);            \
		a->other = b;                                \
		b->other = a;                                \
	} while (0)

template <size_t N> __attribute__((noinline)) static void fn()
{
	MAKE_CYCLE(N);
}

static int usage()
{
	std::fprintf(stderr, "usage: leaktruthcxx fn|main 4088|4096\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return usage();
	bool in_main = !std::strcmp(argv[1], "main");
	size_t n = std::strtoul(argv[2], nullptr, 10), total;

	if (!in_main && std::strcmp(argv[1], "fn"))
		return usage();
	std::fprintf(stderr, "leaktruthcxx: case %s %zu pid %d\n", argv[1], n, (int)getpid());
	if (n == 4088) {
		if (in_main)
			MAKE_CYCLE(4088);
		else
			fn<4088>();
		total = 2 * alloc_size<4088>();
	} else if (n == 4096) {
		if (in_main)
			MAKE_CYCLE(4096);
		else
			fn<4096>();
		total = 2 * alloc_size<4096>();
	} else {
		return usage();
	}
	std::fprintf(stderr, "leaktruthcxx: truth %s %zu total %zu/2 direct - indirect -\n", argv[1], n,
		     total);
	return 0;
}
