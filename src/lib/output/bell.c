/*
 * bell.c -- the process's end of the bell (see bell.h and src/bellpage.h).
 *
 * Owns the page and its file's name, <runtime dir>/bell.<pid>, and the
 * name of the leak check's verdict beside it, <runtime dir>/leaks.<pid>.  The file
 * is written whole under a temporary name (base/file.c: 0600, no symlink
 * followed), mapped MAP_SHARED through that descriptor, and renamed into
 * place; no descriptor is kept.  The runtime directory and the sweep of
 * dead processes' files are output/statefile.c's, which calls here.
 */
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/file.h"
#include "base/fmt.h"
#include "base/log.h"
#include "base/sandbox.h"
#include "base/sys.h"
#include "output/bell.h"
#include "record/counters.h"
#include "record/peak.h"
#include "record/sample.h"
#include "record/sampled.h"
#include "record/switches.h"
#include "record/trigger.h"
#include "base/banned.h"

_Static_assert(sizeof(struct hp_bell) <= HP_BELL_SIZE, "the bell fits its page");

static struct hp_bell *page;
static int removed;
static int leaks_written;   /* a leak check may have left leaks.<pid> */
static char dir[PATH_MAX];

static void path_of(char *buf, size_t cap, int pid)
{
	hp_fmt(buf, cap, "%s/bell.%d", dir, pid);
}

static struct hp_bell *make(void)
{
	char path[PATH_MAX + 32];
	struct hp_file f;

	if (!dir[0] || hp_sandbox_on())   /* no file of ours under a seccomp filter */
		return NULL;
	path_of(path, sizeof(path), (int)getpid());
	if (hp_file_create(&f, path))
		return NULL;
	/* Zeros, mapped through the temporary's descriptor, filled in, and
	 * renamed into place: a reader never sees a partial page. */
	long r = -1;
	if (ftruncate(f.fd, HP_BELL_SIZE) == 0)
		r = hp_syscall(SYS_mmap, NULL, HP_BELL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, 0);
	if (r == -1) {
		hp_file_abort(&f);
		return NULL;
	}
	struct hp_bell *b = (struct hp_bell *)r;
	b->version = HP_BELL_VERSION;
	b->pid = (uint32_t)getpid();
	HP_STORE_REL(&b->magic, HP_BELL_MAGIC);
	if (hp_file_commit(&f)) {
		hp_syscall(SYS_munmap, b, HP_BELL_SIZE);
		return NULL;
	}
	return b;
}

static void install(struct hp_bell *b)
{
	HP_STORE_REL(&page, b);
	removed = 0;
	hp_trigger_use_word(b ? &b->requests : NULL, b != NULL);
	hp_trigger_mirror_live(b ? &b->live_bytes : NULL);
	if (!b)
		hp_log(HP_LOG_DEBUG, "no bell in the runtime directory: heapprof dump reaches this process "
		       "through its control files");
}

void hp_bell_init(const char *runtime_dir)
{
	struct hp_bell *old = HP_LOAD(&page);

	hp_fmt(dir, sizeof(dir), "%s", runtime_dir);
	install(make());
	/* heapprof attach after a detach: the old page's file is gone, the
	 * helper thread that slept on it has ended and sampling was off;
	 * the trigger word has just moved to the new page. */
	if (old && old != HP_LOAD(&page))
		hp_syscall(SYS_munmap, old, HP_BELL_SIZE);
}

void hp_bell_postfork_child(void)
{
	struct hp_bell *parents = HP_LOAD(&page);

	/* trigger.c's fork handler already moved the word off the parent's
	 * page; the child must never write it again. */
	HP_STORE(&page, NULL);
	if (parents)
		hp_syscall(SYS_munmap, parents, HP_BELL_SIZE);
	install(make());
}

struct hp_bell *hp_bell_page(void)
{
	return HP_LOAD_ACQ(&page);
}

void hp_bell_set_helper(pid_t tid)
{
	struct hp_bell *b = hp_bell_page();

	if (b)
		HP_STORE_REL(&b->helper_tid, (uint32_t)tid);
}

static void put_string(char *dst, size_t cap, const char *s)
{
	size_t n = strnlen(s, cap - 1);

	for (size_t i = 0; i < n; i++)
		__atomic_store_n(&dst[i], s[i], __ATOMIC_RELAXED);
	__atomic_store_n(&dst[n], '\0', __ATOMIC_RELAXED);
}

void hp_bell_note_dump(const char *path)
{
	struct hp_bell *b = hp_bell_page();

	if (!b)
		return;
	put_string(b->last_dump, sizeof(b->last_dump), path);
	__atomic_fetch_add(&b->dumps, 1, __ATOMIC_RELEASE);
}

void hp_bell_note_failure(const char *why)
{
	struct hp_bell *b = hp_bell_page();

	if (!b)
		return;
	put_string(b->last_error, sizeof(b->last_error), why);
	__atomic_fetch_add(&b->failures, 1, __ATOMIC_RELEASE);
}

void hp_bell_note_answered(void)
{
	struct hp_bell *b = hp_bell_page();

	if (b)
		__atomic_fetch_add(&b->answered, 1, __ATOMIC_RELEASE);
}

/* Fixed-point object counts to objects, to the nearest. */
static int64_t objects(int64_t cnt_fp)
{
	return cnt_fp > 0 ? (int64_t)(((uint64_t)cnt_fp + HP_CNT_ONE / 2) >> HP_CNT_SHIFT) : 0;
}

void hp_bell_publish_stats(void)
{
	struct hp_bell *b = hp_bell_page();
	uint16_t gen = HP_LOAD(&hp_switches.gen);
	uint32_t end = hp_counters_end();
	int64_t live_cnt = 0, live_bytes = 0;
	uint64_t accum_cnt = 0, accum_bytes = 0;

	if (!b)
		return;
	hp_sampled_settle();   /* what this thread's frees put off counts first */
	for (uint32_t id = 1; id < end; id++) {
		const struct hp_counters *c = hp_counters_at(id);
		if (!c || !HP_LOAD_ACQ(&c->stack) || c->gen != gen)
			continue;
		struct hp_counts k;
		hp_counters_read(c, &k);
		live_cnt += k.live_cnt;
		live_bytes += k.live_bytes;
		accum_cnt += k.accum_cnt;
		accum_bytes += k.accum_bytes;
	}
	HP_STORE(&b->stats_live_objects, objects(live_cnt));
	HP_STORE(&b->stats_live_bytes, live_bytes > 0 ? live_bytes : 0);
	HP_STORE(&b->stats_alloc_objects, objects((int64_t)accum_cnt));
	HP_STORE(&b->stats_alloc_bytes, (int64_t)accum_bytes);
	HP_STORE(&b->stats_peak_bytes, HP_LOAD(&hp_switches.lg_sample) == 0 ? hp_peak_key() : -1);
	__atomic_fetch_add(&b->stats_seq, 1, __ATOMIC_RELEASE);
}

void hp_bell_remove(void)
{
	char path[PATH_MAX + 32];

	if (!hp_bell_page() || HP_XCHG(&removed, 1) || !dir[0])
		return;
	path_of(path, sizeof(path), (int)getpid());
	unlink(path);
	if (HP_LOAD(&leaks_written)) {
		hp_bell_leaks_path(path, sizeof(path));
		unlink(path);
	}
}

size_t hp_bell_leaks_path(char *buf, size_t cap)
{
	buf[0] = '\0';
	if (!hp_bell_page() || !dir[0])
		return 0;
	HP_STORE(&leaks_written, 1);
	return hp_fmt(buf, cap, "%s/leaks.%d", dir, (int)getpid());
}

void hp_bell_note_leaks(const char *failure)
{
	struct hp_bell *b = hp_bell_page();

	if (!b)
		return;
	if (failure) {
		put_string(b->last_error, sizeof(b->last_error), failure);
		__atomic_fetch_add(&b->leak_failures, 1, __ATOMIC_RELEASE);
	} else {
		__atomic_fetch_add(&b->leak_checks, 1, __ATOMIC_RELEASE);
	}
}
