/*
 * libexitheap.c -- preloaded after libheapprof.so, an observer of glibc's
 * heap across the end of exit (t/0705-host-safe.t).  It takes the
 * program's call of exit(3) and keeps glibc's figures (mallinfo2) then;
 * its constructor runs before heapprof's, so its exit handler (on_exit)
 * runs after heapprof's, the last of all, where it compares the figures
 * with those it kept and prints "heap at exit: as the program left it",
 * or what changed.  A program that returns from main calls exit inside
 * the C library, unseen: it prints nothing then.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

static struct mallinfo2 at_exit_call;
static int marked;

void exit(int status)
{
	void (*next)(int) = (void (*)(int))dlsym(RTLD_NEXT, "exit");

	at_exit_call = mallinfo2();
	marked = 1;
	next(status);
	__builtin_unreachable();
}

static void compare(int status, void *arg)
{
	const struct mallinfo2 *was = &at_exit_call;
	struct mallinfo2 now = mallinfo2();

	(void)status;
	(void)arg;
	if (!marked)
		return;
	if (now.smblks == was->smblks && now.uordblks == was->uordblks && now.ordblks == was->ordblks &&
	    now.arena == was->arena)
		printf("heap at exit: as the program left it\n");
	else
		printf("heap at exit: fast-bin blocks %zu -> %zu, in use %zu -> %zu bytes, "
		       "free chunks %zu -> %zu, arena %zu -> %zu bytes\n",
		       was->smblks, now.smblks, was->uordblks, now.uordblks, was->ordblks, now.ordblks,
		       was->arena, now.arena);
}

/* on_exit, not atexit: a shared object's atexit handler runs when the
 * object is finalized, among the destructors, before heapprof's. */
__attribute__((constructor)) static void init(void)
{
	on_exit(compare, NULL);
}
