/*
 * threads.c -- the registry of sampling threads (see threads.h).
 *
 * Owns the registry list, the uid counter, the thread-exit key and the
 * free list of capture buffers.  Runs inside the guard on the sampled slow
 * path, in the exit hook and in dump writers; never calls the host
 * allocator (records come from an arena, buffers from mmap).  Under a
 * seccomp filter (base/sandbox.h) a thread seen for the first time costs
 * no system call: no tid, no name, and stack bounds taken from where
 * glibc puts things.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fmt.h"
#include "base/pages.h"
#include "base/sandbox.h"
#include "record/threads.h"
#include "record/tls.h"
#include "record/switches.h"
#include "record/peak.h"
#include "base/sys.h"
#include "base/banned.h"

#define FRAMES_BYTES ((HP_BT_LIMIT + HP_BT_SLACK) * sizeof(uintptr_t))
/* The capture buffer and the unwinder's walk memos, in one mapping
 * (what more memos a thread gets later is mapped then, and stays with
 * the buffer when another thread reuses it). */
#define BUFFERS_BYTES (FRAMES_BYTES + sizeof(struct hp_unwind_memos))

static struct hp_thread *head;
static uint32_t uids;
static struct hp_pages_arena arena;
static pthread_key_t exit_key;
static int exit_key_ok;

/* Released capture buffers, chained through their first word. */
static struct hp_spin spare_lock;
static uintptr_t *spare_frames;

static uintptr_t *take_frames(void)
{
	uintptr_t *f;

	hp_spin_lock(&spare_lock);
	f = spare_frames;
	if (f)
		spare_frames = (uintptr_t *)f[0];
	hp_spin_unlock(&spare_lock);
	return f ? f : hp_pages_alloc(BUFFERS_BYTES);
}

static struct hp_unwind_memos *memos_of(uintptr_t *frames)
{
	return (struct hp_unwind_memos *)((char *)frames + FRAMES_BYTES);
}

static void give_frames(uintptr_t *f)
{
	if (!f)
		return;
	hp_spin_lock(&spare_lock);
	f[0] = (uintptr_t)spare_frames;
	spare_frames = f;
	hp_spin_unlock(&spare_lock);
}

/* ---- pthread_getattr_np ---------------------------------------------- */

typedef int getattr_fn(pthread_t, pthread_attr_t *);
static getattr_fn *next_getattr;

/* The definition after ours: the C library's.  dlsym may allocate; the
 * caller has marked the thread as inside pthread_getattr_np already, so
 * a first sample there does not come back here. */
static getattr_fn *resolve_getattr(void)
{
	getattr_fn *f = HP_LOAD_ACQ(&next_getattr);

	if (!f) {
		f = (getattr_fn *)dlsym(RTLD_NEXT, "pthread_getattr_np");
		if (f)
			HP_STORE_REL(&next_getattr, f);
	}
	return f;
}

int hp_threads_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
	struct hp_tls *tls = &hp_tls;
	int r = ENOSYS;

	tls->in_getattr++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	getattr_fn *f = resolve_getattr();
	if (f)
		r = f(thread, attr);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tls->in_getattr--;
	return r;
}

/* ---- pthread_create ------------------------------------------------- */

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static create_fn *next_create;
static void (*created_hook)(void);

int hp_threads_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
	create_fn *f = HP_LOAD_ACQ(&next_create);

	if (!f) {
		f = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
		if (!f)
			return EAGAIN;
		HP_STORE_REL(&next_create, f);
	}
	int r = f(thread, attr, start, arg);
	void (*hook)(void) = HP_LOAD_ACQ(&created_hook);
	if (r == 0 && hook)
		hook();
	return r;
}

void hp_threads_on_create(void (*hook)(void))
{
	HP_STORE_REL(&created_hook, hook);
}

/* A thread's stack under a seccomp filter (base/sandbox.h), where
 * pthread_getattr_np's calls (the main thread's /proc/self/maps, every
 * thread's CPU affinity) may be refused.  glibc puts a thread's
 * descriptor, the thread pointer, just above its stack, and the main
 * thread's stack ends at __libc_stack_end: from this frame up to there,
 * the stack is readable.  The walks start above this frame's callers, so
 * the bottom is left at 0.  Neither (a thread on a stack of its own):
 * bounds unknown, and the stack is its caller's frame alone
 * (stack/stack.h). */
#define SANDBOX_STACK_MAX ((uintptr_t)1 << 30)
extern void *__libc_stack_end;

static void sandboxed_stack_bounds(struct hp_thread *t)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	uintptr_t self = (uintptr_t)pthread_self(), end = (uintptr_t)__libc_stack_end;

	if (here < self && self - here < SANDBOX_STACK_MAX)
		t->stack_hi = self;
	else if (here < end && end - here < SANDBOX_STACK_MAX)
		t->stack_hi = end;
}

/* For the fast unwinder: every stack read must fall inside these.  Not
 * while the thread is inside pthread_getattr_np: glibc holds the thread's
 * descriptor lock there while it allocates, and asking again would wait
 * on that lock for ever (every HotSpot thread and Rust std::thread asks
 * for its stack before it allocates).  Then the bounds are looked up at
 * the thread's next sample outside it, and libunwind walks until then. */
static void stack_bounds(struct hp_thread *t)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (HP_UNLIKELY(hp_sandbox_on())) {
		t->bounds_later = 0;
		sandboxed_stack_bounds(t);
		return;
	}
	if (hp_tls.in_getattr) {
		t->bounds_later = 1;
		return;
	}
	t->bounds_later = 0;
	if (hp_threads_getattr_np(pthread_self(), &attr) != 0)
		return;
	if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
		t->stack_lo = (uintptr_t)addr;
		t->stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

static void read_comm(struct hp_thread *t)
{
	char path[64], buf[HP_NAME_MAX + 1];

	hp_fmt(path, sizeof(path), "/proc/self/task/%d/comm", (int)t->tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, HP_NAME_MAX);
	close(fd);
	if (n <= 0)
		return;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
		n--;
	buf[n] = '\0';
	memcpy(t->name, buf, (size_t)n + 1);
}

static void on_thread_exit(void *arg)
{
	struct hp_thread *t = arg;
	struct hp_tls *tls = &hp_tls;

	hp_tls_guard_enter(tls);
	if (!t->name_set && !hp_sandbox_on())
		hp_syscall(SYS_prctl, PR_GET_NAME, t->name);
	HP_STORE(&t->exited, 1);
	hp_peak_thread_exit();
	give_frames(t->frames);
	t->frames = NULL;
	hp_tls_leave_lane(tls);
	t->memos = NULL;
	if (t->map_keys) {
		size_t cap = (size_t)t->map_mask + 1;
		hp_pages_free(t->map_keys, cap * sizeof(*t->map_keys));
		hp_pages_free(t->map_vals, cap * sizeof(*t->map_vals));
		t->map_keys = NULL;
		t->map_vals = NULL;
		t->map_mask = 0;
		t->map_count = 0;
	}
	hp_tls_guard_leave(tls);
}

struct hp_thread *hp_threads_self(void)
{
	struct hp_tls *tls = &hp_tls;
	struct hp_thread *t = tls->thread;

	if (HP_LIKELY(t && t->frames)) {
		if (HP_UNLIKELY(t->bounds_later))
			stack_bounds(t);
		return t;
	}
	if (!t) {
		t = hp_pages_arena_alloc(&arena, sizeof(*t), HP_CACHELINE);
		if (!t)
			return NULL;
		t->uid = HP_ADD(&uids, 1);
		stack_bounds(t);
		if (!hp_sandbox_on()) {   /* sandboxed: tid 0, no name */
			t->tid = gettid();
			hp_syscall(SYS_prctl, PR_GET_NAME, t->name);
		}
		t->active = HP_LOAD(&hp_switches.thread_active_init);
		struct hp_thread *old = HP_LOAD(&head);
		do {
			t->next = old;
		} while (!HP_CAS(&head, &old, t));
		tls->thread = t;
	}
	/* New, or sampling again after the exit hook released its buffer. */
	t->frames = take_frames();
	if (!t->frames)
		return NULL;
	t->memos = memos_of(t->frames);
	hp_unwind_memos_reset(t->memos);   /* a spare's memos are another thread's stack */
	if (exit_key_ok)
		pthread_setspecific(exit_key, t);
	return t;
}

/* ---- heapprof's own threads ----------------------------------------- */

#define OWN_MAX 4
static struct hp_threads_own own[OWN_MAX];
static unsigned nown;

void hp_threads_own_add(void)
{
	unsigned i, n = HP_LOAD_ACQ(&nown);

	/* A slot a helper thread left (heapprof detach), else a new one. */
	for (i = 0; i < n && i < OWN_MAX; i++)
		if (!HP_LOAD(&own[i].tid))
			break;
	if (i == n || i >= OWN_MAX)
		i = HP_ADD(&nown, 1);
	if (i >= OWN_MAX)
		return;
	/* Not pthread_getattr_np: it allocates (the affinity mask), and the
	 * helper's first allocation would give it an arena of its own (64 MiB
	 * of address space).  glibc puts a thread's descriptor, the thread
	 * pointer, just above the stack it allocated: this frame and that
	 * pointer lie in the one mapping the leak scan must skip. */
	uintptr_t here = (uintptr_t)__builtin_frame_address(0), self = (uintptr_t)pthread_self();
	if (here < self && self - here < ((uintptr_t)1 << 30)) {
		own[i].stack_lo = here;
		own[i].stack_hi = self;
	}
	HP_STORE_REL(&own[i].tid, gettid());
}

void hp_threads_own_remove(void)
{
	pid_t self = gettid();

	for (unsigned i = 0; i < OWN_MAX && i < HP_LOAD_ACQ(&nown); i++)
		if (HP_LOAD(&own[i].tid) == self) {
			own[i].stack_lo = own[i].stack_hi = 0;
			HP_STORE_REL(&own[i].tid, 0);
		}
}

unsigned hp_threads_own(const struct hp_threads_own **out)
{
	unsigned n = HP_LOAD_ACQ(&nown);

	*out = own;
	return n < OWN_MAX ? n : OWN_MAX;
}

struct hp_thread *hp_threads_list(void)
{
	return HP_LOAD_ACQ(&head);
}

uint32_t hp_threads_count(void)
{
	return HP_LOAD(&uids);
}

void hp_threads_refresh_names(void)
{
	if (hp_sandbox_on())
		return;   /* /proc/self/task/N/comm: an open each */
	for (struct hp_thread *t = hp_threads_list(); t; t = t->next)
		if (!HP_LOAD(&t->exited) && !t->name_set)
			read_comm(t);
}

void hp_threads_set_name(struct hp_thread *t, const char *name)
{
	size_t n = strnlen(name, HP_NAME_MAX - 1);

	memcpy(t->name, name, n);
	t->name[n] = '\0';
	t->name_set = 1;
}

void hp_threads_init(void)
{
	struct hp_tls *tls = &hp_tls;

	tls->in_getattr++;
	resolve_getattr();
	tls->in_getattr--;
	exit_key_ok = pthread_key_create(&exit_key, on_thread_exit) == 0;
}

void hp_threads_prefork(void)
{
	hp_spin_lock(&arena.lock);
	hp_spin_lock(&spare_lock);
}

void hp_threads_postfork_parent(void)
{
	hp_spin_unlock(&spare_lock);
	hp_spin_unlock(&arena.lock);
}

void hp_threads_postfork_child(void)
{
	/* The parent's helper thread does not exist here; the child's
	 * registers itself when it starts. */
	memset(own, 0, sizeof(own));
	nown = 0;
	struct hp_tls *tls = &hp_tls;

	hp_spin_reset(&spare_lock);
	hp_spin_reset(&arena.lock);
	for (struct hp_thread *t = hp_threads_list(); t; t = t->next)
		if (t != tls->thread)
			HP_STORE(&t->exited, 1);
	if (tls->thread && !hp_sandbox_on())
		tls->thread->tid = gettid();   /* same stack: its bounds hold */
}
