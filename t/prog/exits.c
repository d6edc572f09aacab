/*
 * exits.c -- leaks 4242 bytes (and 10, whose pointer is overwritten), then
 * ends by argv[1]: "_exit" or "_Exit" (which skip exit handlers), or
 * "vfork", whose child calls _exit(0) in the parent's memory before the
 * parent calls _exit(0) itself.  valgrind: definitely lost 4,252 bytes in
 * 2 blocks; one 10-byte block stays reachable from a global.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep;

__attribute__((noinline)) static void lose(void)
{
	keep = malloc(4242);
	memset(keep, 1, 4242);
	keep = malloc(10);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "_exit";

	keep = malloc(10);
	lose();
	if (!strcmp(how, "vfork") && vfork() == 0)
		_exit(0);
	if (!strcmp(how, "_Exit"))
		_Exit(0);
	_exit(0);
}
