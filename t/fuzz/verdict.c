/*
 * verdict.c -- fuzz target: heapprof check's verdict reader
 * (hp_check_read) and its three outputs (text, JSON, JUnit).
 *
 * The input is a verdict file, written to the scratch directory and read
 * as `heapprof check` reads the files its processes leave.  A file it
 * takes is rendered as the command renders it, counted; when the input's
 * hash says so, its frames are symbolized first ("@GOLDEN@" in the input
 * becomes $HP_SRC/t/golden, so that the seeds name the committed golden
 * binary).
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "check.h"
#include "strtab.h"
#include "fuzz.h"

struct reading {
	const char *path;
	struct hp_check_proc p;
	struct hp_strtab strs;
	const char *err;
};

static void read_verdict(void *arg)
{
	struct reading *r = arg;

	r->err = hp_check_read(r->path, &r->p, &r->strs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n;
	char *text = fuzz_golden(data, size, &n);
	struct reading r = { .path = fuzz_file("check.4242.verdict", text, n) };
	uint64_t h = fuzz_hash(data, size);

	if (fuzz_try(read_verdict, &r))
		fuzz_fail("hp_check_read died");
	if (!r.err) {
		struct hp_buf b = { 0 };
		char *argv[] = { "prog", "--flag", NULL };
		struct hp_check_run run = { argv, r.p.status, 23, &r.p, 1, 0 };
		r.p.counted = 1;
		if (h & 1)
			hp_check_symbolize(&r.p, 1, 0, &r.strs, NULL, 0);
		if (!r.p.name || !r.p.program || !r.p.cmdline)
			fuzz_fail("a verdict taken without program or cmdline");
		hp_check_text(&b, &r.p);
		hp_check_json(&b, &run);
		hp_check_junit(&b, &run);
		if (strlen(b.p) != b.len)
			fuzz_fail("a NUL byte in the outputs");
		hp_buf_release(&b);
	}
	hp_check_release(&r.p);
	hp_strtab_release(&r.strs);
	free((char *)r.path);
	free(text);
	return 0;
}
