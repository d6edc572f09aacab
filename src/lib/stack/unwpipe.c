/*
 * unwpipe.c -- libunwind's validation pipe (see unwpipe.h).
 *
 * Owns the count of threads walking with libunwind, the pipes libunwind
 * opened during those walks, and the numbers it holds.  Runs inside the
 * guard on the sampled slow path (only when the fast unwinder gives a
 * stack up, or with prof_unwinder:libunwind or check), at init and in a
 * fork child.  One spinlock orders the three moments (a walker's check,
 * libunwind's new pipe, the last walker's close), so that a check never
 * sees a pipe of ours half made or half closed and takes it for the
 * program's.  It is held across a few fcntl/close calls, never while
 * libunwind walks: a walk is never held up by another.
 *
 * libunwind 1.6 keeps one pipe for the process; later versions keep one
 * per thread.  Both are handled: the numbers are remembered process-wide
 * and per thread, and every pipe opened during a walk is recorded.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "base/log.h"
#include "base/spin.h"
#include "stack/unwpipe.h"
#include "base/banned.h"

#define TOP_MAX 1024   /* the pipe goes just below min(soft limit, this) */
#define SLOTS   16

uintptr_t hp_unwpipe_lo, hp_unwpipe_hi;
__thread int hp_unwpipe_walking;

static struct hp_spin lock;
static int walkers;
/* Open pipes, read end << 32 | write end; EMPTY when free. */
#define EMPTY UINT64_MAX
static uint64_t slots[SLOTS] = { [0 ... SLOTS - 1] = EMPTY };
/* The numbers libunwind holds: its one pipe's (1.6), and this thread's
 * (later versions).  -1: none known. */
static int last[2] = { -1, -1 };
static __thread int mine[2] = { -1, -1 };
static uint64_t refused;
static int told;
/* Set by hp_unwpipe_shut: no walk may start (heapprof detaching). */
static int shut;
/* Set while a thread forks: a walk waits to start (libunwind's walk holds
 * the loader's lock at moments, which a fork child would inherit held). */
static int forking;

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if ((const void *)info->dlpi_addr != arg)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (!hp_unwpipe_lo || lo < hp_unwpipe_lo)
			hp_unwpipe_lo = lo;
		if (hi > hp_unwpipe_hi)
			hp_unwpipe_hi = hi;
	}
	return 1;
}

void hp_unwpipe_init(void)
{
	Dl_info info;

	if (dladdr((void *)unw_backtrace, &info) && info.dli_fbase)
		dl_iterate_phdr(find_text, info.dli_fbase);
}

/* Whether fd is open and is not a pipe of ours: the program's, then. */
static int programs(int fd)
{
	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return 0;   /* closed: libunwind will open a new pipe */
	for (int i = 0; i < SLOTS; i++) {
		uint64_t v = HP_LOAD_ACQ(&slots[i]);
		if (v != EMPTY && ((int)(v >> 32) == fd || (int)(uint32_t)v == fd))
			return 0;
	}
	return 1;
}

/* Takes the lock once no other thread forks (a second at most): a
 * walker counted under it is one hp_unwpipe_prefork waits for. */
static void lock_between_forks(void)
{
	struct timespec ms = { 0, 1000000 };

	hp_spin_lock(&lock);
	for (int i = 0; i < 1000 && HP_UNLIKELY(HP_LOAD(&forking)); i++) {
		hp_spin_unlock(&lock);
		nanosleep(&ms, NULL);
		hp_spin_lock(&lock);
	}
}

int hp_unwpipe_enter(void)
{
	int saved = errno;

	lock_between_forks();
	walkers++;
	hp_unwpipe_walking = 1;
	if (shut) {
		hp_spin_unlock(&lock);
		errno = saved;
		return 0;
	}
	int a = last[0], b = last[1];
	int theirs = programs(a) || programs(b) ||
		     (mine[0] != a && (programs(mine[0]) || programs(mine[1])));
	hp_spin_unlock(&lock);
	errno = saved;
	if (!theirs)
		return 1;
	HP_ADD(&refused, 1);
	if (!HP_XCHG(&told, 1))
		hp_log(HP_LOG_WARN, "the program has taken descriptor %d or %d, where libunwind checks "
		       "addresses: stacks the fast unwinder cannot walk are recorded as heapprof_unwind_failed",
		       a >= 0 ? a : mine[0], b >= 0 ? b : mine[1]);
	return 0;
}

/* Closes a recorded pipe if both numbers still name one pipe (the program
 * may have closed them and opened others there since). */
static void close_pair(uint64_t v)
{
	int r = (int)(v >> 32), w = (int)(uint32_t)v;
	struct stat sr, sw;

	if (fstat(r, &sr) != 0 || fstat(w, &sw) != 0 || !S_ISFIFO(sr.st_mode) ||
	    sr.st_ino != sw.st_ino || sr.st_dev != sw.st_dev)
		return;
	close(r);
	close(w);
}

void hp_unwpipe_leave(void)
{
	int saved = errno;

	hp_unwpipe_walking = 0;
	hp_spin_lock(&lock);
	if (--walkers == 0) {
		/* The last one out: the next walk finds the pipe closed and
		 * libunwind opens another. */
		for (int i = 0; i < SLOTS; i++)
			if (slots[i] != EMPTY) {
				close_pair(slots[i]);
				HP_STORE(&slots[i], EMPTY);
			}
	}
	hp_spin_unlock(&lock);
	errno = saved;
}

/* Sets *flag (shut or forking) and waits until no walk is under way.  A
 * walk lasts microseconds; the wait is bounded all the same (a thread
 * stopped by a debugger mid-walk must not hang a detach or a fork): true
 * when the walks ended. */
static bool raise_and_drain(int *flag)
{
	struct timespec ms = { 0, 1000000 };

	hp_spin_lock(&lock);
	HP_STORE(flag, 1);
	hp_spin_unlock(&lock);
	for (int i = 0; i < 1000; i++) {
		hp_spin_lock(&lock);
		int w = walkers;
		hp_spin_unlock(&lock);
		if (w == 0)
			return true;
		nanosleep(&ms, NULL);
	}
	return false;
}

bool hp_unwpipe_shut(void)
{
	return raise_and_drain(&shut);
}

void hp_unwpipe_open(void)
{
	hp_spin_lock(&lock);
	HP_STORE(&shut, 0);
	hp_spin_unlock(&lock);
}

static int top(void)
{
	struct rlimit rl;
	rlim_t lim = TOP_MAX;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < lim)
		lim = rl.rlim_cur;
	return lim > 5 ? (int)lim - 2 : 3;
}

void hp_unwpipe_adopt(int fds[2])
{
	int saved = errno;
	int base = top();

	hp_spin_lock(&lock);
	for (int i = 0; i < 2; i++)
		if (fds[i] < base) {
			int moved = fcntl(fds[i], F_DUPFD_CLOEXEC, base);
			if (moved >= 0) {
				close(fds[i]);
				fds[i] = moved;
			}
		}
	HP_STORE(&last[0], fds[0]);
	HP_STORE(&last[1], fds[1]);
	mine[0] = fds[0];
	mine[1] = fds[1];
	uint64_t v = (uint64_t)(uint32_t)fds[0] << 32 | (uint32_t)fds[1];
	for (int i = 0; i < SLOTS; i++)
		if (slots[i] == EMPTY) {
			HP_STORE(&slots[i], v);
			break;
		}
	/* No slot free (a libunwind with a pipe per thread, and more threads
	 * walking at once than slots): this pipe stays libunwind's. */
	hp_spin_unlock(&lock);
	errno = saved;
}

void hp_unwpipe_prefork(void)
{
	(void)raise_and_drain(&forking);
}

void hp_unwpipe_postfork_parent(void)
{
	hp_spin_lock(&lock);
	HP_STORE(&forking, 0);
	hp_spin_unlock(&lock);
}

void hp_unwpipe_postfork_child(void)
{
	/* Only the forking thread is here, and it was not walking. */
	HP_STORE(&forking, 0);
	hp_spin_reset(&lock);
	walkers = 1;
	hp_unwpipe_leave();
}

uint64_t hp_unwpipe_refused(void)
{
	return HP_LOAD(&refused);
}
