/* dlclose of a library that allocated: libtrialA.so allocates (every
 * allocation recorded in exact mode, its frames cached by the unwinder),
 * leaks one block and is closed; libtrialB.so, different code, is then
 * opened (often at A's address) and allocates; A's blocks are freed after
 * its dlclose; repeated 200 times. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	char a[4096], b[4096];
	snprintf(a, sizeof a, "%s/libtrialA.so", dir);
	snprintf(b, sizeof b, "%s/libtrialB.so", dir);
	long same = 0;
	for (int r = 0; r < 200; r++) {
		void *ha = dlopen(a, RTLD_NOW | RTLD_LOCAL);
		if (!ha) { fprintf(stderr, "%s\n", dlerror()); return 2; }
		void *(*fa)(size_t) = (void *(*)(size_t))dlsym(ha, "lib_alloc");
		void (*la)(void) = (void (*)(void))dlsym(ha, "lib_leak");
		Dl_info ia0;
		dladdr((void *)fa, &ia0);
		void *base_a = ia0.dli_fbase;
		void *ka[50];
		for (int i = 0; i < 50; i++) ka[i] = fa(100 + i);
		if (r == 0) la();
		dlclose(ha);
		void *hb = dlopen(b, RTLD_NOW | RTLD_LOCAL);
		void *(*fb)(size_t) = (void *(*)(size_t))dlsym(hb, "lib_alloc");
		Dl_info ia, ib;
		dladdr((void *)fb, &ib);
		ia.dli_fbase = base_a;
		same += ib.dli_fbase == ia.dli_fbase;
		for (int i = 0; i < 50; i++) free(fb(200 + i));
		for (int i = 0; i < 50; i++) free(ka[i]);
		dlclose(hb);
	}
	printf("200 rounds of dlopen/alloc/dlclose done\n");
	fflush(stdout);
	fprintf(stderr, "libtrialB.so mapped at libtrialA.so's old base in %ld rounds\n", same);
	return 0;
}
