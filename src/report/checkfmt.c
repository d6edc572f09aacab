/*
 * checkfmt.c -- heapprof check's outputs: the text report, JSON and
 * JUnit XML (see check.h; the JSON schema is in heapprof(1)).
 *
 * Owns nothing.  Strings were cleaned when read (valid UTF-8, no control
 * characters); here they are only escaped for JSON or XML.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "check.h"

/* ---- text ---------------------------------------------------------------- */

static void text_frame(struct hp_buf *b, unsigned k, const struct hp_check_frame *f)
{
	hp_buf_printf(b, "    #%u 0x%" PRIx64, k, f->pc);
	if (f->function)
		hp_buf_printf(b, " in %s", f->function);
	if (f->file && f->line > 0)
		hp_buf_printf(b, " %s:%d", f->file, f->line);
	else if (f->module)
		hp_buf_printf(b, " (%s+0x%" PRIx64 ")", f->module, f->addr);
	hp_buf_char(b, '\n');
}

/* The leaks of p, LeakSanitizer's shape, and its SUMMARY line. */
static void text_leaks(struct hp_buf *b, const struct hp_check_proc *p)
{
	const char *est = p->sampled_lg ? "~" : "";

	for (size_t j = 0; j < p->nleaks; j++) {
		const struct hp_check_leak *l = &p->leaks[j];
		hp_buf_printf(b, "%s leak of %s%" PRIu64 " byte(s) in %s%" PRIu64 " object(s) allocated from:\n",
			      l->direct ? "Direct" : "Indirect", est, l->bytes, est, l->objects);
		for (size_t i = 0; i < l->nframes; i++)
			text_frame(b, (unsigned)i, &l->frames[i]);
		hp_buf_char(b, '\n');
	}
	if (p->threads_stopped < p->threads)
		hp_buf_printf(b, "note: %u of %u other threads did not stop for the scan: a leak may be missed\n",
			      p->threads - p->threads_stopped, p->threads);
	if (p->sampled_lg)
		hp_buf_printf(b, "SUMMARY: heapprof: ~%" PRIu64 " byte(s) leaked in ~%" PRIu64 " allocation(s), "
			      "estimated from %" PRIu64 " sampled block%s (lg_prof_sample:%d).\n",
			      hp_check_bytes(p), hp_check_objects(p), p->sampled_blocks,
			      p->sampled_blocks == 1 ? "" : "s", p->sampled_lg);
	else
		hp_buf_printf(b, "SUMMARY: heapprof: %" PRIu64 " byte(s) leaked in %" PRIu64 " allocation(s).\n",
			      hp_check_bytes(p), hp_check_objects(p));
}

void hp_check_text(struct hp_buf *b, const struct hp_check_proc *p)
{
	hp_buf_printf(b, "heapprof check: %s (pid %ld): %s\n", p->program, p->pid, p->cmdline);
	text_leaks(b, p);
}

/* ---- heapprof leaks -------------------------------------------------------- */

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

void hp_check_leaks_text(struct hp_buf *b, const struct hp_check_proc *p)
{
	hp_buf_printf(b, "heapprof leaks: %s (pid %ld): %s\n", p->program, p->pid, p->cmdline);
	hp_buf_printf(b, "leak check %u of the running process: its threads were stopped for %" PRIu64 ".%03u ms\n",
		      p->live, p->pause_us / 1000, (unsigned)(p->pause_us % 1000));
	if (p->attached_at) {
		char when[32];
		time_t t = (time_t)p->attached_at;
		struct tm tm;
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
		hp_buf_printf(b, "heapprof was attached at %s: only blocks allocated since are checked\n", when);
	}
	if (p->confirm_checks > 1)
		hp_buf_printf(b, "confirmed: only the blocks unreachable in each of %u checks %g s apart are "
			      "reported (%" PRIu64 " block%s unreachable in some but not all left out: in flight, "
			      "or freed since)\n", p->confirm_checks, p->confirm_interval,
			      p->unconfirmed_blocks, plural(p->unconfirmed_blocks));
	hp_buf_char(b, '\n');
	const char *conf = p->confirm_checks > 1 ? " (confirmed)" : "";
	const char *est = p->sampled_lg ? "~" : "";
	for (size_t j = 0; j < p->nleaks; j++) {
		const struct hp_check_leak *l = &p->leaks[j];
		hp_buf_printf(b, "%s leak of %s%" PRIu64 " byte(s) in %s%" PRIu64 " object(s)%s allocated from:\n",
			      l->direct ? "Direct" : "Indirect", est, l->bytes, est, l->objects, conf);
		for (size_t i = 0; i < l->nframes; i++)
			text_frame(b, (unsigned)i, &l->frames[i]);
		hp_buf_char(b, '\n');
	}
	for (size_t i = 0; i < p->nunstopped; i++)
		hp_buf_printf(b, "note: thread %ld (%s) did not stop for the scan: its stack was scanned whole, "
			      "so a leak may be missed\n", p->unstopped[i].tid, p->unstopped[i].name);
	if (p->threads_stopped < p->threads && p->threads - p->threads_stopped > p->nunstopped)
		hp_buf_printf(b, "note: %u of %u other threads did not stop for the scan: a leak may be missed\n",
			      p->threads - p->threads_stopped, p->threads);
	if (!p->nleaks)
		hp_buf_printf(b, "no leaks: every %sblock the program holds is reachable%s\n",
			      p->sampled_lg ? "sampled " : "", p->confirm_checks > 1 ? " in at least one check" : "");
	else if (p->sampled_lg)
		hp_buf_printf(b, "SUMMARY: heapprof: ~%" PRIu64 " byte(s) leaked in ~%" PRIu64 " allocation(s), "
			      "estimated from %" PRIu64 " sampled block%s (lg_prof_sample:%d).\n",
			      hp_check_bytes(p), hp_check_objects(p), p->sampled_blocks,
			      plural(p->sampled_blocks), p->sampled_lg);
	else
		hp_buf_printf(b, "SUMMARY: heapprof: %" PRIu64 " byte(s) leaked in %" PRIu64 " allocation(s).\n",
			      hp_check_bytes(p), hp_check_objects(p));
}

/* ---- JSON ---------------------------------------------------------------- */

static void jstr(struct hp_buf *b, const char *s)
{
	if (s)
		hp_buf_json_str(b, s);
	else
		hp_buf_str(b, "null");
}

static void json_frame(struct hp_buf *b, const struct hp_check_frame *f)
{
	hp_buf_printf(b, "{\"address\": \"0x%" PRIx64 "\", \"function\": ", f->pc);
	jstr(b, f->function);
	hp_buf_str(b, ", \"file\": ");
	jstr(b, f->file);
	if (f->line > 0)
		hp_buf_printf(b, ", \"line\": %d", f->line);
	else
		hp_buf_str(b, ", \"line\": null");
	hp_buf_str(b, ", \"module\": ");
	jstr(b, f->module);
	if (f->module)
		hp_buf_printf(b, ", \"offset\": \"0x%" PRIx64 "\"", f->addr);
	else
		hp_buf_str(b, ", \"offset\": null");
	hp_buf_printf(b, ", \"inlined\": %s}", f->inlined ? "true" : "false");
}

/* "leaked_bytes": ... "suppressed_objects": N, the totals both JSON
 * layouts give (heapprof check's per process, heapprof leaks'). */
static void json_totals(struct hp_buf *b, const struct hp_check_proc *p)
{
	hp_buf_printf(b, "\"leaked_bytes\": %" PRIu64 ", \"leaked_objects\": %" PRIu64
		      ", \"direct_bytes\": %" PRIu64 ", \"direct_objects\": %" PRIu64
		      ", \"indirect_bytes\": %" PRIu64 ", \"indirect_objects\": %" PRIu64
		      ", \"suppressed_bytes\": %" PRIu64 ", \"suppressed_objects\": %" PRIu64,
		      hp_check_bytes(p), hp_check_objects(p), p->direct_bytes, p->direct_objects,
		      p->indirect_bytes, p->indirect_objects, p->suppressed_bytes, p->suppressed_objects);
}

/* null when no budget applied; else the figures and what went over. */
static void json_budget(struct hp_buf *b, const struct hp_check_proc *p)
{
	if (!p->measured && !p->unmeasured) {
		hp_buf_str(b, "null");
		return;
	}
	if (p->measured)
		hp_buf_printf(b, "{\"peak_bytes\": %" PRIu64 ", \"allocations\": %" PRIu64
			      ", \"live_bytes_at_exit\": %" PRIu64 ", \"error\": null, \"over\": [",
			      p->peak_bytes, p->allocations, p->live_bytes);
	else {
		hp_buf_str(b, "{\"peak_bytes\": null, \"allocations\": null, \"live_bytes_at_exit\": null, "
			      "\"error\": ");
		jstr(b, p->unmeasured);
		hp_buf_str(b, ", \"over\": [");
	}
	for (size_t j = 0; j < p->nover; j++) {
		const struct hp_check_over *o = &p->over[j];
		hp_buf_str(b, j ? ", {\"option\": " : "{\"option\": ");
		jstr(b, o->option);
		hp_buf_str(b, ", \"rule\": ");
		jstr(b, o->rule);
		hp_buf_printf(b, ", \"limit\": %" PRIu64 ", \"value\": %" PRIu64 ", \"stacks\": ", o->limit,
			      o->value);
		jstr(b, o->stacks);
		hp_buf_char(b, '}');
	}
	hp_buf_str(b, "]}");
}

static void json_proc(struct hp_buf *b, const struct hp_check_proc *p)
{
	hp_buf_printf(b, "    {\"pid\": %ld, \"program\": ", p->pid);
	jstr(b, p->program);
	hp_buf_str(b, ", \"cmdline\": ");
	jstr(b, p->cmdline);
	/* A registration has no status of its own: null. */
	if (p->missing)
		hp_buf_str(b, ", \"status\": null");
	else
		hp_buf_printf(b, ", \"status\": %d", p->status);
	hp_buf_printf(b, ", \"counted\": %s, \"checked\": %s, \"missing\": %s, \"error\": ",
		      p->counted ? "true" : "false", p->error ? "false" : "true",
		      p->missing ? "true" : "false");
	jstr(b, p->error);
	hp_buf_str(b, ",\n     ");
	json_totals(b, p);
	hp_buf_printf(b, ", \"threads\": %u, \"threads_stopped\": %u,\n     \"suppressions\": [",
		      p->threads, p->threads_stopped);
	for (size_t j = 0; j < p->nsupps; j++) {
		hp_buf_str(b, j ? ", {\"template\": " : "{\"template\": ");
		jstr(b, p->supps[j].templ);
		hp_buf_printf(b, ", \"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}", p->supps[j].count,
			      p->supps[j].bytes);
	}
	hp_buf_str(b, "],\n     \"budget\": ");
	json_budget(b, p);
	hp_buf_str(b, ",\n     \"leaks\": [");
	for (size_t j = 0; j < p->nleaks; j++) {
		const struct hp_check_leak *l = &p->leaks[j];
		hp_buf_printf(b, "%s\n      {\"kind\": \"%s\", \"bytes\": %" PRIu64 ", \"objects\": %" PRIu64
			      ", \"frames\": [", j ? "," : "", l->direct ? "direct" : "indirect", l->bytes,
			      l->objects);
		for (size_t i = 0; i < l->nframes; i++) {
			hp_buf_str(b, i ? ",\n        " : "\n        ");
			json_frame(b, &l->frames[i]);
		}
		hp_buf_str(b, "]}");
	}
	hp_buf_str(b, "]}");
}

void hp_check_json(struct hp_buf *b, const struct hp_check_run *run)
{
	size_t counted = 0, leaking = 0, missing = 0, over = 0;
	uint64_t bytes = 0, objects = 0;

	hp_buf_str(b, "{\n  \"command\": [");
	for (size_t i = 0; run->argv[i]; i++) {
		if (i)
			hp_buf_str(b, ", ");
		char *clean = hp_strtab_sanitize(run->argv[i], strlen(run->argv[i]));
		jstr(b, clean);
		free(clean);
	}
	hp_buf_printf(b, "],\n  \"status\": %d,\n  \"exit_status\": %d,\n  \"processes\": [\n",
		      run->status, run->exit_status);
	for (size_t k = 0; k < run->nprocs; k++) {
		const struct hp_check_proc *p = &run->procs[k];
		json_proc(b, p);
		hp_buf_str(b, k + 1 < run->nprocs ? ",\n" : "\n");
		over += p->nover > 0;
		if (!p->counted)
			continue;
		counted++;
		missing += p->missing;
		if (hp_check_objects(p)) {
			leaking++;
			bytes += hp_check_bytes(p);
			objects += hp_check_objects(p);
		}
	}
	hp_buf_printf(b, "  ],\n  \"summary\": {\"processes\": %zu, \"counted\": %zu, \"leaking\": %zu, "
		      "\"missing\": %zu, \"missing_allowed\": %s, "
		      "\"leaked_bytes\": %" PRIu64 ", \"leaked_objects\": %" PRIu64 ", \"over_budget\": %zu}\n}\n",
		      run->nprocs, counted, leaking, missing, run->allow_missing ? "true" : "false",
		      bytes, objects, over);
}

/* ---- JUnit XML ------------------------------------------------------------ */

/*
 * One test case per counted process: classname its program's name, name
 * its command line (stable from run to run, unlike its pid, so that CI
 * servers follow a test's history); a leak is a failure whose message is
 * the SUMMARY and whose text the report; a process that left no verdict
 * (it registered, then a signal killed it or it could not write one) is
 * an error, with the reason, or skipped under --allow-missing; one the
 * library could give no verdict (a seccomp filter) is skipped.
 */
/* The budgets a process went over, as the failure's text. */
static void junit_over_text(struct hp_buf *t, const struct hp_check_proc *p)
{
	for (size_t j = 0; j < p->nover; j++)
		hp_buf_printf(t, "over %s %s: %" PRIu64 "%s; its stacks:\n%s", p->over[j].option,
			      p->over[j].rule, p->over[j].value, p->over[j].bytes ? " bytes" : "",
			      p->over[j].stacks);
}

/* One <failure>: the message, then the leak report (when p leaked) and
 * the budgets it went over as its text. */
static void junit_failure(struct hp_buf *b, const char *type, const char *message,
			  const struct hp_check_proc *p)
{
	struct hp_buf text = { 0 };

	hp_buf_printf(b, "      <failure type=\"%s\" message=\"", type);
	hp_buf_xml_str(b, message);
	hp_buf_str(b, "\">");
	if (hp_check_objects(p))
		hp_check_text(&text, p);
	junit_over_text(&text, p);
	hp_buf_xml_str(b, text.p ? text.p : "");
	hp_buf_str(b, "</failure>\n");
	hp_buf_release(&text);
}

void hp_check_junit(struct hp_buf *b, const struct hp_check_run *run)
{
	size_t tests = 0, failures = 0, errors = 0, skipped = 0;

	for (size_t k = 0; k < run->nprocs; k++) {
		const struct hp_check_proc *p = &run->procs[k];
		int error = p->missing && !run->allow_missing;
		if (!p->counted && !p->nover)
			continue;
		tests++;
		failures += (!p->error && hp_check_objects(p)) || p->nover;
		errors += error;
		skipped += p->error && !error;
	}
	hp_buf_str(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	hp_buf_printf(b, "<testsuites name=\"heapprof check\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
		      "skipped=\"%zu\">\n", tests, failures, errors, skipped);
	hp_buf_printf(b, "  <testsuite name=\"heapprof check\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
		      "skipped=\"%zu\">\n", tests, failures, errors, skipped);
	for (size_t k = 0; k < run->nprocs; k++) {
		const struct hp_check_proc *p = &run->procs[k];
		if (!p->counted && !p->nover)
			continue;
		hp_buf_str(b, "    <testcase classname=\"");
		hp_buf_xml_str(b, p->name);
		hp_buf_str(b, "\" name=\"");
		hp_buf_xml_str(b, p->cmdline);
		hp_buf_str(b, "\">\n");
		if (p->missing && !run->allow_missing) {
			hp_buf_str(b, "      <error type=\"no-verdict\" message=\"no leak verdict: ");
			hp_buf_xml_str(b, p->error);
			hp_buf_str(b, "\"/>\n");
		} else if (p->error) {
			hp_buf_str(b, "      <skipped message=\"no leak verdict: ");
			hp_buf_xml_str(b, p->error);
			hp_buf_str(b, "\"/>\n");
		} else if (hp_check_objects(p)) {
			struct hp_buf msg = { 0 };
			hp_buf_printf(&msg, "%" PRIu64 " byte(s) leaked in %" PRIu64 " allocation(s)",
				      hp_check_bytes(p), hp_check_objects(p));
			junit_failure(b, "leak", msg.p, p);
			hp_buf_release(&msg);
		} else if (p->nover) {
			struct hp_buf msg = { 0 };
			hp_buf_printf(&msg, "over %s %s", p->over[0].option, p->over[0].rule);
			junit_failure(b, "budget", msg.p, p);
			hp_buf_release(&msg);
		}
		hp_buf_str(b, "      <system-out>");
		hp_buf_xml_str(b, p->program);
		if (p->missing)
			hp_buf_printf(b, " (pid %ld) left no verdict</system-out>\n", p->pid);
		else
			hp_buf_printf(b, " (pid %ld) asked to exit with status %d</system-out>\n", p->pid,
				      p->status);
		hp_buf_str(b, "    </testcase>\n");
	}
	hp_buf_str(b, "  </testsuite>\n</testsuites>\n");
}

void hp_check_leaks_json(struct hp_buf *b, const struct hp_check_proc *p)
{
	hp_buf_printf(b, "{\n  \"pid\": %ld, \"program\": ", p->pid);
	jstr(b, p->program);
	hp_buf_str(b, ", \"cmdline\": ");
	jstr(b, p->cmdline);
	hp_buf_printf(b, ",\n  \"check\": %u, \"pause_ms\": %.3f, \"attached_at\": ", p->live,
		      (double)p->pause_us / 1000.0);
	if (p->attached_at)
		hp_buf_printf(b, "%" PRId64, p->attached_at);
	else
		hp_buf_str(b, "null");
	hp_buf_printf(b, ", \"estimated\": %s, \"lg_prof_sample\": %d,\n  \"confirm_checks\": %u, "
		      "\"confirm_interval\": %g, \"unconfirmed_blocks\": %" PRIu64 ",\n  \"error\": ",
		      p->sampled_lg ? "true" : "false", p->sampled_lg, p->confirm_checks ? p->confirm_checks : 1,
		      p->confirm_interval, p->unconfirmed_blocks);
	jstr(b, p->error);
	hp_buf_str(b, ",\n  ");
	json_totals(b, p);
	hp_buf_printf(b, ",\n  \"threads\": %u, \"threads_stopped\": %u, \"threads_not_stopped\": [",
		      p->threads, p->threads_stopped);
	for (size_t i = 0; i < p->nunstopped; i++) {
		hp_buf_printf(b, "%s{\"tid\": %ld, \"name\": ", i ? ", " : "", p->unstopped[i].tid);
		jstr(b, p->unstopped[i].name);
		hp_buf_char(b, '}');
	}
	hp_buf_str(b, "],\n  \"leaks\": [");
	for (size_t j = 0; j < p->nleaks; j++) {
		const struct hp_check_leak *l = &p->leaks[j];
		hp_buf_printf(b, "%s\n    {\"kind\": \"%s\", \"bytes\": %" PRIu64 ", \"objects\": %" PRIu64
			      ", \"confirmed\": %s, \"frames\": [", j ? "," : "", l->direct ? "direct" : "indirect",
			      l->bytes, l->objects, p->confirm_checks > 1 ? "true" : "false");
		for (size_t i = 0; i < l->nframes; i++) {
			hp_buf_str(b, i ? ",\n      " : "\n      ");
			json_frame(b, &l->frames[i]);
		}
		hp_buf_str(b, "]}");
	}
	hp_buf_str(b, "]\n}\n");
}
