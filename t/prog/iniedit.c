/* iniedit: edits $HEAPPROF_CONFIG from a constructor, right after
 * heapprof's own start-up has read it (and before heapprof's helper
 * thread can have looked at it), then idles for argv[1] seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void edit(void)
{
	const char *path = getenv("HEAPPROF_CONFIG");
	FILE *f = path ? fopen(path, "w") : NULL;

	if (f) {
		fputs("[heapprof]\nprof_prefix = edited\n", f);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 2);
	return 0;
}
