/* nocxx: a C program that looks operator new and delete up in the global
 * scope and calls them.  Bare, no C++ runtime is loaded and the lookup
 * finds nothing; under heapprof it finds heapprof's operators, which have
 * no next definition to forward to. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	void *(*op_new)(unsigned long) = (void *(*)(unsigned long))dlsym(RTLD_DEFAULT, "_Znwm");
	void (*op_delete)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "_ZdlPv");
	void *(*op_new_al)(unsigned long, unsigned long) =
		(void *(*)(unsigned long, unsigned long))dlsym(RTLD_DEFAULT, "_ZnwmSt11align_val_t");

	if (!op_new || !op_delete || !op_new_al) {
		puts("no operators");
		return 0;
	}
	char *p = op_new(100);
	char *q = op_new_al(200, 64);
	if (!p || !q || ((unsigned long)q & 63))
		return 1;
	memset(p, 1, 100);
	memset(q, 2, 200);
	op_delete(p);
	op_delete(q);
	puts("new and delete worked");
	return 0;
}
