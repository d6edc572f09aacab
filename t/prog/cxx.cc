// cxx.cc -- C++ new/delete attribution.  Keeps 100 Widgets (240 bytes)
// from make_widget() and 10 buffers of 1000 bytes from make_buffer()
// (new[]); creates and deletes 1000 more of each, and uses std::string,
// std::vector and iostream on the way, after a bad_alloc has been thrown
// through heapprof's operator new.  Exact mode must report 34000 bytes
// in 110 objects in 2 contexts: libstdc++'s own emergency pool is runtime
// memory and not a leak.
#include <cstdint>
#include <iostream>
#include <new>
#include <string>
#include <vector>

struct Widget {
	char data[240];
};

struct alignas(256) Aligned {
	char data[512];
};

static Widget *volatile widget_sink;
static char *volatile buffer_sink;

__attribute__((noinline)) static Widget *make_widget() { return new Widget(); }
__attribute__((noinline)) static char *make_buffer() { return new char[1000]; }

int main(int argc, char **argv)
{
	// "nofail" skips the failing requests: mimalloc's operator new aborts
	// on them instead of throwing.
	bool nofail = argc > 1 && std::string(argv[1]) == "nofail";
	// First the failures, so that the exact counts below also prove that
	// sampling still works after an exception unwound through heapprof:
	// bad_alloc thrown through heapprof's operator new, nullptr from the
	// nothrow form; then an aligned new and sized delete round trip.
	bool caught = nofail;
	if (!nofail) try {
		volatile size_t huge = SIZE_MAX / 2;
		char *p = new char[huge];
		buffer_sink = p;
	} catch (const std::bad_alloc &) {
		caught = true;
	}
	volatile size_t huge2 = SIZE_MAX / 2;
	char *q = nofail ? nullptr : new (std::nothrow) char[huge2];
	Aligned *a = new Aligned;
	bool aligned = reinterpret_cast<uintptr_t>(a) % 256 == 0;
	delete a;
	for (int i = 0; i < 1000; i++) {
		delete make_widget();
		delete[] make_buffer();
	}
	std::vector<std::string> words;
	for (int i = 0; i < 1000; i++)
		words.push_back(std::string(40, 'a' + i % 26));
	for (int i = 0; i < 100; i++)
		widget_sink = make_widget();
	for (int i = 0; i < 10; i++)
		buffer_sink = make_buffer();
	std::cout << "cxx: " << words.size() << " words, bad_alloc caught " << caught
		  << ", nothrow null " << (q == nullptr) << ", aligned " << aligned << std::endl;
	return 0;
}
