/*
 * vanish.c -- a process that leaks and then leaves no verdict of its own
 * making: it leaks 3000 bytes from leak_some, then
 *
 *     setuid    drops to nobody (setgid, setuid 65534: run as root), as a
 *               daemon's worker does, and exits 0
 *     abort     abort()s (SIGABRT)
 *
 * usage: vanish setuid|abort
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile sink;

__attribute__((noinline)) static void leak_some(void)
{
	sink = malloc(3000);
	sink = NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: vanish setuid|abort\n", stderr);
		return 2;
	}
	leak_some();
	if (!strcmp(argv[1], "setuid")) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
			perror("vanish: setuid");
			return 1;
		}
		return 0;
	}
	if (!strcmp(argv[1], "abort"))
		abort();
	fputs("usage: vanish setuid|abort\n", stderr);
	return 2;
}
