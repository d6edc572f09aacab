/*
 * leak.c -- what leaked at exit, the summary line and the exit-status gate
 * (see leak.h).
 *
 * Owns the runtime-object ranges used to classify stacks.  Runs once, in
 * the exit handler, after the program's atexit handlers, C++ static
 * destructors and the shared libraries' destructors.
 *
 * Under a seccomp filter (base/sandbox.h) the exit makes no system call
 * but write(2) of its lines and the mmap(2) of its tables: no final dump,
 * no reachability scan (it reads /proc/self/maps and stops threads with
 * signals), no verdict file, no state file removed; the summary counts
 * every block still live, as leak_check:live does, and the gate works.
 *
 * The top of leak/, the leak gate's layer: control/lifecycle.c (the exit
 * handler) and intercept/ (_exit, a seccomp filter going in) call it; it
 * calls verdict.c and verdictfile.c, and output/ below for the final dump,
 * the run's note of where its dumps are, and the state file.  Nothing in
 * output/ or below calls back.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/conf.h"
#include "output/dump.h"
#include "output/dumpname.h"
#include "base/fmt.h"
#include "leak/leak.h"
#include "record/live.h"
#include "base/log.h"
#include "base/pages.h"
#include "base/sandbox.h"
#include "record/sampled.h"
#include "record/sample.h"
#include "output/totals.h"
#include "leak/verdict.h"
#include "leak/verdictfile.h"
#include "record/stacktab.h"
#include "output/statefile.h"
#include "record/counters.h"
#include "record/tls.h"
#include "record/switches.h"
#include "base/banned.h"

#define MAX_RANGES 256
/* How long the leak scan waits for the other threads to stop, per round
 * of signals. */
#define REACH_WAIT_MS 1000

struct runtime_range {
	uintptr_t lo, hi;
	int loader;
};

static struct runtime_range ranges[MAX_RANGES];
static int nranges;

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The objects whose allocations are the runtime's own. */
static int runtime_object(const char *path, int *loader)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	*loader = starts_with(base, "ld-linux") || starts_with(base, "ld64.so") ||
		  starts_with(base, "ld-2.") || starts_with(base, "ld.so");
	return *loader || starts_with(base, "libc.so") || starts_with(base, "libstdc++.so") ||
	       starts_with(base, "libgcc_s.so") || starts_with(base, "libm.so") ||
	       starts_with(base, "libpthread.so") || starts_with(base, "libdl.so");
}

static int collect_range(struct dl_phdr_info *info, size_t size, void *arg)
{
	int loader;

	(void)size;
	(void)arg;
	if (!info->dlpi_name || !runtime_object(info->dlpi_name, &loader))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && nranges < MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		ranges[nranges].lo = info->dlpi_addr + ph->p_vaddr;
		ranges[nranges].hi = ranges[nranges].lo + ph->p_memsz;
		ranges[nranges].loader = loader;
		nranges++;
	}
	return 0;
}

static const struct runtime_range *range_of(uintptr_t pc)
{
	for (int i = 0; i < nranges; i++)
		if (pc >= ranges[i].lo && pc < ranges[i].hi)
			return &ranges[i];
	return NULL;
}

static int stack_is_runtime(const struct hp_stack *st)
{
	if (!st || !st->depth)
		return 0;
	struct hp_stack_frames it = hp_stacktab_frames_of(st);
	uintptr_t pc = hp_stacktab_next(&it);
	const struct runtime_range *r = range_of(pc);
	if (r && r->loader)
		return 1;
	for (uint32_t i = 0; i < st->depth; i++, pc = hp_stacktab_next(&it))
		if (!range_of(pc))
			return 0;
	return 1;
}

/* Removes one live block's weight from its stack's counts in s (a copy
 * the summary owns). */
static void exclude_block(const struct hp_totals *s, const void *p,
			  struct hp_counts *by_stack, const uint8_t *runtime,
			  struct hp_leak_summary *out)
{
	uint64_t size, cnt, bytes;
	uint32_t cid;

	if (!p || !hp_live_find(p, &size, &cid))
		return;
	const struct hp_counters *c = hp_counters_at(cid);
	if (!c || c->gen != HP_LOAD(&hp_switches.gen) || c->stack > s->nstacks || runtime[c->stack])
		return;
	hp_sample_weight(size, c->lg, &cnt, &bytes);
	by_stack[c->stack].live_cnt -= (int64_t)cnt;
	by_stack[c->stack].live_bytes -= (int64_t)bytes;
	out->runtime_objects += cnt;
	out->runtime_bytes += bytes;
}

/* Sums what leaked in s, excluding runtime memory. */
static void summarize(const struct hp_totals *s, struct hp_leak_summary *out)
{
	size_t n = (size_t)s->nstacks + 1;
	size_t mem = n * (sizeof(struct hp_counts) + 1);
	struct hp_counts *by_stack = hp_pages_alloc(mem);
	int64_t cnt = 0, bytes = 0;

	memset(out, 0, sizeof(*out));
	if (!by_stack)
		return;
	uint8_t *runtime = (uint8_t *)(by_stack + n);
	nranges = 0;
	dl_iterate_phdr(collect_range, NULL);
	memcpy(by_stack, s->by_stack, n * sizeof(*by_stack));
	for (uint32_t st = 1; st <= s->nstacks; st++)
		runtime[st] = (uint8_t)stack_is_runtime(hp_stacktab_get(st));

	/* stdio's buffers for the standard streams are never freed. */
	exclude_block(s, stdin->_IO_buf_base, by_stack, runtime, out);
	exclude_block(s, stdout->_IO_buf_base, by_stack, runtime, out);
	exclude_block(s, stderr->_IO_buf_base, by_stack, runtime, out);

	for (uint32_t st = 1; st <= s->nstacks; st++) {
		const struct hp_counts *k = &by_stack[st];
		if (runtime[st]) {
			out->runtime_objects += (uint64_t)(k->live_cnt > 0 ? k->live_cnt : 0);
			out->runtime_bytes += (uint64_t)(k->live_bytes > 0 ? k->live_bytes : 0);
			continue;
		}
		if (k->live_cnt <= 0)
			continue;
		cnt += k->live_cnt;
		bytes += k->live_bytes > 0 ? k->live_bytes : 0;
		out->contexts++;
	}
	out->objects = (uint64_t)((cnt + (int64_t)HP_CNT_ONE / 2) >> HP_CNT_SHIFT);
	out->bytes = (uint64_t)bytes;
	out->runtime_objects = (out->runtime_objects + HP_CNT_ONE / 2) >> HP_CNT_SHIFT;
	if (out->contexts && !out->objects)
		out->objects = 1;
	hp_pages_free(by_stack, mem);
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* A path absolute, for a message the user may paste elsewhere. */
static void absolute(char *out, size_t cap, const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		hp_fmt(out, cap, "%s", path);
	else
		hp_fmt(out, cap, "%s/%s", cwd, path);
}

/* Writes absolute path without "." and ".." components (and doubled
 * slashes) into out, by name. */
static void clean_path(const char *path, char *out, size_t cap)
{
	size_t n = 0;

	if (cap < 2)
		return;
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[--n] != '/')
				;
		} else if (len && !(len == 1 && p[0] == '.') && n + len + 2 < cap) {
			out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p = end;
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
}

/* path, or the same file by a clean name ("bin/../bin/heapprof", from a
 * library preloaded as "bin/../lib/libheapprof.so", is bin/heapprof):
 * the name is only taken when it is the same file, which a symbolic link
 * before a ".." could make another. */
static void clean_name(const char *path, char *out, size_t cap)
{
	char clean[PATH_MAX];
	struct stat a, b;

	hp_fmt(out, cap, "%s", path);
	if (path[0] != '/')
		return;
	clean_path(path, clean, sizeof(clean));
	if (strcmp(clean, path) && stat(path, &a) == 0 && stat(clean, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		hp_fmt(out, cap, "%s", clean);
}

/* The heapprof command that goes with this library, for the summary's
 * hint: beside it (a build tree), or in bin/ one or two levels up (an
 * installation in lib/ or lib/<triplet>/), by a clean name; else the bare
 * name. */
static void command_path(char *out, size_t cap)
{
	Dl_info info;
	char dir[PATH_MAX];

	hp_fmt(out, cap, "heapprof");
	if (!dladdr((void *)command_path, &info) || !info.dli_fname || info.dli_fname[0] != '/')
		return;
	hp_fmt(dir, sizeof(dir), "%s", info.dli_fname);
	for (int up = 0; up < 3; up++) {
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return;
		*slash = '\0';
		char try[PATH_MAX];
		size_t n = hp_fmt(try, sizeof(try), up ? "%s/bin/heapprof" : "%s/heapprof", dir);
		if (n < sizeof(try) && access(try, X_OK) == 0) {
			clean_name(try, out, cap);
			return;
		}
	}
}

static void print_summary(const struct hp_leak_summary *sum, const char *dump, int dump_err)
{
	char cmd[PATH_MAX], where[PATH_MAX];

	if (sum->reachability)
		hp_log(HP_LOG_ERROR, "Leak approximation summary: ~%llu byte%s, ~%llu object%s, >= %llu context%s "
		       "(direct %llu byte%s in %llu object%s, indirect %llu byte%s in %llu object%s)",
		       (unsigned long long)sum->bytes, plural(sum->bytes),
		       (unsigned long long)sum->objects, plural(sum->objects),
		       (unsigned long long)sum->contexts, plural(sum->contexts),
		       (unsigned long long)sum->direct_bytes, plural(sum->direct_bytes),
		       (unsigned long long)sum->direct_objects, plural(sum->direct_objects),
		       (unsigned long long)(sum->bytes - sum->direct_bytes), plural(sum->bytes - sum->direct_bytes),
		       (unsigned long long)(sum->objects - sum->direct_objects),
		       plural(sum->objects - sum->direct_objects));
	else
		hp_log(HP_LOG_ERROR, "Leak approximation summary: ~%llu byte%s, ~%llu object%s, >= %llu context%s",
		       (unsigned long long)sum->bytes, plural(sum->bytes),
		       (unsigned long long)sum->objects, plural(sum->objects),
		       (unsigned long long)sum->contexts, plural(sum->contexts));
	if (hp_sandbox_on()) {
		hp_log(HP_LOG_ERROR, "The program is sandboxed (seccomp): no final dump%s (heapprof(7): SANDBOXES)",
		       hp_conf.leak_check == HP_CONF_LEAK_REACHABLE ?
		       ", and no reachability scan: the summary counts every block still live" : "");
	} else if (!hp_conf.prof_final) {
		/* leak_check:reachable without a dump: the report above is
		 * the detail. */
	} else if (dump_err == ENOENT) {
		hp_log(HP_LOG_ERROR, "No final dump (prof_prefix is empty): set prof_prefix for leak detail");
	} else if (dump_err) {
		hp_log(HP_LOG_ERROR, "No final dump (%s): no leak detail", strerrordesc_np(dump_err));
	} else {
		absolute(where, sizeof(where), dump);
		command_path(cmd, sizeof(cmd));
		hp_log(HP_LOG_ERROR, "Run %s report %s for leak detail", cmd, where);
	}
	if (HP_LOAD(&hp_switches.lg_sample) > 0)
		hp_log(HP_LOG_ERROR, "Estimated from samples (lg_prof_sample:%d); lg_prof_sample:0 counts every block",
		       HP_LOAD(&hp_switches.lg_sample));
}

/* leak_check:reachable (the default): the verdict by reachability, with
 * its report; estimated from the sampled blocks at a sampled rate.
 * Returns 0 when there is none (then the summary counts what is live). */
static int reachability_verdict(struct hp_leak_summary *sum, int status, const struct hp_stack_entry *entry)
{
	struct hp_verdict v;

	if (hp_conf.leak_check != HP_CONF_LEAK_REACHABLE || hp_sandbox_on())
		return 0;
	if (hp_verdict_run(&v, REACH_WAIT_MS, status, entry) != 0)
		return 0;
	memset(sum, 0, sizeof(*sum));
	sum->bytes = v.direct_bytes + v.indirect_bytes;
	sum->objects = v.direct_objects + v.indirect_objects;
	sum->contexts = v.contexts;
	sum->direct_bytes = v.direct_bytes;
	sum->direct_objects = v.direct_objects;
	sum->reachability = 1;
	memcpy(sum->leak_dump, v.dump, sizeof(sum->leak_dump));
	sum->leak_dump_err = v.dump_err;
	return 1;
}

/* The final dump, the summary and the gate.  Returns the exit status to
 * use: status, or leak_exit_code when the gate fails the program. */
static int check_leaks(int status, const struct hp_stack_entry *entry)
{
	struct hp_tls *t = &hp_tls;
	struct hp_totals snap;
	struct hp_leak_summary sum;
	char path[PATH_MAX];
	int have_snap = 0, dump_err = ENOENT, logged = 0, print;
	int sandboxed = hp_sandbox_on();

	if (!hp_conf.prof_final && !hp_conf.prof_leak) {
		hp_statefile_remove();
		hp_dumpname_run_note();
		return status;
	}
	hp_tls_guard_enter(t);
	if (hp_conf.prof_final && sandboxed && !hp_conf.prof_leak)
		hp_log(HP_LOG_INFO, "The program is sandboxed (seccomp): no final dump (heapprof(7): SANDBOXES)");
	if (hp_conf.prof_final && !sandboxed) {
		dump_err = hp_dump_auto('f', HP_DUMP_QUIET, path, sizeof(path), &snap);
		have_snap = dump_err == 0;
	}
	if (!hp_conf.prof_leak)
		goto out;
	if (!have_snap) {
		if (hp_totals_take(&snap))
			goto out;
		have_snap = 1;
	}
	if (!reachability_verdict(&sum, status, entry))
		summarize(&snap, &sum);
	if (!sum.contexts)
		goto out;
	/* leak_report:false, or standard error closed and no log file: say
	 * nothing (the verdict file, with leak_check:reachable, is then the
	 * only record). */
	print = hp_verdict_printable();
	if (print && sum.reachability)   /* the detail is the leak dump's: exactly these */
		print_summary(&sum, sum.leak_dump, sum.leak_dump_err);
	else if (print)
		print_summary(&sum, path, dump_err);
	logged = 1;
	if (!hp_conf.prof_leak_error || !hp_conf.leak_gate)
		goto out;   /* leak_gate:false: reported, not failed ([program:NAME]) */
	if (status != 0) {
		if (print)
			hp_log(HP_LOG_ERROR, "Memory leaks were detected; keeping the program's exit status %d", status);
		goto out;
	}
	if (print)
		hp_log(HP_LOG_ERROR, "Exiting with error code because memory leaks were detected");
	hp_totals_release(&snap);
	hp_statefile_remove();
	hp_dumpname_run_note();
	hp_sampled_leave(t);
	return (int)hp_conf.leak_exit_code;
out:
	/* The summary names the final dump; without one, say where it went,
	 * except to a clean leak check, whose output stays as the program's. */
	if (have_snap && !dump_err && !logged)
		hp_dump_log(hp_conf.prof_leak ? HP_LOG_DEBUG : HP_LOG_INFO, path, 'f', &snap);
	if (have_snap)
		hp_totals_release(&snap);
	hp_statefile_remove();
	hp_dumpname_run_note();
	hp_sampled_leave(t);
	return status;
}

/* The gate keys in table order, for the first refused one. */
static const enum hp_conf_id gate_keys[] = {
	HP_CONF_O_prof_leak_error, HP_CONF_O_leak_gate, HP_CONF_O_leak_check,
	HP_CONF_O_leak_suppressions, HP_CONF_O_leak_exit_code,
};

/*
 * A gate whose configuration was refused (conf.h: hp_conf_gate_fault)
 * cannot say the program is clean, nor what it was asked to fail: the
 * process fails, leaks or none, with leak_exit_code (1 when that is the
 * key refused) and one line naming the setting.  Only where a gate would
 * run: prof_leak_error true or itself refused, and leak_gate not false
 * (a [program:NAME] section that takes the program out of the gate).
 * A program that failed keeps its status.  status is the program's,
 * now what the leak check made of it.
 */
static int gate_unconfigured(int status, int now)
{
	const char *fault = NULL;

	if (!hp_conf.prof_leak_error && !hp_conf_gate_fault(HP_CONF_O_prof_leak_error))
		return now;
	if (!hp_conf.leak_gate && !hp_conf_gate_fault(HP_CONF_O_leak_gate))
		return now;
	for (size_t i = 0; i < HP_ARRAY_LEN(gate_keys) && !fault; i++)
		fault = hp_conf_gate_fault(gate_keys[i]);
	if (!fault)
		return now;
	int code = hp_conf_gate_fault(HP_CONF_O_leak_exit_code) ? 1 : (int)hp_conf.leak_exit_code;
	if (status != 0 || now != status) {
		hp_log(HP_LOG_ERROR, "The leak gate could not be configured: %s; the exit status stays %d "
		       "(profiler.ini(5): Leak gate keys)", fault, now);
		return now;
	}
	hp_log(HP_LOG_ERROR, "The leak gate could not be configured: %s; exiting with status %d, "
	       "leaks or none (profiler.ini(5): Leak gate keys)", fault, code);
	return code;
}

/* The process whose exit is ours to check: the one that started
 * heapprof, or a fork child (its fork handler says so).  A vfork child,
 * or a clone that shares our memory without fork handlers, is not. */
static pid_t owner;
static int checked;

void hp_leak_set_owner(void)
{
	HP_STORE(&owner, hp_sandbox_getpid());
	HP_STORE(&checked, 0);
	/* Where the exit will write a verdict, say now that one is due:
	 * later the process may have lost the right to (setuid). */
	if (hp_conf.prof_leak && hp_conf.leak_check == HP_CONF_LEAK_REACHABLE && !hp_sandbox_on())
		hp_verdictfile_register();
}

void hp_leak_at_exit(int status, const struct hp_stack_entry *entry)
{
	if (__atomic_exchange_n(&checked, 1, __ATOMIC_ACQ_REL))
		return;
	int now = gate_unconfigured(status, check_leaks(status, entry));
	/* A nested exit: glibc runs the exit handlers that remain and flushes
	 * stdio, then exits with the new status. */
	if (now != status)
		exit(now);
}

int hp_leak_scan_due(void)
{
	return hp_conf.prof_leak && hp_conf.leak_check == HP_CONF_LEAK_REACHABLE && !hp_sandbox_on();
}

int hp_leak_before__exit(int status, const struct hp_stack_entry *entry)
{
	/* Sandboxed, getpid(2) may be refused: a vfork child that calls
	 * _exit (its exec failed) is then taken for the process. */
	if (!HP_LOAD_ACQ(&hp_switches.ready) || (!hp_sandbox_on() && getpid() != HP_LOAD(&owner)) ||
	    __atomic_exchange_n(&checked, 1, __ATOMIC_ACQ_REL))
		return status;
	return gate_unconfigured(status, check_leaks(status, entry));
}

void hp_leak_before_sandbox(void)
{
	struct hp_tls *t = &hp_tls;

	if (!HP_LOAD_ACQ(&hp_switches.ready) || !hp_switches.enabled)
		return;
	if (hp_conf.leak_report)
		hp_log(HP_LOG_INFO, "the program installs a seccomp filter: from now on heapprof writes "
		       "no file of its own and only writes its lines (heapprof(7): SANDBOXES)");
	/* Where the exit's verdict would have gone (leak/verdict.c), and
	 * only for the process whose exit is checked. */
	if (!hp_conf.prof_leak || hp_conf.leak_check != HP_CONF_LEAK_REACHABLE ||
	    getpid() != HP_LOAD(&owner) || HP_LOAD(&checked))
		return;
	hp_tls_guard_enter(t);
	/* The status is not known yet: 0 stands for it. */
	hp_verdictfile_error(0, "the program installed a seccomp filter, under which heapprof writes no "
			     "file at exit (heapprof(7): SANDBOXES); its exit status is not known");
	hp_sampled_leave(t);
}
