/* Built twice, as libtrialA.so (LIBNAME A) and libtrialB.so (B, with more
 * code first so that its functions sit elsewhere at the same base). */
#include <stdlib.h>
#include <string.h>
#ifdef PADFN
#define F(n) __attribute__((noinline)) int pad##n(int x) { return x * n + (x >> 3); }
F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15) F(16)
#endif
static __attribute__((noinline)) void *inner(size_t n) { void *p = malloc(n); memset(p, 1, n); return p; }
__attribute__((noinline)) void *lib_alloc(size_t n) { return inner(n); }
void *leaked;
__attribute__((noinline)) void lib_leak(void) { leaked = inner(333); leaked = 0; }
