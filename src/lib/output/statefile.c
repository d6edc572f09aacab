/*
 * statefile.c -- the per-process state file for the heapprof command (see
 * statefile.h).
 *
 * Owns the runtime directory, the dump count, the last dump's path and
 * the signals the file names (the control files in the same directory
 * are control/remote.c's).
 * Writes go through hp_file (temporary + rename, 0600, no symlinks).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf/conf.h"
#include "output/dumpname.h"
#include "base/file.h"
#include "base/fmt.h"
#include "base/out.h"
#include "base/spin.h"
#include "output/statefile.h"
#include "record/trigger.h"
#include "version.h"
#include "record/switches.h"
#include "base/banned.h"

static char dir[PATH_MAX];        /* empty: not publishing */
static char started[32];
static struct hp_spin lock;
static unsigned dumps;
static char last_dump[PATH_MAX];
static int closed;                /* removed at exit: never written again */
static int signal_dump;           /* our handler's signals, as control/ */
static int signal_toggle;         /* signals.c last set them; 0: none */
static int signal_control;

/* Our directory, or refuse: it must be ours alone. */
static int usable_dir(const char *d)
{
	struct stat st;

	if (mkdir(d, 0700) != 0 && errno != EEXIST)
		return 0;
	if (lstat(d, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022))
		return 0;
	return 1;
}

void hp_statefile_init(void)
{
	const char *env = secure_getenv("HEAPPROF_RUNTIME_DIR");
	struct timespec now;

	if (env && *env)
		hp_fmt(dir, sizeof(dir), "%s", env);
	else
		hp_fmt(dir, sizeof(dir), "/tmp/heapprof-%u", (unsigned)geteuid());
	if (!usable_dir(dir))
		dir[0] = '\0';
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
	return dir;
}

void hp_statefile_note_dump(const char *path)
{
	hp_spin_lock(&lock);
	dumps++;
	hp_fmt(last_dump, sizeof(last_dump), "%s", path);
	hp_spin_unlock(&lock);
	hp_statefile_publish();
}

void hp_statefile_publish(void)
{
	char path[PATH_MAX + 32], exe[PATH_MAX], prefix[PATH_MAX], body[3 * PATH_MAX];
	struct hp_file f;

	if (!dir[0] || HP_LOAD_ACQ(&closed))
		return;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (!hp_conf.prof_prefix[0] || !hp_dumpname_expand(hp_conf.prof_prefix, prefix, sizeof(prefix)))
		prefix[0] = '\0';
	hp_spin_lock(&lock);
	size_t len = hp_fmt(body, sizeof(body),
		"version=%s\npid=%d\nprogram=%s\nprefix=%s\nactive=%d\nlg_prof_sample=%d\n"
		"signal_dump=%d\nsignal_toggle=%d\nsignal_control=%d\ndumps=%u\nlast_dump=%s\n"
		"live_bytes=%lld\nstarted=%s\n",
		HEAPPROF_VERSION, (int)getpid(), exe, prefix, HP_LOAD(&hp_switches.active),
		HP_LOAD(&hp_switches.lg_sample), HP_LOAD(&signal_dump),
		HP_LOAD(&signal_toggle), HP_LOAD(&signal_control), dumps, last_dump,
		(long long)hp_trigger_live(), started);
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

	if (!dir[0])
		return;
	hp_fmt(path, sizeof(path), "%s/%d", dir, (int)getpid());
	hp_spin_lock(&lock);
	HP_STORE_REL(&closed, 1);
	unlink(path);
	hp_spin_unlock(&lock);
}

void hp_statefile_postfork_child(void)
{
	struct timespec now;

	hp_spin_reset(&lock);
	closed = 0;
	dumps = 0;
	last_dump[0] = '\0';
	clock_gettime(CLOCK_REALTIME, &now);
	hp_fmt_utc(started, now.tv_sec, 0, 1);
}
