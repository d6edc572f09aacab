/*
 * statefile.c -- the per-process state file for the heapprof command (see
 * statefile.h).
 *
 * Owns the runtime directory, the dump count, the last dump's path and
 * the signals the file names (the control files in the same directory
 * are control/remote.c's).
 * Writes go through hp_file (temporary + rename, 0600, no symlinks).
 * At start-up it also removes what dead processes left in the directory
 * (a process killed, or one that died mid-update, runs no exit handler).
 *
 * Under a seccomp filter (base/sandbox.h) the file is neither written nor
 * removed, and the directory is "" to control/remote.c: the file stays
 * as it was when the filter went in, and after the process has gone the
 * next heapprof process of the user sweeps it (heapprof ps, meanwhile,
 * checks that its pid and start time are alive).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf/conf.h"
#include "output/bell.h"
#include "output/dumpname.h"
#include "base/file.h"
#include "base/fmt.h"
#include "base/log.h"
#include "base/out.h"
#include "base/sandbox.h"
#include "base/spin.h"
#include "output/statefile.h"
#include "record/trigger.h"
#include "version.h"
#include "record/switches.h"
#include "base/banned.h"

static char dir[PATH_MAX];        /* empty: not publishing */
static char started[32];
static unsigned long long starttime;   /* /proc/self/stat's, 0: unknown */
static struct hp_spin lock;
static unsigned dumps;
static char last_dump[PATH_MAX];
static int closed;                /* removed at exit: never written again */
static int signal_dump;           /* our handler's signals, as control/ */
static int signal_toggle;         /* signals.c last set them; 0: none */
static int signal_control;

/* Our directory, or refuse it, in one line: it must be ours alone. */
static int usable_dir(const char *d)
{
	struct stat st;

	if (mkdir(d, 0700) != 0 && errno != EEXIST) {
		hp_log(HP_LOG_WARN, "runtime directory %s: %s; heapprof ps finds this process by its "
		       "memory map only", d, strerrordesc_np(errno));
		return 0;
	}
	if (lstat(d, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		char why[128];
		if (lstat(d, &st) != 0)
			hp_fmt(why, sizeof(why), "%s", strerrordesc_np(errno));
		else if (!S_ISDIR(st.st_mode))
			hp_fmt(why, sizeof(why), "is %s, not a directory", hp_file_kind(st.st_mode));
		else if (st.st_uid != geteuid())
			hp_fmt(why, sizeof(why), "is owned by uid %u, not by this process's uid %u",
			       (unsigned)st.st_uid, (unsigned)geteuid());
		else {   /* fmt has no %o */
			char mode[5] = { 0 }, *m = mode;
			if (st.st_mode & 07000)
				*m++ = (char)('0' + ((st.st_mode >> 9) & 7));
			for (int shift = 6; shift >= 0; shift -= 3)
				*m++ = (char)('0' + ((st.st_mode >> shift) & 7));
			hp_fmt(why, sizeof(why), "can be written by others (mode %s)", mode);
		}
		hp_log(HP_LOG_WARN, "runtime directory %s %s: not used; heapprof ps finds this process "
		       "by its memory map only", d, why);
		return 0;
	}
	return 1;
}

/* Field 22 of /proc/<pid>/stat: when the process started, in clock ticks
 * since boot.  With the pid, it names one process for good (a reused pid
 * has a later start).  0: unknown (no /proc). */
static unsigned long long start_of(int pid)
{
	char path[64], buf[1024];
	size_t len = 0;

	hp_fmt(path, sizeof(path), "/proc/%d/stat", pid);
	int err = hp_file_read_all(path, buf, sizeof(buf) - 1, &len);
	if (err && err != EFBIG)
		return 0;
	buf[len] = '\0';
	/* After the command name, which may hold anything: its last ')'. */
	const char *p = NULL;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == ')')
			p = buf + i;
	if (!p)
		return 0;
	for (int field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	unsigned long long v = 0;
	for (; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (unsigned)(*p - '0');
	return v;
}

/* The pid a name in the directory belongs to: "<pid>", a temporary of
 * hp_file's, ".<pid>.<writer pid>.<n>.tmp" (".bell.<pid>..." for a
 * bell's), a control file the heapprof
 * command left, "ctl.<pid>.<request>", a bell (output/bell.c),
 * "bell.<pid>", or a leak check's verdict, "leaks.<pid>" (".leaks.<pid>..."
 * its temporary).  0: none of these. */
static int owner_of(const char *name, int *is_tmp)
{
	int pid = 0, k = 0, ctl = !strncmp(name, "ctl.", 4), bell = !strncmp(name, "bell.", 5);
	int leaks = !strncmp(name, "leaks.", 6);
	const char *p = ctl ? name + 4 : bell ? name + 5 : leaks ? name + 6 : name;

	bell |= leaks;   /* a leak check's verdict, "leaks.<pid>": as a bell */
	*is_tmp = !ctl && !bell && *p == '.';
	if (*is_tmp && !strncmp(p, ".bell.", 6))
		p += 5;   /* a bell's temporary: ".bell.<pid>.<writer pid>.<n>.tmp" */
	else if (*is_tmp && !strncmp(p, ".leaks.", 7))
		p += 6;   /* the verdict's: ".leaks.<pid>.<writer pid>.<n>.tmp" */
	if (*is_tmp)
		p++;
	for (; *p >= '0' && *p <= '9' && k < 9; p++, k++)
		pid = pid * 10 + (*p - '0');
	if (!k)
		return 0;
	if (ctl)
		return *p == '.' ? pid : 0;
	if (bell)
		return *p ? 0 : pid;
	if ((!*is_tmp && *p) || (*is_tmp && (*p != '.' || !strstr(p, ".tmp"))))
		return 0;
	return pid;
}

/* Is this a dead process's file?  Its pid is gone (a control file of a
 * live process is a request still to be taken); or, for a temporary,
 * it has not been touched for a minute (writers hold one for
 * microseconds).  One kill(2) per file: every profiled program pays for
 * this at start-up.  A pid reused by a later process is told by the start
 * time in the file, which heapprof ps checks. */
static int stale(int dfd, const char *name, int pid, int is_tmp)
{
	struct stat st;
	struct timespec now;

	if (kill(pid, 0) != 0 && errno == ESRCH)
		return 1;
	if (!is_tmp || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	clock_gettime(CLOCK_REALTIME, &now);
	return st.st_mtim.tv_sec + 60 < now.tv_sec;
}

/* Removes the files of dead processes from the directory; a bounded
 * number of entries per start-up. */
static void sweep(void)
{
	char buf[4096];
	unsigned looked = 0;
	int self = (int)getpid();
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dfd < 0)
		return;
	for (;;) {
		ssize_t got = getdents64(dfd, buf, sizeof(buf));
		if (got <= 0)
			break;
		for (ssize_t off = 0; off < got;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			int is_tmp, pid = owner_of(d->d_name, &is_tmp);
			off += d->d_reclen;
			if (pid <= 0 || pid == self)
				continue;
			if (++looked > 4096)
				goto out;
			if (stale(dfd, d->d_name, pid, is_tmp))
				unlinkat(dfd, d->d_name, 0);
		}
	}
out:
	close(dfd);
}

void hp_statefile_init(void)
{
	const char *env = secure_getenv("HEAPPROF_RUNTIME_DIR");
	struct timespec now;

	HP_STORE_REL(&closed, 0);   /* heapprof attach again, after a detach */
	if (hp_sandbox_on())
		return;   /* started under a filter: no state file at all */
	if (env && *env)
		hp_fmt(dir, sizeof(dir), "%s", env);
	else
		hp_fmt(dir, sizeof(dir), "/tmp/heapprof-%u", (unsigned)geteuid());
	if (!usable_dir(dir))
		dir[0] = '\0';
	starttime = start_of((int)getpid());
	if (dir[0])
		sweep();
	hp_bell_init(dir);
	clock_gettime(CLOCK_REALTIME, &now);
	hp_fmt_utc(started, now.tv_sec, 0, 1);
	hp_statefile_publish();
}

void hp_statefile_set_signals(int dump, int toggle, int control)
{
	HP_STORE(&signal_dump, dump);
	HP_STORE(&signal_toggle, toggle);
	HP_STORE(&signal_control, control);
}

const char *hp_statefile_dir(void)
{
	return hp_sandbox_on() ? "" : dir;
}

void hp_statefile_note_dump(const char *path)
{
	hp_spin_lock(&lock);
	dumps++;
	hp_fmt(last_dump, sizeof(last_dump), "%s", path);
	hp_spin_unlock(&lock);
	hp_bell_note_dump(path);
	hp_statefile_publish();
}

/* A value on one line: the file is read line by line, so a program path
 * or prefix holding a newline must not add a key of its own. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

void hp_statefile_publish(void)
{
	char path[PATH_MAX + 32], exe[PATH_MAX], prefix[PATH_MAX], body[3 * PATH_MAX];
	struct hp_file f;

	if (!hp_statefile_dir()[0] || HP_LOAD_ACQ(&closed))
		return;
	/* The thread's own link: main's reads nothing once it has exited. */
	ssize_t n = readlink("/proc/thread-self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (!hp_conf.prof_prefix[0] || !hp_dumpname_expand(hp_conf.prof_prefix, prefix, sizeof(prefix)))
		prefix[0] = '\0';
	one_line(exe);
	one_line(prefix);
	hp_spin_lock(&lock);
	one_line(last_dump);
	size_t len = hp_fmt(body, sizeof(body),
		"version=%s\npid=%d\nstarttime=%llu\nprogram=%s\nprefix=%s\nactive=%d\nlg_prof_sample=%d\n"
		"signal_dump=%d\nsignal_toggle=%d\nsignal_control=%d\ndumps=%u\nlast_dump=%s\n"
		"live_bytes=%lld\nstarted=%s\nattached=%d\n",
		HEAPPROF_VERSION, (int)getpid(), starttime, exe, prefix, HP_LOAD(&hp_switches.active),
		HP_LOAD(&hp_switches.lg_sample), HP_LOAD(&signal_dump),
		HP_LOAD(&signal_toggle), HP_LOAD(&signal_control), dumps, last_dump,
		(long long)hp_trigger_live(), started, HP_LOAD(&hp_switches.attached) == HP_ATTACH_ON);
	hp_spin_unlock(&lock);
	hp_fmt(path, sizeof(path), "%s/%d", dir, (int)getpid());
	/* Under the lock, so that a publish racing with the removal at exit
	 * cannot put the file back. */
	hp_spin_lock(&lock);
	if (!closed && !hp_file_create(&f, path)) {
		if (hp_out_write_all(f.fd, body, len))
			hp_file_abort(&f);
		else
			hp_file_commit(&f);
	}
	hp_spin_unlock(&lock);
}

void hp_statefile_remove(void)
{
	char path[PATH_MAX + 32];

	if (!hp_statefile_dir()[0])
		return;
	hp_fmt(path, sizeof(path), "%s/%d", dir, (int)getpid());
	hp_spin_lock(&lock);
	HP_STORE_REL(&closed, 1);
	unlink(path);
	hp_spin_unlock(&lock);
	hp_bell_remove();
}

void hp_statefile_postfork_child(void)
{
	struct timespec now;

	hp_spin_reset(&lock);
	closed = 0;
	dumps = 0;
	last_dump[0] = '\0';
	if (hp_sandbox_on())
		return;   /* never published: nothing to know */
	starttime = start_of((int)getpid());
	clock_gettime(CLOCK_REALTIME, &now);
	hp_fmt_utc(started, now.tv_sec, 0, 1);
	hp_bell_postfork_child();
}
