/*
 * forker.c -- fork and exec under the profiler.  The parent leaks 1000
 * bytes from parent_alloc before forking and 2000 after; the child leaks
 * 4000 from child_alloc and exits; with argv[1] = "exec" the child execs
 * argv[2] instead.  The child inherits the parent's counts (as jemalloc's
 * does), so its dump holds parent_alloc's 1000 bytes too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile sink;

__attribute__((noinline)) static void parent_alloc(size_t n) { sink = malloc(n); }
__attribute__((noinline)) static void child_alloc(size_t n) { sink = malloc(n); }

int main(int argc, char **argv)
{
	parent_alloc(1000);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (argc > 2 && !strcmp(argv[1], "exec")) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
		child_alloc(4000);
		printf("child %d\n", (int)getpid());
		return 0;
	}
	int st;
	waitpid(pid, &st, 0);
	parent_alloc(2000);
	printf("parent %d, child exit %d\n", (int)getpid(), WEXITSTATUS(st));
	return 0;
}
