// rep_cxx.cc -- C++ names for the symbolizer: a member function of a
// class template in a namespace, an overloaded free function and a
// constructor, each leaking through operator new / new[].
//   store::Pool<Item>::make(int)  20 x Item (64 bytes)   =  1280 bytes
//   fill(int)                     10 x new int[100]      =  4000 bytes
//   fill(double)                   5 x new double[100]   =  4000 bytes
//   Holder::Holder()               8 x new char[500]     =  4000 bytes
#include <cstddef>

namespace store {
struct Item {
	char data[64];
};

template <typename T> struct Pool {
	__attribute__((noinline)) T *make(int) { return new T(); }
};
} // namespace store

static void *volatile sink;

__attribute__((noinline)) void fill(int) { sink = new int[100]; }
__attribute__((noinline)) void fill(double) { sink = new double[100]; }

struct Holder {
	char *buf;
	__attribute__((noinline)) Holder() : buf(new char[500]) { sink = buf; }
};

int main()
{
	store::Pool<store::Item> pool;
	for (int i = 0; i < 20; i++)
		sink = pool.make(i);
	for (int i = 0; i < 10; i++)
		fill(i);
	for (int i = 0; i < 5; i++)
		fill(1.0 * i);
	for (int i = 0; i < 8; i++) {
		Holder *h = new Holder;
		sink = h->buf;
		delete h;
	}
	return 0;
}
