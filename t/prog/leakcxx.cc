// leakcxx.cc -- a C++ container leaked with new, for the reachability
// leak check (t/0610-leak-corpus.t).  make_strings() allocates a
// std::vector<std::string> with new, reserves 8 elements, fills them with
// 4 short strings (kept inside the string objects: no allocation) and 4
// strings of 40 characters (41-byte buffers each), then drops the only
// pointer to the vector.  Valgrind memcheck on x86-64 (libstdc++ 12):
//   definitely lost:  24 bytes in 1 block   (the vector object, from make_strings)
//   indirectly lost: 420 bytes in 5 blocks  (its 8 x 32-byte buffer, 256,
//                                            and the 4 long strings' 41-byte
//                                            buffers, 164)
//   possibly lost:     0 bytes in 0 blocks
// (libstdc++'s emergency exception pool is runtime memory, not a leak:
// valgrind has it freed at exit, heapprof must not count it.)
// Prints "leakcxx: done" and exits 0.
#include <cstdio>
#include <string>
#include <vector>

static void *volatile sink;

__attribute__((noinline)) static void make_strings()
{
	std::vector<std::string> *v = new std::vector<std::string>;

	v->reserve(8);
	for (int i = 0; i < 4; i++) {
		v->emplace_back(3, static_cast<char>('a' + i)); // short: in place
		v->emplace_back(40, static_cast<char>('A' + i)); // long: 41 bytes
	}
	sink = v;
	sink = nullptr;
}

// Overwrites 64 KiB of dead stack: nothing left there from make_strings.
__attribute__((noinline)) static void clobber()
{
	volatile char pad[64 * 1024];

	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = 0;
}

int main()
{
	make_strings();
	clobber();
	std::printf("leakcxx: done\n");
	return 0;
}
