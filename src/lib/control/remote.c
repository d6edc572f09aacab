/*
 * remote.c -- the control files: requests from the heapprof command (see
 * remote.h).
 *
 * Owns the control files' names.  Runs on the helper thread, and at init
 * and in fork children to forget what an earlier process of the same ID
 * was asked.  Never follows a symlink: it only stats and removes names.
 */
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fmt.h"
#include "output/statefile.h"
#include "control/remote.h"
#include "control/settings.h"
#include "record/trigger.h"
#include "base/banned.h"

static const char *const names[] = { "dump", "pause", "resume" };

static void path_of(char *buf, size_t cap, const char *what)
{
	hp_fmt(buf, cap, "%s/ctl.%d.%s", hp_statefile_dir(), (int)getpid(), what);
}

void hp_remote_forget(void)
{
	char path[PATH_MAX + 64];

	if (!hp_statefile_dir()[0])
		return;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		path_of(path, sizeof(path), names[i]);
		unlink(path);
	}
}

/* Takes one request: whether it was there, and when it was made. */
static int take(const char *what, struct timespec *when)
{
	char path[PATH_MAX + 64];
	struct stat st;

	path_of(path, sizeof(path), what);
	if (when && lstat(path, &st) != 0)
		return 0;
	if (unlink(path) != 0)
		return 0;
	if (when)
		*when = st.st_mtim;
	return 1;
}

static int newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec ? a->tv_sec > b->tv_sec : a->tv_nsec > b->tv_nsec;
}

unsigned hp_remote_take(void)
{
	struct timespec p, r;
	unsigned req = 0;

	if (!hp_statefile_dir()[0])
		return 0;
	if (take("dump", NULL))
		req |= HP_REQ_SIGNAL_DUMP;
	int paused = take("pause", &p), resumed = take("resume", &r);
	if (paused && resumed) {
		paused = !newer(&r, &p);
		resumed = !paused;
	}
	if (paused)
		hp_settings_set_active(0, "heapprof pause");
	if (resumed)
		hp_settings_set_active(1, "heapprof resume");
	if (paused || resumed)
		req |= HP_REQ_STATE;
	return req;
}
