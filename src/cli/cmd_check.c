/*
 * cmd_check.c -- heapprof check: a command and every process it starts
 * under the leak check, with one report and one exit status for the tree.
 *
 * Owns the run directory and the wait for the tree.  The processes run
 * with the library preloaded (preload.c's hp_preload_env) and these
 * options after any the caller has (so they win):
 *
 *     lg_prof_sample:0,prof_leak:true,leak_check:reachable,
 *     prof_leak_error:false,leak_report:false,prof_final:false,
 *     run_only_top:false,prof_programs:,log_file:<run directory>/check.log,
 *     log_level:warn,log_max_bytes:0,prof_prefix:<run directory>/check
 *
 * and, with --suppressions, leak_suppressions:<its absolute path> and
 * leak_suppressions_warn:false: the file is read here first, and what
 * is wrong with it said once, not by every process of the tree.  Leaks
 * are matched again here once the verdicts are symbolized, frame by frame
 * as LeakSanitizer does: the library knows no source file and no
 * inlined function.
 *
 * so that each registers at start-up (<run directory>/check.<pid>.started)
 * and leaves <run directory>/check.<pid>.verdict in its place at exit,
 * and nothing else: no line on its standard error (its warnings and
 * errors go to check.log, said here once after the run), no dump, and its own
 * exit status (a make that runs a leaking test still sees the test pass;
 * the verdict is this command's to give).  This process is the tree's
 * child subreaper, so it also waits for what the command left running,
 * noting how each process it reaps ended, and receives the verdicts of
 * processes that dropped privileges (the courier, below).  Then the
 * verdicts are read, symbolized and reported (src/report/check.h).  The
 * gate fails closed:
 * a registration without a verdict is a process never checked (a signal
 * killed it, it dropped privileges), named with why, and when it counts
 * it fails the run unless --allow-missing.  The exit status is the
 * command's when it failed, else --exit-code when a counted process
 * leaked or left no verdict, else 0.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report/buf.h"
#include "report/check.h"
#include "report/strtab.h"
#include "report/supfile.h"
#include "report/util.h"
#include "binary.h"
#include "budget.h"
#include "cmds.h"
#include "preload.h"
#include "usage.h"

#define DEFAULT_EXIT_CODE 23    /* LeakSanitizer's */
#define ORPHAN_WAIT_S 10        /* for what the command left running */
#define FOLD_MIN 4              /* this many "not counted" leak lines fold into one */
#define LOG_NAME "check.log"    /* the library's lines, in the run directory */
#define LOG_MAX (1u << 20)      /* of it read; the rest is cut */

struct check_opts {
	char **globs;		/* --programs */
	size_t nglobs;
	int all;
	int allow_missing;	/* a process without a verdict fails nothing */
	int verbose;		/* a "not counted" line for each process */
	const char *suppressions;
	char *suppressions_abs;	/* its absolute path, once read */
	char *config;		/* --config, absolute */
	int exit_code;
	const char *json, *junit;
	struct hp_budgets budgets;	/* --max-peak, --max-allocs, --max-live-at-exit */
};

static void check_usage(FILE *out)
{
	fputs("usage: heapprof check [--programs GLOB[,GLOB...] | --all] [--suppressions FILE]\n"
	      "                      [--config FILE] [--exit-code N] [--allow-missing]\n"
	      "                      [--json FILE] [--junit FILE] [--verbose]\n"
	      "                      [--max-peak [GLOB=]SIZE] [--max-allocs [GLOB=]N]\n"
	      "                      [--max-live-at-exit [GLOB=]SIZE]\n"
	      "                      [--] COMMAND [ARG]...\n"
	      "\n"
	      "Runs COMMAND and every process it starts under the leak check (every\n"
	      "allocation recorded, leaks found by reachability at each exit), then\n"
	      "prints the leaks of the processes that count, symbolized.  Exit status:\n"
	      "COMMAND's when it failed, else N (default 23) when a counted process\n"
	      "leaked or left no verdict (a signal killed it, it dropped privileges),\n"
	      "else 0.  By default a process counts unless its program is\n"
	      "under /usr/, /bin/, /sbin/ or /lib*/ (the compiler, make, the shell).\n"
	      "leak_gate in a [program:NAME] section of profiler.ini decides for the\n"
	      "programs it names, before the options below.\n"
	      "\n"
	      "  --programs GLOB,...  the processes whose program's name matches count\n"
	      "  --all                every process counts\n"
	      "  --suppressions FILE  LeakSanitizer-format suppressions (leak:PATTERN)\n"
	      "  --config FILE        the profiler.ini every process reads (HEAPPROF_CONFIG)\n"
	      "  --exit-code N        the status when a counted process leaked (1-255)\n"
	      "  --max-peak [GLOB=]SIZE          heap budgets: a counted process (or, with\n"
	      "  --max-allocs [GLOB=]N           GLOB, one whose program matches) whose peak\n"
	      "  --max-live-at-exit [GLOB=]SIZE  heap, number of allocations or heap live\n"
	      "                       at exit is over the limit fails the run as a leak\n"
	      "                       does, named with its stacks (exact figures; SIZE\n"
	      "                       in bytes or with K, M, G; repeatable)\n"
	      "  --allow-missing      a counted process that left no verdict is named,\n"
	      "                       and passes\n"
	      "  --json FILE          every process's verdict as JSON ('-': stdout)\n"
	      "  --junit FILE         one JUnit test case per counted process\n"
	      "  --verbose            a line for each leaking process that does not count\n"
	      "                       (more than 3 are folded into one line by program)\n"
	      "  -h, --help           show this help\n"
	      "\n"
	      "Statically linked and set-user-ID programs cannot be checked (LD_PRELOAD\n"
	      "cannot enter them) and leave no trace: a warning names COMMAND when it is\n"
	      "one, and when nothing that counts was checked the run fails (N).\n"
	      "See heapprof(1).\n", out);
}

/* ---- options -------------------------------------------------------------- */

static void add_globs(struct check_opts *o, const char *list)
{
	char *copy = hp_util_xstrdup(list);

	for (char *save = NULL, *g = strtok_r(copy, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
		o->globs = hp_util_xrealloc(o->globs, (o->nglobs + 1) * sizeof(*o->globs));
		o->globs[o->nglobs++] = hp_util_xstrdup(g);
	}
	free(copy);
}

/* Parses the options; returns the index of COMMAND, 0 after --help, or
 * -1 after a usage error (reported). */
static int parse_opts(int argc, char **argv, struct check_opts *o)
{
	int i = 1;

	o->exit_code = DEFAULT_EXIT_CODE;
	for (; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			check_usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--all")) {
			o->all = 1;
			continue;
		}
		if (!strcmp(a, "--allow-missing")) {
			o->allow_missing = 1;
			continue;
		}
		if (!strcmp(a, "--verbose")) {
			o->verbose = 1;
			continue;
		}
		if (a[0] != '-')
			break;
		int budget = !strncmp(a, "--max-", 6);
		if (strcmp(a, "--programs") && strcmp(a, "--suppressions") && strcmp(a, "--exit-code") &&
		    strcmp(a, "--json") && strcmp(a, "--junit") && strcmp(a, "--config") &&
		    (!budget || !strcmp(a, "--max-"))) {
			hp_usage_error("check", "unknown option '%s'", a);
			return -1;
		}
		if (!val) {
			hp_usage_error("check", "option '%s' needs a value", a);
			return -1;
		}
		i++;
		if (budget) {
			int r = hp_budget_option(&o->budgets, a, val);
			if (r <= 0) {
				if (!r)
					hp_usage_error("check", "unknown option '%s'", a);
				return -1;
			}
		} else if (!strcmp(a, "--programs")) {
			add_globs(o, val);
		} else if (!strcmp(a, "--suppressions")) {
			o->suppressions = val;
		} else if (!strcmp(a, "--config")) {
			/* Absolute: the tree's processes change directory. */
			free(o->config);
			o->config = realpath(val, NULL);
			if (!o->config) {
				hp_usage_error("check", "--config: cannot read '%s': %s", val,
						   strerror(errno));
				return -1;
			}
		} else if (!strcmp(a, "--json")) {
			o->json = val;
		} else if (!strcmp(a, "--junit")) {
			o->junit = val;
		} else {
			char *end;
			long n = strtol(val, &end, 10);
			if (*end || end == val || n < 1 || n > 255) {
				hp_usage_error("check", "--exit-code: '%s' is not 1 to 255", val);
				return -1;
			}
			o->exit_code = (int)n;
		}
	}
	if (i >= argc) {
		hp_usage_error("check", "no command to run");
		return -1;
	}
	return i;
}

/* ---- the run directory and the library's options --------------------------- */

/* A private directory for the verdicts, under $TMPDIR. */
static char *make_run_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	struct hp_buf b = { 0 };

	/* A comma would end the prof_prefix value in HEAPPROF_CONF. */
	if (!tmp || !*tmp || strchr(tmp, ','))
		tmp = "/tmp";
	hp_buf_printf(&b, "%s/heapprof-check.XXXXXX", tmp);
	if (!mkdtemp(b.p))
		hp_util_die("check: cannot create a directory in %s: %s", tmp, strerror(errno));
	return b.p;
}

static char *library_conf(const char *dir, const struct check_opts *o)
{
	struct hp_buf b = { 0 };

	/* Every process of the tree is checked: whatever a heapprof run
	 * around this one chose (run_only_top, prof_programs) is undone. */
	hp_buf_printf(&b, "lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_leak_error:false,"
			  "leak_report:false,prof_final:false,run_only_top:false,prof_programs:,"
			  "log_file:%s/" LOG_NAME ",log_level:warn,log_max_bytes:0,prof_prefix:%s/check",
		      dir, dir);
	if (o->suppressions_abs)
		hp_buf_printf(&b, ",leak_suppressions:%s,leak_suppressions_warn:false", o->suppressions_abs);
	hp_buf_str(&b, hp_budget_conf(&o->budgets));
	return b.p;
}

/* Reads --suppressions into *sup before the run, before the run
 * directory exists; returns 0, or -1 after one line naming the file: one
 * that cannot be read is a usage error (exit 2, nothing run), told apart
 * from a command that failed.  Each line that is not a suppression is
 * said here, once (the library, told leak_suppressions_warn:false, skips
 * them quietly). */
static int read_suppressions(struct check_opts *o, struct hp_supfile *sup)
{
	struct hp_buf msgs = { 0 };
	char *abs = realpath(o->suppressions, NULL);
	const char *why = abs ? hp_supfile_read(sup, abs, &msgs) : strerror(errno);

	if (!why && strchr(abs, ','))
		why = "a path with a comma cannot be passed to the library";
	if (why) {
		fprintf(stderr, "heapprof check: --suppressions: cannot read '%s': %s\n", o->suppressions, why);
		free(abs);
		hp_buf_release(&msgs);
		return -1;
	}
	for (char *line = msgs.p, *end = msgs.p + msgs.len; line && line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		fprintf(stderr, "heapprof check: %.*s\n", (int)(nl - line), line);
		line = nl + 1;
	}
	fflush(stderr);
	hp_buf_release(&msgs);
	o->suppressions_abs = abs;
	return 0;
}

/* ---- the courier: verdicts of processes that dropped privileges ---------------- */

/*
 * A process that changed its user after it registered cannot create its
 * verdict in the run directory (0700).  The library then writes it into
 * a memfd and sends that, in one datagram, to an abstract Unix socket
 * named by the last COURIER_NAME_MAX bytes of "<run directory>/check.sock"
 * (src/lib/leak/verdictfile.h; an abstract name needs no rights on any
 * directory).  Anyone may send there, so the kernel's word is taken for
 * the sender's pid (SCM_CREDENTIALS, which cannot be forged), a verdict
 * is filed only for a pid that registered (which took the rights of the
 * directory's owner), and only when the file says that pid.  A thread
 * receives while the tree runs, so that no sender waits on a full queue.
 */
#define COURIER_NAME_MAX 100	/* HP_VERDICTFILE_SOCK_MAX */
struct courier {
	int fd;
	const char *dir;
	pthread_t thread;
	int running;
};

/* The verdict in vfd, sent by pid, filed as check.<pid>.verdict. */
static void courier_file(const struct courier *c, pid_t pid, int vfd)
{
	char name[64], head[64], tmp[64];
	struct stat st;
	int dfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	snprintf(name, sizeof(name), "check.%ld.started", (long)pid);
	if (dfd < 0 || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
	    fstat(vfd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > HP_CHECK_FILE_MAX)
		goto out;
	char *buf = hp_util_xmalloc((size_t)st.st_size + 1);
	size_t n = 0;
	while (n < (size_t)st.st_size) {
		ssize_t r = pread(vfd, buf + n, (size_t)st.st_size - n, (off_t)n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	int hn = snprintf(head, sizeof(head), "heapprof-verdict 1\npid=%ld\n", (long)pid);
	snprintf(tmp, sizeof(tmp), ".courier.%ld", (long)pid);
	snprintf(name, sizeof(name), "check.%ld.verdict", (long)pid);
	int out = -1;
	if (n == (size_t)st.st_size && n >= (size_t)hn && !memcmp(buf, head, (size_t)hn))
		out = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out >= 0) {
		int bad = write(out, buf, n) != (ssize_t)n;
		bad |= close(out) != 0;
		if (bad || renameat(dfd, tmp, dfd, name))
			unlinkat(dfd, tmp, 0);
	}
	free(buf);
out:
	if (dfd >= 0)
		close(dfd);
}

static void *courier_main(void *arg)
{
	struct courier *c = arg;

	for (;;) {
		union {
			char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(4 * sizeof(int))];
			struct cmsghdr align;
		} u;
		char byte;
		struct iovec iov = { &byte, 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
				    .msg_controllen = sizeof(u.buf) };
		struct ucred cred = { 0 };
		int fds[4], nfds = 0;
		ssize_t r = recvmsg(c->fd, &m, MSG_CMSG_CLOEXEC);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
			if (h->cmsg_level != SOL_SOCKET)
				continue;
			if (h->cmsg_type == SCM_CREDENTIALS && h->cmsg_len >= CMSG_LEN(sizeof(cred)))
				memcpy(&cred, CMSG_DATA(h), sizeof(cred));
			else if (h->cmsg_type == SCM_RIGHTS)
				for (size_t k = 0; CMSG_LEN((k + 1) * sizeof(int)) <= h->cmsg_len && nfds < 4; k++)
					memcpy(&fds[nfds++], CMSG_DATA(h) + k * sizeof(int), sizeof(int));
		}
		/* Ours, after the tree ended: everything sent before is in. */
		if (r == 1 && byte == 'q' && cred.pid == getpid() && !nfds)
			break;
		if (r == 1 && byte == 'v' && nfds == 1 && cred.pid > 0)
			courier_file(c, cred.pid, fds[0]);
		for (int k = 0; k < nfds; k++)
			close(fds[k]);
	}
	return NULL;
}

/* The socket's abstract address for dir; returns its length. */
static socklen_t courier_addr(struct sockaddr_un *a, const char *dir)
{
	struct hp_buf name = { 0 };

	hp_buf_printf(&name, "%s/check.sock", dir);
	size_t from = name.len > COURIER_NAME_MAX ? name.len - COURIER_NAME_MAX : 0;
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, name.p + from, name.len - from);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + name.len - from);
	hp_buf_release(&name);
	return len;
}

/* The socket and its thread; without them (the name taken, say) a
 * process that dropped privileges is named as missing. */
static void courier_start(struct courier *c, const char *dir)
{
	struct sockaddr_un a;
	socklen_t len = courier_addr(&a, dir);
	int on = 1;

	c->dir = dir;
	c->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || setsockopt(c->fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) ||
	    bind(c->fd, (struct sockaddr *)&a, len) || pthread_create(&c->thread, NULL, courier_main, c)) {
		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
		return;
	}
	c->running = 1;
}

static void courier_stop(struct courier *c)
{
	struct sockaddr_un a;
	socklen_t len = courier_addr(&a, c->dir);
	char q = 'q';

	if (!c->running)
		return;
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || sendto(s, &q, 1, MSG_NOSIGNAL, (struct sockaddr *)&a, len) != 1)
		pthread_cancel(c->thread);
	if (s >= 0)
		close(s);
	pthread_join(c->thread, NULL);
	close(c->fd);
	c->running = 0;
}

static void remove_run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

/* ---- running the tree -------------------------------------------------------- */

static volatile sig_atomic_t child_pid, stop_waiting;

/* Every process of the tree this command reaped (the command, and the
 * orphans it adopted as the subreaper), with how it ended: the reason
 * given for one that left no verdict. */
struct reaped {
	pid_t pid;
	int wstatus;
};
static struct reaped *reaped;
static size_t nreaped, reaped_cap;

static void note_reaped(pid_t pid, int wstatus)
{
	hp_util_grow(&reaped, &reaped_cap, nreaped + 1, sizeof(*reaped));
	reaped[nreaped++] = (struct reaped){ pid, wstatus };
}

/* SIGTERM and SIGHUP sent to this command go on to the command it runs. */
static void forward(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

/* Once the command has ended: a signal ends the wait for what it left
 * running, and the report follows. */
static void stop(int sig)
{
	(void)sig;
	stop_waiting = 1;
}

static int exit_status_of(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

/* Runs argv under the library; returns its exit status once it and what
 * it left running have ended (or ORPHAN_WAIT_S after it ended). */
static int run_tree(char **argv, const char *conf, const char *config)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, fwd = { .sa_handler = forward };
	struct sigaction stp = { .sa_handler = stop }, dfl = { .sa_handler = SIG_DFL };
	const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
	int wstatus;

	/* Orphans of the tree become our children: their verdicts count. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		hp_util_die("check: cannot fork: %s", strerror(errno));
	if (pid == 0) {
		if (hp_preload_env("check", conf))
			_exit(125);
		if (config)
			setenv("HEAPPROF_CONFIG", config, 1);
		execvp(argv[0], argv);
		int err = errno;
		fprintf(stderr, "heapprof check: cannot run '%s': %s\n", argv[0], strerror(err));
		_exit(err == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	/* The terminal's ^C and ^\ reach the command too: it decides. */
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	sigaction(SIGTERM, &fwd, NULL);
	sigaction(SIGHUP, &fwd, NULL);
	/* Orphans that end before the command are reaped as they go. */
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, 0);
		if (w > 0)
			note_reaped(w, st);
		if (w == pid) {
			wstatus = st;
			break;
		}
		if (w < 0 && errno != EINTR)
			hp_util_die("check: waitpid: %s", strerror(errno));
	}
	child_pid = 0;
	for (size_t i = 0; i < HP_UTIL_ARRAY_LEN(sigs); i++)
		sigaction(sigs[i], &stp, NULL);
	time_t deadline = time(NULL) + ORPHAN_WAIT_S;
	while (!stop_waiting) {
		int st;
		pid_t w = waitpid(-1, &st, WNOHANG);
		if (w > 0)
			note_reaped(w, st);
		if (w > 0 || (w < 0 && errno == EINTR))
			continue;
		if (w < 0)
			break;   /* ECHILD: the whole tree has ended */
		if (time(NULL) >= deadline)
			break;
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}
	if (waitpid(-1, NULL, WNOHANG) == 0)
		fprintf(stderr, "heapprof check: processes that %s left running still run: not checked\n",
			argv[0]);
	for (size_t i = 0; i < HP_UTIL_ARRAY_LEN(sigs); i++)
		sigaction(sigs[i], &dfl, NULL);
	return exit_status_of(wstatus);
}

/* ---- the verdicts ------------------------------------------------------------- */

struct verdicts {
	struct hp_check_proc *p;
	size_t n, cap;
};

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}


static void read_verdicts(const char *dir, struct verdicts *v, struct hp_strtab *strs)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		hp_util_die("check: cannot read '%s': %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		struct stat st;
		/* Temporaries start with '.'; only complete files count.  A
		 * registration (.started) is one that left no verdict. */
		if (e->d_name[0] == '.' ||
		    (!has_suffix(e->d_name, ".verdict") && !has_suffix(e->d_name, ".started")) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		struct hp_buf path = { 0 };
		hp_buf_printf(&path, "%s/%s", dir, e->d_name);
		hp_util_grow(&v->p, &v->cap, v->n + 1, sizeof(*v->p));
		struct hp_check_proc *p = &v->p[v->n];
		memset(p, 0, sizeof(*p));
		const char *err = hp_check_read(path.p, p, strs);
		if (err) {
			hp_util_warn("check: cannot read the verdict '%s': %s", path.p, err);
			hp_check_release(p);
		} else {
			v->n++;
		}
		hp_buf_release(&path);
	}
	closedir(d);
}

/* ---- the library's lines ------------------------------------------------------- */

/*
 * The library's warnings and errors, which the tree's processes wrote to
 * check.log rather than to their standard error: read into *log before
 * the run directory goes, then said once each on this command's standard
 * error, with the process that first said it and how many others did
 * (every process of a make reads the same profiler.ini).  A log line is
 * "<UTC time> <pid> <heapprof>: <message>" (base/log.c).
 */
static void read_log(const char *dir, struct hp_buf *log)
{
	struct hp_buf path = { 0 };
	char chunk[8192];

	hp_buf_printf(&path, "%s/" LOG_NAME, dir);
	int fd = open(path.p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	hp_buf_release(&path);
	if (fd < 0)
		return;
	for (ssize_t r; log->len < LOG_MAX && (r = read(fd, chunk, sizeof(chunk))) != 0;) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		hp_buf_add(log, chunk, (size_t)r);
	}
	close(fd);
}

static const char *name_of_pid(const struct verdicts *v, long pid)
{
	for (size_t k = 0; k < v->n; k++)
		if (v->p[k].pid == pid)
			return v->p[k].name;
	return NULL;
}

static void report_log(struct hp_buf *log, const struct verdicts *v)
{
	struct said {
		const char *msg;
		size_t len;
		long pid;
		size_t others;
	} *said = NULL;
	size_t nsaid = 0, cap = 0;
	static const char tag[] = " <heapprof>: ";

	for (char *line = log->p, *end = log->p + log->len; line && line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *next = nl ? nl + 1 : end;
		char *eol = nl ? nl : end;
		char *t = memmem(line, (size_t)(eol - line), tag, sizeof(tag) - 1);
		char *sp = memchr(line, ' ', (size_t)(eol - line));
		line = next;
		if (!t || !sp || sp > t)
			continue;
		long pid = strtol(sp + 1, NULL, 10);
		const char *msg = t + sizeof(tag) - 1;
		size_t len = (size_t)(eol - msg), i = 0;
		while (i < nsaid && (said[i].len != len || memcmp(said[i].msg, msg, len)))
			i++;
		if (i < nsaid) {
			said[i].others += said[i].pid != pid;
			continue;
		}
		hp_util_grow(&said, &cap, nsaid + 1, sizeof(*said));
		said[nsaid++] = (struct said){ msg, len, pid, 0 };
	}
	for (size_t i = 0; i < nsaid; i++) {
		const char *name = name_of_pid(v, said[i].pid);
		fprintf(stderr, "heapprof check: %s (pid %ld) said: %.*s", name ? name : "a process",
			said[i].pid, (int)said[i].len, said[i].msg);
		if (said[i].others)
			fprintf(stderr, " (and %zu other process%s)", said[i].others, said[i].others == 1 ? "" : "es");
		fputc('\n', stderr);
	}
	fflush(stderr);
	free(said);
}

static int by_pid(const void *a, const void *b)
{
	const struct hp_check_proc *x = a, *y = b;

	/* A pid's verdict before its registration. */
	if (x->pid == y->pid)
		return x->missing - y->missing;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Why the process registered as pid left no verdict. */
static const char *missing_reason(long pid, struct hp_strtab *strs)
{
	char why[256];

	for (size_t i = nreaped; i-- > 0;) {
		int st = reaped[i].wstatus;
		if (reaped[i].pid != pid)
			continue;
		if (WIFSIGNALED(st)) {
			const char *name = sigabbrev_np(WTERMSIG(st));
			snprintf(why, sizeof(why), "killed by signal %d (SIG%s)", WTERMSIG(st), name ? name : "?");
		} else {
			snprintf(why, sizeof(why), "exited with status %d without writing one (it exec'd a "
				 "program heapprof cannot enter, or could not reach heapprof check)",
				 exit_status_of(st));
		}
		return hp_strtab_intern_str(strs, why);
	}
	if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
		return "still running when heapprof check ended";
	return "it ended without writing one: a signal killed it, it exec'd a program heapprof "
	       "cannot enter, or it could not reach heapprof check (its parent saw it end, not "
	       "heapprof check)";
}

/* Sorted by pid: a registration whose verdict is there goes (the process
 * ended between the two); one alone is a process that left no verdict. */
static void pair_registrations(struct verdicts *v, struct hp_strtab *strs)
{
	size_t k = 0;

	for (size_t i = 0; i < v->n; i++) {
		struct hp_check_proc *p = &v->p[i];
		if (p->missing && k && v->p[k - 1].pid == p->pid) {
			hp_check_release(p);
			continue;
		}
		if (p->missing)
			p->error = missing_reason(p->pid, strs);
		v->p[k++] = *p;
	}
	v->n = k;
}

/* Programs of the system: /usr/, /bin/, /sbin/, /lib*. */
static int system_program(const char *path)
{
	static const char *const dirs[] = { "/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/",
					    "/lib64/", "/libx32/" };

	for (size_t i = 0; i < HP_UTIL_ARRAY_LEN(dirs); i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return 1;
	return 0;
}

static int counts(const struct check_opts *o, const struct hp_check_proc *p)
{
	if (p->gate)   /* leak_gate in the process's own configuration */
		return p->gate > 0;
	if (o->all)
		return 1;
	if (!o->nglobs)
		return !system_program(p->program);
	for (size_t i = 0; i < o->nglobs; i++)
		if (!fnmatch(o->globs[i], p->name, 0))
			return 1;
	return 0;
}

/* Counts count blocks of bytes bytes against templ in p's table. */
static void add_supp(struct hp_check_proc *p, const char *templ, uint64_t count, uint64_t bytes)
{
	size_t i = 0;

	while (i < p->nsupps && strcmp(p->supps[i].templ, templ))
		i++;
	if (i == p->nsupps) {
		hp_util_grow(&p->supps, &p->supps_cap, p->nsupps + 1, sizeof(*p->supps));
		p->supps[p->nsupps++] = (struct hp_check_supp){ 0, 0, templ };
	}
	p->supps[i].count += count;
	p->supps[i].bytes += bytes;
}

/* LeakSanitizer's "Suppressions used:" table, for the counted processes
 * together (a template's rows summed), appended to b; nothing when no
 * suppression hid anything. */
static void report_supps(struct hp_buf *b, const struct verdicts *v)
{
	static const char rule[] = "-----------------------------------------------------\n";
	struct hp_check_proc all = { 0 };

	for (size_t k = 0; k < v->n; k++)
		for (size_t i = 0; v->p[k].counted && i < v->p[k].nsupps; i++)
			add_supp(&all, v->p[k].supps[i].templ, v->p[k].supps[i].count,
				 v->p[k].supps[i].bytes);
	if (!all.nsupps)
		return;
	hp_buf_printf(b, "%sSuppressions used:\n  count      bytes template\n", rule);
	for (size_t i = 0; i < all.nsupps; i++)
		hp_buf_printf(b, "%7llu %10llu %s\n", (unsigned long long)all.supps[i].count,
			      (unsigned long long)all.supps[i].bytes, all.supps[i].templ);
	hp_buf_str(b, rule);
	free(all.supps);
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* The rule that suppresses leak l, or -1: LeakSanitizer's order
 * (lsan_common.cpp, GetSuppressionForAddr), frame by frame from the
 * innermost: the frame's module (its full path; "<unknown module>" when it
 * is in no object on disk), then the function and the source file of each
 * function at that address, the inlined ones first.  The library has
 * matched the modules and the symbol tables' names already; here come the
 * inlined functions, the demangled names of a process without
 * __cxa_demangle, and the source files, which only the symbolized frames
 * know. */
static int leak_rule(const struct hp_check_leak *l, const struct hp_supfile *sup)
{
	for (size_t f = 0; f < l->nframes; f++) {
		const struct hp_check_frame *fr = &l->frames[f];
		int rule = -1;
		if (f == 0 || !l->frames[f - 1].inlined)   /* a new address */
			rule = hp_supfile_match(sup, fr->module ? fr->module : "<unknown module>");
		if (rule < 0)
			rule = hp_supfile_match(sup, fr->function);
		if (rule < 0)
			rule = hp_supfile_match(sup, fr->file);
		if (rule >= 0)
			return rule;
	}
	return -1;
}

/* The leaks of p that a rule suppresses are taken out of its report and
 * totals and counted as suppressed, as the library counts what it
 * suppresses. */
static void suppress_by_frames(struct hp_check_proc *p, struct hp_supfile *sup)
{
	size_t kept = 0;

	for (size_t j = 0; j < p->nleaks; j++) {
		struct hp_check_leak *l = &p->leaks[j];
		int rule = leak_rule(l, sup);
		if (rule < 0) {
			p->leaks[kept++] = *l;
			continue;
		}
		add_supp(p, sup->rules[rule].templ, l->objects, l->bytes);
		p->suppressed_bytes += l->bytes;
		p->suppressed_objects += l->objects;
		if (l->direct) {
			p->direct_bytes = minus(p->direct_bytes, l->bytes);
			p->direct_objects = minus(p->direct_objects, l->objects);
		} else {
			p->indirect_bytes = minus(p->indirect_bytes, l->bytes);
			p->indirect_objects = minus(p->indirect_objects, l->objects);
		}
		free(l->frames);
	}
	p->nleaks = kept;
}

static const char *es(size_t n)
{
	return n == 1 ? "" : "es";
}

/* A byte count for people: "512 bytes", "1.5 KiB", "123.4 MiB". */
static void human(struct hp_buf *b, uint64_t v)
{
	static const char *const u[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	uint64_t scale = 1024;
	int i = 0;

	if (v < 1024) {
		hp_buf_printf(b, "%llu bytes", (unsigned long long)v);
		return;
	}
	while (i < 4 && v / scale >= 1024) {
		scale *= 1024;
		i++;
	}
	hp_buf_printf(b, "%.1f %s", (double)v / (double)scale, u[i]);
}

/* The leaking processes that do not count: a line each when few (or
 * --verbose), else one line, program names in the order they first
 * leaked with how many of each leaked, and the bytes of all of them. */
static void report_uncounted(struct hp_buf *b, const struct verdicts *v, const struct check_opts *o)
{
	size_t n = 0, nnames = 0;
	uint64_t bytes = 0;
	const char **names = NULL;
	size_t *times = NULL;

	for (size_t k = 0; k < v->n; k++)
		n += !v->p[k].counted && !v->p[k].error && hp_check_objects(&v->p[k]);
	if (!n)
		return;
	if (n < FOLD_MIN || o->verbose) {
		for (size_t k = 0; k < v->n; k++) {
			const struct hp_check_proc *p = &v->p[k];
			if (!p->counted && !p->error && hp_check_objects(p))
				hp_buf_printf(b, "heapprof check: not counted: %s (pid %ld): %llu bytes leaked\n",
					      p->name, p->pid, (unsigned long long)hp_check_bytes(p));
		}
		return;
	}
	names = hp_util_xcalloc(n, sizeof(*names));
	times = hp_util_xcalloc(n, sizeof(*times));
	for (size_t k = 0; k < v->n; k++) {
		const struct hp_check_proc *p = &v->p[k];
		size_t i = 0;
		if (p->counted || p->error || !hp_check_objects(p))
			continue;
		while (i < nnames && strcmp(names[i], p->name))
			i++;
		if (i == nnames)
			names[nnames++] = p->name;
		times[i]++;
		bytes += hp_check_bytes(p);
	}
	hp_buf_str(b, "heapprof check: not counted: ");
	for (size_t i = 0; i < nnames; i++) {
		hp_buf_printf(b, "%s%s", i ? ", " : "", names[i]);
		if (times[i] > 1)
			hp_buf_printf(b, " x%zu", times[i]);
	}
	hp_buf_str(b, ": ");
	human(b, bytes);
	hp_buf_printf(b, " leaked in %zu processes (--verbose: a line each)\n", n);
	free(names);
	free(times);
}

/* Why none of the checked processes counts, appended to b. */
static void why_none_counts(struct hp_buf *b, const struct verdicts *v, const struct check_opts *o,
			    size_t checked)
{
	size_t gated = 0, other = 0;
	const char *sep = "";

	for (size_t k = 0; k < v->n; k++) {
		if (v->p[k].missing)
			continue;
		gated += v->p[k].gate < 0;
		other += v->p[k].gate >= 0;
	}
	hp_buf_printf(b, "heapprof check: none of the %zu process%s checked counts (", checked, es(checked));
	if (other && o->nglobs) {
		hp_buf_str(b, "none matches --programs");
		sep = ", ";
	} else if (other) {
		hp_buf_printf(b, "%s under /usr/, /bin/, /sbin/ or /lib*/", other == checked ? "all" : "the others");
		sep = ", ";
	}
	if (gated)
		hp_buf_printf(b, "%s%zu left out by leak_gate", sep, gated);
	hp_buf_str(b, "; --programs, --all or leak_gate choose which count); a program heapprof cannot "
		   "enter (statically linked, set-user-ID) leaves no trace: one that ran is not named here\n");
}

/* The report on stderr; returns how many counted processes leaked, and
 * in *missing how many left no verdict, plus one when nothing that counts
 * was checked and the command is a program heapprof cannot enter.
 * status is the command's; kind and why, hp_binary_unpreloadable's for
 * the command. */
/* The processes over a budget, and those a budget applied to that have
 * no figures (failing unless --allow-missing); said in *b. */
static size_t report_budgets(struct hp_buf *b, const struct verdicts *v,
			     const struct check_opts *o)
{
	size_t over = 0, unmeasured = 0;

	if (!o->budgets.n)
		return 0;
	hp_budget_text(b, v->p, v->n);
	for (size_t k = 0; k < v->n; k++) {
		over += v->p[k].nover > 0;
		unmeasured += v->p[k].unmeasured != NULL;
	}
	if (over)
		hp_buf_printf(b, "heapprof check: %zu process%s over budget\n", over, es(over));
	if (unmeasured && o->allow_missing)
		hp_buf_printf(b, "heapprof check: %zu process%s without budget figures: not judged "
			      "(--allow-missing)\n", unmeasured, es(unmeasured));
	return over + (o->allow_missing ? 0 : unmeasured);
}

static size_t report(const struct verdicts *v, const char *command, int status,
		     const struct check_opts *o, int kind, const char *why, size_t *missing,
		     size_t *over)
{
	struct hp_buf b = { 0 };
	size_t checked = 0, counted = 0, leaking = 0, nmissing = 0;
	uint64_t bytes = 0, objects = 0;

	for (size_t k = 0; k < v->n; k++) {
		const struct hp_check_proc *p = &v->p[k];
		if (!p->counted || p->error || !hp_check_objects(p))
			continue;
		if (leaking++)
			hp_buf_char(&b, '\n');
		hp_check_text(&b, p);
		bytes += hp_check_bytes(p);
		objects += hp_check_objects(p);
	}
	if (leaking)
		hp_buf_char(&b, '\n');
	for (size_t k = 0; k < v->n; k++) {
		const struct hp_check_proc *p = &v->p[k];
		/* Those that left no verdict were not checked: said apart. */
		checked += !p->missing;
		counted += p->counted && !p->missing;
		nmissing += p->counted && p->missing;
		if (p->error)
			hp_buf_printf(&b, "heapprof check: %s: %s (pid %ld): no leak verdict: %s\n",
				      p->counted ? "not checked" : "not counted", p->name, p->pid, p->error);
	}
	report_uncounted(&b, v, o);
	report_supps(&b, v);
	/* The command could not be entered, and nothing that counts was
	 * checked: what it ran cannot be seen, so a leak cannot be ruled out. */
	int blind = kind && !counted && !nmissing && status != 126 && status != 127;
	if (blind)
		hp_buf_printf(&b, "heapprof check: not checked: %s (%s), and no process that counts was "
			      "checked (%zu process%s checked): %s\n", why,
			      kind == HP_BINARY_STATIC ? "LD_PRELOAD cannot enter it" :
			      "the dynamic loader ignores LD_PRELOAD for it", checked, es(checked),
			      o->allow_missing ? "not checked (--allow-missing)" :
			      "a leak there cannot be ruled out, so the run fails (--allow-missing passes it)");
	else if (!v->n && status != 126 && status != 127)
		hp_buf_printf(&b, "heapprof check: no process of %s left a verdict: none ran with "
			      "heapprof loaded (static and set-user-ID programs are not checked)\n", command);
	else if (!v->n)
		;   /* it could not be run: run_tree said so */
	else if (!counted && !nmissing)
		why_none_counts(&b, v, o, checked);
	else if (leaking)
		hp_buf_printf(&b, "heapprof check: %zu of %zu counted process%s leaked %llu byte(s) in %llu "
			      "allocation(s) (%zu process%s checked)\n", leaking, counted, es(counted),
			      (unsigned long long)bytes, (unsigned long long)objects, checked, es(checked));
	else if (counted)
		hp_buf_printf(&b, "heapprof check: no leaks in %zu counted process%s (%zu process%s checked)\n",
			      counted, es(counted), checked, es(checked));
	if (nmissing)
		hp_buf_printf(&b, "heapprof check: %zu counted process%s left no verdict: %s\n", nmissing,
			      es(nmissing), o->allow_missing ? "not checked (--allow-missing)" :
			      "a leak there cannot be ruled out, so the run fails (--allow-missing passes it)");
	*missing = nmissing + (size_t)blind;
	*over = report_budgets(&b, v, o);
	if (b.len)   /* b.p is NULL when nothing was said */
		fwrite(b.p, 1, b.len, stderr);
	fflush(stderr);
	hp_buf_release(&b);
	return leaking;
}

static void write_file(const char *path, const struct hp_buf *b)
{
	hp_util_write_output(strcmp(path, "-") ? path : NULL, b->p, b->len);
}

static int check(struct check_opts *o, int argc, char **argv)
{
	struct hp_strtab strs = { 0 };
	struct verdicts v = { 0 };
	char lib[PATH_MAX];

	int first = parse_opts(argc, argv, o);
	if (first <= 0)
		return first < 0 ? 2 : 0;
	if (hp_preload_find_library(lib, sizeof(lib))) {
		fprintf(stderr, "heapprof check: cannot find libheapprof.so (set HEAPPROF_LIB)\n");
		return 1;
	}
	hp_binary_warn("check", argv[first], "it will not be checked");
	char why[2 * PATH_MAX + 64];
	int kind = hp_binary_unpreloadable(argv[first], why, sizeof(why));
	struct hp_supfile sup = { 0 };
	if (o->suppressions && read_suppressions(o, &sup)) {
		hp_supfile_release(&sup);
		return 2;
	}
	char *dir = make_run_dir();
	char *conf = library_conf(dir, o);
	struct courier courier = { 0 };
	courier_start(&courier, dir);
	int status = run_tree(argv + first, conf, o->config);
	courier_stop(&courier);

	read_verdicts(dir, &v, &strs);
	struct hp_buf log = { 0 };
	read_log(dir, &log);
	hp_util_sort(v.p, v.n, sizeof(*v.p), by_pid);
	pair_registrations(&v, &strs);
	for (size_t k = 0; k < v.n; k++)
		v.p[k].counted = counts(o, &v.p[k]);
	/* From the final dumps, before the run directory goes. */
	hp_budget_judge(&o->budgets, dir, v.p, v.n, &strs);
	remove_run_dir(dir);
	/* The JSON has every process's frames; the rest only counted ones. */
	hp_check_symbolize(v.p, v.n, o->json != NULL, &strs, NULL, 0);
	/* The counted processes only: the others' frames are symbolized
	 * for --json alone, and their lines must not change with it. */
	for (size_t k = 0; k < v.n && sup.nrules; k++)
		if (v.p[k].counted)
			suppress_by_frames(&v.p[k], &sup);
	report_log(&log, &v);
	hp_buf_release(&log);
	size_t missing, over;
	size_t leaking = report(&v, argv[first], status, o, kind, why, &missing, &over);

	int fails = leaking || over || (missing && !o->allow_missing);
	int exit_status = status ? status : fails ? o->exit_code : 0;
	struct hp_check_run run = { argv + first, status, exit_status, v.p, v.n, o->allow_missing };
	if (o->json) {
		struct hp_buf b = { 0 };
		hp_check_json(&b, &run);
		write_file(o->json, &b);
		hp_buf_release(&b);
	}
	if (o->junit) {
		struct hp_buf b = { 0 };
		hp_check_junit(&b, &run);
		write_file(o->junit, &b);
		hp_buf_release(&b);
	}
	for (size_t k = 0; k < v.n; k++)
		hp_check_release(&v.p[k]);
	free(v.p);
	free(reaped);
	hp_strtab_release(&strs);
	hp_supfile_release(&sup);
	free(conf);
	free(dir);
	return exit_status;
}

int hp_cmd_check(int argc, char **argv)
{
	struct check_opts o = { 0 };

	int st = check(&o, argc, argv);
	for (size_t i = 0; i < o.nglobs; i++)
		free(o.globs[i]);
	free(o.globs);
	free(o.config);
	free(o.suppressions_abs);
	hp_budget_release(&o.budgets);
	return st;
}
