/*
 * cxxpaths.cc -- every C++ allocation operator, for the sampled estimates
 * (t/0087-cxx-unbiased.t).  Each site is a function of its own, so that
 * jeprof tells them apart, and calls one operator new; its blocks are
 * released with one operator delete (sized, aligned, nothrow: each form
 * once), every other one, after all are made.  The truth, per site: N
 * blocks allocated, N/2 live, of
 *
 *   c_new            operator new(48)                 delete(p)
 *   c_new_sized      operator new(48)                 delete(p, 48)
 *   c_new_arr        operator new[](48)               delete[](p)
 *   c_new_arr_sized  operator new[](48)               delete[](p, 48)
 *   c_new_nt         operator new(48, nothrow)        delete(p, nothrow)
 *   c_new_arr_nt     operator new[](48, nothrow)      delete[](p, nothrow)
 *   c_new_al         operator new(64, al 64)          delete(p, al)
 *   c_new_al_sized   operator new(64, al 64)          delete(p, 64, al)
 *   c_new_arr_al     operator new[](64, al 64)        delete[](p, al)
 *   c_new_arr_al_sz  operator new[](64, al 64)        delete[](p, 64, al)
 *   c_new_al_nt      operator new(64, al 64, nothrow) delete(p, al, nothrow)
 *   c_new_arr_al_nt  operator new[](64, al, nothrow)  delete[](p, al, nothrow)
 *   c_expr           new Obj (48 bytes)               delete o (sized by the compiler)
 *
 * usage: cxxpaths [N]   (default 200000, even)
 */
#include <cstdio>
#include <cstdlib>
#include <new>

static const std::align_val_t al{64};

struct Obj {
	char b[48];
};

#define SITE static __attribute__((noinline)) void *
#define DROP static __attribute__((noinline)) void

SITE c_new() { return ::operator new(48); }
DROP d_new(void *p) { ::operator delete(p); }
SITE c_new_sized() { return ::operator new(48); }
DROP d_new_sized(void *p) { ::operator delete(p, 48); }
SITE c_new_arr() { return ::operator new[](48); }
DROP d_new_arr(void *p) { ::operator delete[](p); }
SITE c_new_arr_sized() { return ::operator new[](48); }
DROP d_new_arr_sized(void *p) { ::operator delete[](p, 48); }
SITE c_new_nt() { return ::operator new(48, std::nothrow); }
DROP d_new_nt(void *p) { ::operator delete(p, std::nothrow); }
SITE c_new_arr_nt() { return ::operator new[](48, std::nothrow); }
DROP d_new_arr_nt(void *p) { ::operator delete[](p, std::nothrow); }
SITE c_new_al() { return ::operator new(64, al); }
DROP d_new_al(void *p) { ::operator delete(p, al); }
SITE c_new_al_sized() { return ::operator new(64, al); }
DROP d_new_al_sized(void *p) { ::operator delete(p, 64, al); }
SITE c_new_arr_al() { return ::operator new[](64, al); }
DROP d_new_arr_al(void *p) { ::operator delete[](p, al); }
SITE c_new_arr_al_sz() { return ::operator new[](64, al); }
DROP d_new_arr_al_sz(void *p) { ::operator delete[](p, 64, al); }
SITE c_new_al_nt() { return ::operator new(64, al, std::nothrow); }
DROP d_new_al_nt(void *p) { ::operator delete(p, al, std::nothrow); }
SITE c_new_arr_al_nt() { return ::operator new[](64, al, std::nothrow); }
DROP d_new_arr_al_nt(void *p) { ::operator delete[](p, al, std::nothrow); }
SITE c_expr() { return new Obj; }
DROP d_expr(void *p) { delete static_cast<Obj *>(p); }

static const struct site {
	void *(*make)();
	void (*drop)(void *);
} sites[] = {
	{c_new, d_new}, {c_new_sized, d_new_sized},
	{c_new_arr, d_new_arr}, {c_new_arr_sized, d_new_arr_sized},
	{c_new_nt, d_new_nt}, {c_new_arr_nt, d_new_arr_nt},
	{c_new_al, d_new_al}, {c_new_al_sized, d_new_al_sized},
	{c_new_arr_al, d_new_arr_al}, {c_new_arr_al_sz, d_new_arr_al_sz},
	{c_new_al_nt, d_new_al_nt}, {c_new_arr_al_nt, d_new_arr_al_nt},
	{c_expr, d_expr},
};

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], nullptr, 10) : 200000;
	const size_t nsites = sizeof(sites) / sizeof(sites[0]);
	void **keep = static_cast<void **>(calloc(nsites * n, sizeof(*keep)));

	if (!keep)
		return 1;
	for (size_t s = 0; s < nsites; s++) {
		void **k = keep + s * n;
		for (size_t i = 0; i < n; i++)
			if (!(k[i] = sites[s].make()))
				abort();
		for (size_t i = 1; i < n; i += 2)
			sites[s].drop(k[i]);
	}
	printf("done %zu\n", n);
	return 0;
}
