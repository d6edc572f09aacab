/*
 * support.c -- the scratch directory and helpers of the fuzz targets (see
 * fuzz.h).
 */
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static char *scratch;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static void cleanup(void)
{
	if (scratch)
		nftw(scratch, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	size_t n;

	(void)argc, (void)argv;
	if (scratch)
		return 0;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = strlen(tmp) + 32;
	scratch = malloc(n);
	snprintf(scratch, n, "%s/heapprof-fuzz.XXXXXX", tmp);
	if (!mkdtemp(scratch))
		fuzz_fail("cannot make a directory in %s: %s", tmp, strerror(errno));
	atexit(cleanup);
	return 0;
}

const char *fuzz_dir(void)
{
	if (!scratch)
		LLVMFuzzerInitialize(NULL, NULL);
	return scratch;
}

char *fuzz_file(const char *name, const void *data, size_t size)
{
	size_t n = strlen(fuzz_dir()) + strlen(name) + 2;
	char *path = malloc(n);

	snprintf(path, n, "%s/%s", fuzz_dir(), name);
	for (char *s = path + strlen(fuzz_dir()) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			fuzz_fail("mkdir %s: %s", path, strerror(errno));
		*s = '/';
	}
	FILE *f = fopen(path, "we");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		fuzz_fail("cannot write %s: %s", path, strerror(errno));
	return path;
}

uint64_t fuzz_hash(const void *data, size_t size)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325u;

	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return h;
}

char *fuzz_golden(const uint8_t *data, size_t size, size_t *n)
{
	static char dir[4096];
	static size_t dlen;
	static int looked;
	const char *src = getenv("HP_SRC");
	size_t k = 0;

	if (!looked) {
		looked = 1;
		if (src && *src)
			dlen = (size_t)snprintf(dir, sizeof(dir), "%s/t/golden", src);
	}
	char *out = malloc(size * (dlen > 8 ? dlen / 8 + 1 : 1) + 1);
	for (size_t i = 0; i < size;) {
		if (dlen && size - i >= 8 && !memcmp(data + i, "@GOLDEN@", 8)) {
			memcpy(out + k, dir, dlen);
			k += dlen;
			i += 8;
		} else {
			out[k++] = (char)data[i++];
		}
	}
	out[k] = '\0';
	*n = k;
	return out;
}

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
