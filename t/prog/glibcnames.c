/*
 * glibcnames.c -- allocations made inside glibc, whose internal calls go
 * through hidden aliases (__GI___strdup): keeps 100 strings from strdup
 * (from dup_strings) and 100 from strndup (from dup_prefixes), and
 * prints a line (stdio's buffer, from puts).  For the report's public
 * names.  With "leak", it then forgets the strings: 200 leaks.
 *
 * usage: glibcnames [leak]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *volatile keep[200];

__attribute__((noinline)) static void dup_strings(void)
{
	for (int i = 0; i < 100; i++)
		keep[i] = strdup("a string of forty bytes, to be duplicated");
}

__attribute__((noinline)) static void dup_prefixes(void)
{
	for (int i = 0; i < 100; i++)
		keep[100 + i] = strndup("a prefix, and what follows it", 8);
}

int main(int argc, char **argv)
{
	dup_strings();
	dup_prefixes();
	puts("glibcnames: done");
	if (argc > 1 && !strcmp(argv[1], "leak"))
		memset((void *)keep, 0, sizeof(keep));
	return 0;
}
