/*
 * cmd_attach.c -- heapprof attach PID and heapprof detach PID: profiling a
 * process that was started without heapprof, and leaving it.
 *
 * Design note (the mechanism is inject.c's; the library's side is
 * src/lib/control/attach.c and src/lib/next/got.c).
 *
 *   1. Refusals first, with the target untouched: no such process, a
 *      32-bit or static one, one traced already (TracerPid), one with a
 *      shadow stack (its return addresses cannot be chosen), one whose C
 *      library is not glibc, one under a seccomp filter (the load's
 *      system calls could kill it), one with another libheapprof, one that
 *      cannot write the host directory its dumps are to go to (a
 *      container's user), and
 *      ptrace's own refusal (EPERM: another user's process, Yama's
 *      ptrace_scope, a seccomp profile), which names CAP_SYS_PTRACE and
 *      the Yama setting.
 *   1b. A process in a container (another root, its own mount and pid
 *      namespaces; attachct.c) that does not see this libheapprof.so at
 *      its path gets copies of it and of the libraries it lacks (needed.c)
 *      in a private directory of its own /dev/shm or /tmp (stage.c, through
 *      /proc/PID/root, never following its symbolic links), loaded in
 *      step 3 by absolute path, dependencies first, and removed once
 *      loaded.  The directory of an absolute -c prof_prefix it does not
 *      see is the host's: opened here and passed over a unix socket in
 *      that private directory (heapprof_attach_fd, two calls that never
 *      block), its prefix becoming /proc/self/fd/N/...  The other
 *      commands find such a process's files through /proc/PID/root and
 *      its own pid (proc.c).
 *   2. One thread is stopped at a safe point (inject.c): blocked in a
 *      system call of the C library's, neither in the allocator nor in
 *      the loader; the others run on.
 *   3. It calls dlopen(libheapprof, RTLD_NOW | RTLD_LOCAL), with libc's
 *      address of dlopen read from the process's own dynamic symbol
 *      table.  RTLD_LOCAL: the library joins no global scope, so no
 *      later symbol lookup of the program's finds heapprof's malloc; its
 *      constructor sees it was not preloaded and does nothing but find
 *      the allocator (src/lib/control/lifecycle.c).
 *   4. It calls the library's heapprof_attach(conf, result) (the address
 *      from the library's dynamic symbols in the process): the options
 *      are read as at start-up (profiler.ini, then -c as HEAPPROF_CONF),
 *      the helper thread starts, and the GOT entries of every loaded
 *      object naming malloc and its family are rewritten to heapprof's,
 *      dlopen's too, so objects loaded later are rewritten as they come.
 *   5. The thread is released where it was, its registers, FP state and
 *      signal mask restored by rt_sigreturn; the command prints the pause.
 *
 * heapprof detach PID makes the same kind of call to heapprof_detach():
 * the GOT entries are put back, sampling stops, the helper thread ends,
 * the state file and the bell go; the library stays loaded and inert
 * (code may still run in it: a pointer to its malloc taken while
 * attached).  A later attach starts over from an empty profile.
 *
 * Killed at any moment (kill -9), the command leaves the process running:
 * ptrace detaches it, and a call under way restores the thread by itself
 * (inject.c).  Killed between dlopen and heapprof_attach, the library is
 * loaded and inert: a new attach goes on from there.
 */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dlfcn.h>

#include "attachabi.h"
#include "attachct.h"
#include "cmds.h"
#include "inject.h"
#include "options.h"
#include "preload.h"
#include "procmem.h"
#include "usage.h"

#define SAFE_POINT_MS 3000     /* to find a thread at a safe point */
#define CALL_MS       10000    /* for dlopen and the library's start-up */

static const char attach_help[] =
	"usage: heapprof attach PID [-c KEY:VALUE[,...]]...\n"
	"Loads heapprof into process PID, which was started without it, and routes\n"
	"its allocation calls to heapprof from now on: then heapprof dump, pause,\n"
	"resume, ps and serve work on it as on a process started under heapprof.\n"
	"Blocks allocated before the attach are not counted; every figure covers\n"
	"the allocations since.  One thread of the process is stopped, at a safe\n"
	"point (a blocking system call), for the few milliseconds the loading\n"
	"takes; the others run on.  It needs ptrace: the same user and, for another\n"
	"user's process, CAP_SYS_PTRACE; Yama's ptrace_scope 1 also wants\n"
	"CAP_SYS_PTRACE, and 3 forbids it.\n"
	"A process in a container (another root) that does not see libheapprof.so\n"
	"gets a copy, and of the libraries it lacks, in a private directory of its\n"
	"/dev/shm or /tmp, removed once loaded; an absolute -c prof_prefix is this\n"
	"host's path, its directory passed to the process.\n"
	"\n"
	"  -c, --conf KEY:VALUE[,...]  library options, as in MALLOC_CONF (repeatable;\n"
	"                              over profiler.ini's)\n"
	"  -h, --help                  show this help\n"
	"\n"
	"Example: heapprof attach 4242 && heapprof report \"$(heapprof dump 4242)\"\n"
	"See heapprof(1), ATTACH.\n";

static const char detach_help[] =
	"usage: heapprof detach PID\n"
	"Undoes heapprof attach: the process's allocation calls go to its allocator\n"
	"directly again, sampling stops, heapprof's helper thread ends and the\n"
	"process leaves heapprof ps.  The library stays loaded, inert.\n"
	"\n"
	"  -h, --help  show this help\n"
	"See heapprof(1), ATTACH.\n";

static const char *cmd_name = "attach";

__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "heapprof %s: ", cmd_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* ---- what the process is ------------------------------------------------ */

static bool is_libc(const char *base)
{
	return !strncmp(base, "libc.so", 7) || (!strncmp(base, "libc-", 5) && strstr(base, ".so"));
}

static bool is_musl(const char *base)
{
	return !strncmp(base, "ld-musl", 7) || !strncmp(base, "libc.musl", 9);
}

static bool is_heapprof(const char *base)
{
	return !strncmp(base, "libheapprof", 11);
}

/* A line's value in /proc/PID/status, or "" */
static void status_field(pid_t pid, const char *key, char *out, size_t cap)
{
	char fn[64], line[512];
	size_t klen = strlen(key);

	out[0] = '\0';
	snprintf(fn, sizeof(fn), "/proc/%d/status", (int)pid);
	FILE *f = fopen(fn, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			const char *v = line + klen + 1;
			v += strspn(v, " \t");
			snprintf(out, cap, "%.*s", (int)strcspn(v, "\n"), v);
			break;
		}
	fclose(f);
}

static void comm_of(pid_t pid, char *out, size_t cap)
{
	char fn[64];

	snprintf(fn, sizeof(fn), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(fn, "re");
	out[0] = '\0';
	if (f) {
		if (fgets(out, (int)cap, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
}

/* Yama's ptrace_scope, or -1 without Yama. */
static int yama_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int refuse_eperm(pid_t pid, const char *why)
{
	int scope = yama_scope();
	char yama[160] = "";

	if (scope >= 1)
		snprintf(yama, sizeof(yama), "; Yama's ptrace_scope is %d (%s)", scope,
			 scope == 3 ? "no ptrace at all until reboot" :
			 "set /proc/sys/kernel/yama/ptrace_scope to 0, or have CAP_SYS_PTRACE");
	return fail("not permitted to trace process %d (%s): run as its user or with CAP_SYS_PTRACE%s; "
		    "a seccomp profile (a container's) may also forbid ptrace", (int)pid, why, yama);
}

/* A copy of libheapprof.so that heapprof attach staged into a container
 * (stage.h), loaded and unlinked since. */
static bool is_staged_copy(const char *path)
{
	return strstr(path, "/.heapprof-attach.") != NULL;
}

/* The checks that need no stop.  Fills libc and, when already loaded,
 * have (else have->head is 0); *hidden says that the process does not
 * see lib at its path (a container: it is staged there). */
static int check_target(pid_t pid, const char *lib, struct hp_pm_object *libc, struct hp_pm_object *have,
			bool *hidden)
{
	char fn[PATH_MAX], buf[256];
	bool dynamic;
	struct stat a, b;

	snprintf(fn, sizeof(fn), "/proc/%d", (int)pid);
	if (stat(fn, &a) != 0)
		return fail("no process %d", (int)pid);
	status_field(pid, "State", buf, sizeof(buf));
	if (buf[0] == 'Z')
		return fail("process %d is a zombie", (int)pid);
	if (buf[0] == 'T' || buf[0] == 't')
		return fail("process %d is stopped (%s): continue it first (kill -CONT %d)", (int)pid, buf, (int)pid);
	int cls = hp_pm_exe_class(pid, &dynamic);
	if (cls == 0) {
		if (errno == EACCES || errno == EPERM)
			return refuse_eperm(pid, "its executable cannot be read");
		return fail("cannot read the executable of process %d (a kernel thread?)", (int)pid);
	}
	if (cls == 32)
		return fail("process %d is a 32-bit program: heapprof attach loads a 64-bit library", (int)pid);
	if (!dynamic)
		return fail("process %d is a static binary: no dynamic loader to load heapprof with, and "
			    "no GOT to route its malloc through; rebuild it dynamically linked", (int)pid);
	status_field(pid, "TracerPid", buf, sizeof(buf));
	if (atoi(buf) != 0) {
		char who[64];
		comm_of((pid_t)atoi(buf), who, sizeof(who));
		return fail("process %d is already traced by process %s (%s): a process has one tracer; "
			    "detach that debugger first", (int)pid, buf, who[0] ? who : "?");
	}
	/* Under a filter the load's system calls (openat, mmap, mprotect,
	 * clone for the helper thread) may be refused, or kill it. */
	status_field(pid, "Seccomp", buf, sizeof(buf));
	if (atoi(buf) != 0)
		return fail("process %d runs under a seccomp %s: heapprof attach's load and helper thread "
			    "would make system calls the filter may refuse or punish with death; start it "
			    "under heapprof run instead", (int)pid, atoi(buf) == 1 ? "strict mode" : "filter");
	status_field(pid, "x86_Thread_features", buf, sizeof(buf));
	if (strstr(buf, "shstk"))
		return fail("process %d runs with a shadow stack (x86_Thread_features: %s): heapprof attach "
			    "cannot make its calls return; start it under heapprof run instead", (int)pid, buf);
	if (!hp_pm_find(pid, is_libc, libc)) {
		struct hp_pm_object m;
		if (errno == EACCES || errno == EPERM)
			return refuse_eperm(pid, "its memory map cannot be read");
		if (hp_pm_find(pid, is_musl, &m))
			return fail("process %d uses musl's C library (%s): heapprof attach knows glibc only",
				    (int)pid, m.path);
		return fail("process %d has no GNU C library (libc.so.6) mapped: heapprof attach knows "
			    "glibc only", (int)pid);
	}
	if (!hp_pm_find(pid, is_heapprof, have))
		memset(have, 0, sizeof(*have));
	else if ((stat(lib, &a) != 0 || a.st_ino != have->inode) && !is_staged_copy(have->path))
		return fail("process %d already has another heapprof library loaded (%s), not %s",
			    (int)pid, have->path, lib);
	/* The library as the process sees it: its mount namespace may be a
	 * container's. */
	if (snprintf(fn, sizeof(fn), "/proc/%d/root%s", (int)pid, lib) >= (int)sizeof(fn))
		return fail("%s: too long a path", lib);
	if (stat(lib, &a) != 0)
		return fail("cannot find %s: %s", lib, strerror(errno));
	*hidden = !hp_stage_root_stat(pid, lib, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino;
	return 0;
}

/* ---- the calls ---------------------------------------------------------- */

static int stop_failed(struct hp_inject *ij, enum hp_inject_err e, pid_t pid)
{
	hp_inject_release(ij);
	switch (e) {
	case HP_INJECT_EPERM:
		return refuse_eperm(pid, ij->why);
	case HP_INJECT_GONE:
		return fail("process %d ended", (int)pid);
	case HP_INJECT_NOSAFE:
		return fail("process %d: %s; nothing was changed, try again", (int)pid, ij->why);
	default:
		return fail("process %d: %s; nothing was changed", (int)pid, ij->why);
	}
}

/* Whether the process maps the file at path (its own name for it; the
 * kernel may write it from its mount namespace's root, longer: the tail
 * is compared, the stage directory's name being random). */
static bool maps_file(pid_t pid, const char *path)
{
	char fn[64], line[PATH_MAX + 128];
	size_t n = strlen(path);
	bool found = false;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(fn, "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");
		found = len >= n && !strncmp(line + len - n, path, n);
	}
	if (f)
		fclose(f);
	return found;
}

/* Makes the stopped process dlopen path. */
static int dlopen_in(struct hp_inject *ij, uintptr_t fn, const char *path)
{
	size_t len = strlen(path) + 1;
	uintptr_t args[2] = { hp_inject_data_addr(ij, len), RTLD_NOW | RTLD_LOCAL };
	enum hp_inject_err e = hp_inject_call(ij, fn, args, 2, path, len, NULL, 0, CALL_MS);

	if (e == HP_INJECT_GONE)
		return fail("process %d ended", (int)ij->pid);
	if (e)
		return fail("process %d: loading %s: %s", (int)ij->pid, path, ij->why);
	return 0;
}

/* Loads lib into the stopped process unless it is there: the staged
 * copies when there are (the libraries it lacked first, by absolute path:
 * the loader then matches libheapprof.so's DT_NEEDED to them by soname). */
static int load(struct hp_inject *ij, const char *lib, struct hp_pm_object *have,
		const struct hp_attachct *sg)
{
	if (have->head)
		return 0;
	uintptr_t fn = hp_pm_dynsym(ij->pid, &ij->libc, "dlopen");
	if (!fn)
		fn = hp_pm_dynsym(ij->pid, &ij->libc, "__libc_dlopen_mode");
	if (!fn)
		return fail("process %d: no dlopen in %s: a C library heapprof attach does not know",
			    (int)ij->pid, ij->libc.path);
	for (int i = 0; i + 1 < sg->n; i++) {
		if (dlopen_in(ij, fn, sg->path[i]))
			return 1;
		if (!maps_file(ij->pid, sg->path[i]))
			return fail("process %d could not load %s (the copy of %s staged in its filesystem); "
				    "nothing was changed", (int)ij->pid, sg->path[i], sg->from[i]);
	}
	if (sg->n)
		lib = sg->path[sg->n - 1];
	hp_inject_step("before-dlopen");
	if (dlopen_in(ij, fn, lib))
		return 1;
	hp_inject_step("after-dlopen");
	if (!hp_pm_find(ij->pid, is_heapprof, have))
		return fail("process %d could not load %s (dlopen failed: its static TLS space, or a "
			    "library it needs, may be missing in its namespace); nothing was changed",
			    (int)ij->pid, lib);
	return 0;
}

/* Calls heapprof_attach or heapprof_detach in the library. */
static int call_entry(struct hp_inject *ij, struct hp_pm_object *have, const char *entry, const char *conf,
		      struct hp_attach_result *res)
{
	uintptr_t fn = hp_pm_dynsym(ij->pid, have, entry);
	if (!fn)
		return fail("process %d: %s has no %s (an older heapprof?)", (int)ij->pid, have->path, entry);
	size_t clen = conf ? strlen(conf) + 1 : 0;
	size_t len = sizeof(*res) + clen;
	char *data = calloc(1, len);
	if (clen)
		memcpy(data + sizeof(*res), conf, clen);
	uintptr_t at = hp_inject_data_addr(ij, len);
	uintptr_t args[2];
	int n = 0;
	if (conf)
		args[n++] = at + sizeof(*res);
	args[n++] = at;
	memset(res, 0, sizeof(*res));
	enum hp_inject_err e = hp_inject_call(ij, fn, args, n, data, len, res, sizeof(*res), CALL_MS);
	free(data);
	if (e == HP_INJECT_GONE)
		return fail("process %d ended", (int)ij->pid);
	if (e)
		return fail("process %d: %s: %s", (int)ij->pid, entry, ij->why);
	res->text[sizeof(res->text) - 1] = '\0';
	return 0;
}

/* ---- the subcommands ------------------------------------------------------ */

static void append(char **list, const char *s)
{
	size_t old = *list ? strlen(*list) : 0, n = strlen(s);
	char *l = realloc(*list, old + n + 2);

	if (!l)
		abort();
	if (old)
		l[old++] = ',';
	memcpy(l + old, s, n + 1);
	*list = l;
}

/* One heapprof_attach_fd call (attachabi.h). */
static int call_fd(struct hp_inject *ij, uintptr_t fn, const char *sock, int conn, struct hp_attach_fd *res)
{
	size_t slen = strlen(sock) + 1, len = sizeof(*res) + slen;
	char *data = calloc(1, len);

	memcpy(data + sizeof(*res), sock, slen);
	uintptr_t at = hp_inject_data_addr(ij, len);
	uintptr_t args[3] = { at + sizeof(*res), (uintptr_t)(intptr_t)conn, at };
	memset(res, 0, sizeof(*res));
	enum hp_inject_err e = hp_inject_call(ij, fn, args, 3, data, len, res, sizeof(*res), CALL_MS);
	free(data);
	if (e == HP_INJECT_GONE)
		return fail("process %d ended", (int)ij->pid);
	if (e)
		return fail("process %d: heapprof_attach_fd: %s", (int)ij->pid, ij->why);
	res->text[sizeof(res->text) - 1] = '\0';
	if (res->status == HP_ATTACH_ALREADY)
		return fail("process %d is attached already (heapprof detach %d first)", (int)ij->pid,
			    (int)ij->pid);
	if (res->status != HP_ATTACH_DONE)
		return fail("process %d: cannot pass it the directory %s: %s", (int)ij->pid, sock,
			    res->status ? res->text : "the library did not answer");
	return 0;
}

/* Gives the stopped process the host's dump directory (attachabi.h), and
 * names it in the -c list's prof_prefix as /proc/self/fd/N/BASE. */
static int pass_dir(struct hp_inject *ij, struct hp_pm_object *have, struct hp_attachct *c, char **confp)
{
	struct hp_attach_fd res;
	char item[PATH_MAX + 64];
	uintptr_t fn = hp_pm_dynsym(ij->pid, have, "heapprof_attach_fd");

	if (!fn)
		return fail("process %d: %s has no heapprof_attach_fd (an older heapprof?)", (int)ij->pid,
			    have->path);
	if (call_fd(ij, fn, c->sock, -1, &res))
		return 1;
	int conn = res.fd;
	if (hp_attachct_send_dir(c) != 0) {
		int err = errno;
		call_fd(ij, fn, c->sock, conn, &res);   /* closes the process's end */
		return fail("process %d: cannot send it %s: %s", (int)ij->pid, c->hostdir, strerror(err));
	}
	if (call_fd(ij, fn, c->sock, conn, &res))
		return 1;
	snprintf(item, sizeof(item), "prof_prefix:/proc/self/fd/%d/%s", (int)res.fd, c->base);
	append(confp, item);
	return 0;
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || end == s || v <= 0 || v > 0x3fffffff)
		return hp_usage_error(cmd_name, "'%s' is not a process ID", s);
	*pid = (pid_t)v;
	return 0;
}

/* An argument that is not a known option: the process, once.  0, or the
 * command's exit status. */
static int operand(const char *a, pid_t *pid)
{
	if (a[0] == '-')
		return hp_usage_error(cmd_name, "unknown option '%s'", a);
	if (*pid)
		return hp_usage_error(cmd_name, "one process at a time, not '%s' too", a);
	return parse_pid(a, pid) ? 2 : 0;
}

static int attach(int argc, char **argv, char **confp)
{
	char lib[PATH_MAX];
	pid_t pid = 0;
	int status;
	struct hp_pm_object libc, have;
	struct hp_inject ij;
	struct hp_attach_result res;

	cmd_name = "attach";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(attach_help, stdout);
			return 0;
		} else if (!strcmp(a, "-c") || !strcmp(a, "--conf")) {
			if (++i >= argc)
				return hp_usage_error(cmd_name, "option '%s' needs a value", a);
			append(confp, argv[i]);
		} else if (!strncmp(a, "-c", 2) && a[2]) {
			append(confp, a + 2);
		} else if (!strncmp(a, "--conf=", 7)) {
			append(confp, a + 7);
		} else if ((status = operand(a, &pid)) != 0) {
			return status;
		}
	}
	if (!pid)
		return hp_usage_error(cmd_name, "which process? (heapprof attach PID)");
	if (*confp && hp_options_check(cmd_name, *confp))
		return 2;
	if (hp_preload_find_library(lib, sizeof(lib)) != 0)
		return fail("cannot find libheapprof.so (set HEAPPROF_LIB)");
	char real[PATH_MAX];
	if (realpath(lib, real))
		snprintf(lib, sizeof(lib), "%s", real);
	bool hidden = false;
	if (check_target(pid, lib, &libc, &have, &hidden))
		return 1;
	struct hp_attachct *c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	int rc = hp_attachct_prepare(c, pid, lib, hidden, have.head != 0, *confp);
	if (rc) {
		fail("%s", c->why);
		hp_attachct_release(c);
		free(c);
		return 1;
	}
	hp_inject_step("before-stop");
	enum hp_inject_err e = hp_inject_stop(&ij, pid, &libc, SAFE_POINT_MS);
	if (e) {
		hp_attachct_release(c);
		free(c);
		return stop_failed(&ij, e, pid);
	}
	hp_inject_step("stopped");
	pid_t tid = ij.tid;
	double t0 = hp_inject_now_ms();
	rc = load(&ij, lib, &have, c);
	double t1 = hp_inject_now_ms();
	if (!rc && c->pass_dir)
		rc = pass_dir(&ij, &have, c, confp);
	if (!rc)
		rc = call_entry(&ij, &have, "heapprof_attach", *confp ? *confp : "", &res);
	double t2 = hp_inject_now_ms();
	hp_inject_release(&ij);
	hp_inject_step("released");
	/* The loaded copies stay mapped; their names go. */
	hp_attachct_release(c);
	free(c);
	if (rc)
		return rc;
	switch (res.status) {
	case HP_ATTACH_DONE:
		printf("heapprof: attached to process %d: %u GOT entries in %u objects routed to heapprof; "
		       "thread %d paused %.1f ms\n", (int)pid, res.rewritten, res.objects, (int)tid,
		       ij.stopped_ms);
		if (getenv("HEAPPROF_ATTACH_TIMES"))
			fprintf(stderr, "heapprof attach: safe point search %.1f ms; load %.1f ms; start-up %.1f ms\n",
				t0 - ij.t0, t1 - t0, t2 - t1);
		return 0;
	case HP_ATTACH_ALREADY:
		return fail("process %d is attached already (heapprof detach %d first)", (int)pid, (int)pid);
	case HP_ATTACH_PRELOADED:
		return fail("process %d has heapprof already, loaded at start-up: use heapprof dump, pause "
			    "and resume on it", (int)pid);
	case HP_ATTACH_FAILED:
		return fail("process %d: %s; nothing was changed", (int)pid, res.text);
	default:
		return fail("process %d: the library did not answer", (int)pid);
	}
}

int hp_cmd_attach(int argc, char **argv)
{
	char *conf = NULL;
	int rc = attach(argc, argv, &conf);

	free(conf);
	return rc;
}

int hp_cmd_detach(int argc, char **argv)
{
	pid_t pid = 0;
	int status;
	struct hp_pm_object libc, have;
	struct hp_inject ij;
	struct hp_attach_result res;
	char lib[PATH_MAX];

	cmd_name = "detach";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(detach_help, stdout);
			return 0;
		} else if ((status = operand(a, &pid)) != 0) {
			return status;
		}
	}
	if (!pid)
		return hp_usage_error(cmd_name, "which process? (heapprof detach PID)");
	char fn[64];
	struct stat st;
	snprintf(fn, sizeof(fn), "/proc/%d", (int)pid);
	if (stat(fn, &st) != 0)
		return fail("no process %d", (int)pid);
	if (!hp_pm_find(pid, is_libc, &libc)) {
		if (errno == EACCES || errno == EPERM)
			return refuse_eperm(pid, "its memory map cannot be read");
		return fail("process %d has no heapprof attached", (int)pid);
	}
	if (!hp_pm_find(pid, is_heapprof, &have))
		return fail("process %d has no heapprof attached", (int)pid);
	status_field(pid, "TracerPid", lib, sizeof(lib));
	if (atoi(lib) != 0)
		return fail("process %d is traced by process %s: detach that debugger first", (int)pid, lib);
	enum hp_inject_err e = hp_inject_stop(&ij, pid, &libc, SAFE_POINT_MS);
	if (e)
		return stop_failed(&ij, e, pid);
	pid_t tid = ij.tid;
	int rc = call_entry(&ij, &have, "heapprof_detach", NULL, &res);
	hp_inject_release(&ij);
	if (rc)
		return rc;
	switch (res.status) {
	case HP_ATTACH_DONE:
		printf("heapprof: detached from process %d: %u GOT entries restored; thread %d paused %.1f ms\n",
		       (int)pid, res.rewritten, (int)tid, ij.stopped_ms);
		return 0;
	case HP_ATTACH_ALREADY:
		return fail("process %d has no heapprof attached (detached already)", (int)pid);
	case HP_ATTACH_PRELOADED:
		return fail("process %d has heapprof loaded at start-up, not attached: it stays", (int)pid);
	default:
		return fail("process %d: %s", (int)pid, res.text[0] ? res.text : "the library did not answer");
	}
}
