/*
 * driver.c -- runs a fuzz target on files, without libFuzzer: the
 * regression test (t/0760-fuzz-regress.t) and `make check-asan` use it.
 *
 *     build/t/fuzz/NAME FILE|DIR...
 *
 * Each file (each regular file of a directory, sorted) is one input; its
 * name goes to stderr before it runs, so that a crash names it.  Exits 0
 * when every input ran.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static void run_file(const char *path)
{
	FILE *f = fopen(path, "rbe");
	size_t cap = 4096, n = 0, k;
	unsigned char *buf = malloc(cap);

	if (!f) {
		perror(path);
		exit(2);
	}
	while ((k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	fprintf(stderr, "fuzz: running %s\n", path);
	/* An exact-size copy, as libFuzzer gives: reading past it is seen. */
	unsigned char *in = malloc(n ? n : 1);
	memcpy(in, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(in, n);
	free(in);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			run_file(argv[i]);
			continue;
		}
		struct dirent **e;
		int n = scandir(argv[i], &e, NULL, by_name);
		for (int j = 0; j < n; j++) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], e[j]->d_name);
			if (e[j]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode))
				run_file(path);
			free(e[j]);
		}
		free(e);
	}
	return 0;
}
