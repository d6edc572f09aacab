/*
 * report.c -- fuzz target: `heapprof report` on one dump (input.c's
 * reader: the gperftools and jemalloc layouts, the symbol section,
 * MAPPED_LIBRARIES, heapprof's peak and temporary comment lines; then the
 * profile and the output formats).
 *
 * The input is the dump, written to the scratch directory ("@GOLDEN@"
 * becomes $HP_SRC/t/golden, so that the seeds' maps name the committed
 * golden binary and its frames are symbolized).  It is read as the
 * command reads it; a dump the reader refuses ends there, as the command
 * ends with status 1.  A dump it takes goes through hp_report_run, with
 * the format and options the input's hash picks (options.h), and, when
 * the hash says so, itself as its --base (every format but --graph
 * --svg, which runs Graphviz).
 */
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "report.h"
#include "ropts.h"
#include "strtab.h"
#include "fuzz.h"
#include "options.h"

static void check_input(const struct hp_input *in)
{
	for (size_t i = 0; i < in->nstacks; i++)
		if ((uint64_t)in->stacks[i].first + in->stacks[i].depth > in->nframes)
			fuzz_fail("stack %zu: frames %u+%u of %zu", i, in->stacks[i].first,
				  in->stacks[i].depth, in->nframes);
	for (size_t i = 1; i < in->nmaps; i++)
		if (in->maps[i - 1].start > in->maps[i].start)
			fuzz_fail("maps not sorted at %zu", i);
	for (size_t i = 1; i < in->nsyms; i++)
		if (in->syms[i - 1].addr > in->syms[i].addr)
			fuzz_fail("symbols not sorted at %zu", i);
}

struct running {
	struct hp_ropts *o;
	char **dumps;
};

static void run_report(void *arg)
{
	struct running *r = arg;

	hp_report_run(r->o, r->dumps, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n;
	char *text = fuzz_golden(data, size, &n);
	struct reading rd = { .path = fuzz_file("fuzz.heap", text, n) };
	uint64_t h = fuzz_hash(data, size);

	int refused = fuzz_try(read_dump, &rd);
	unsigned facts = fuzz_facts(&rd.in);
	if (!refused)
		check_input(&rd.in);
	hp_input_release(&rd.in);
	hp_strtab_release(&rd.strs);
	if (!refused) {
		struct hp_ropts o;
		char *dumps[] = { (char *)rd.path };
		const char *bases[] = { rd.path };
		struct running run = { &o, dumps };
		fuzz_ropts(&o, h, facts, FUZZ_REPORT_FORMATS);
		if (((h >> 20) & 1) && !o.temporary) {
			o.base = bases;
			o.nbase = 1;
		}
		/* --list ends with status 1 when no function has a value. */
		if (o.format == HP_ROPTS_FMT_LIST)
			fuzz_try_may_die(run_report, &run);
		else if (fuzz_try(run_report, &run))
			fuzz_fail("hp_report_run died on a dump the reader took");
		fuzz_ropts_release(&o);
	}
	free((char *)rd.path);
	free(text);
	return 0;
}
