/*
 * fdtwo.c -- a program started with standard error closed that puts a
 * file of its own at fd 2: opens argv[1] (O_TRUNC), moves it to fd 2 if
 * the open did not land there already, writes "data\n" to it, leaks 3 x
 * 100 bytes and exits 0.  Whatever heapprof says at exit must not end up
 * in that file (t/0746).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static void *volatile sink;

int main(int argc, char **argv)
{
	int fd = open(argc > 1 ? argv[1] : "fdtwo.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return 1;
	if (fd != 2) {
		dup2(fd, 2);
		close(fd);
	}
	if (write(2, "data\n", 5) != 5)
		return 1;
	for (int i = 0; i < 3; i++)
		sink = malloc(100);
	return 0;
}
