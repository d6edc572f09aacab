/*
 * binary.h -- whether LD_PRELOAD can enter a program: for `heapprof run`
 * and `heapprof check`, which warn before they run one it cannot.
 */
#ifndef HP_CLI_BINARY_H
#define HP_CLI_BINARY_H

#include <stddef.h>

/* Prints "heapprof WHO: <why>: LD_PRELOAD cannot enter it; <consequence>"
 * on stderr when LD_PRELOAD cannot enter the program cmd (found through
 * PATH as execvp finds it; a #! script's interpreter, through env(1)
 * too): it is statically linked, or runs set-user-ID.  Silent when cmd
 * cannot be read or judged. */
void hp_binary_warn(const char *who, const char *cmd, const char *consequence);

enum {
	HP_BINARY_STATIC = 1,	/* no dynamic loader runs it */
	HP_BINARY_SECURE = 2,	/* secure mode: the loader ignores LD_PRELOAD */
};

/* Whether LD_PRELOAD cannot enter cmd (found as above): HP_BINARY_STATIC
 * or HP_BINARY_SECURE with why set to "cmd is statically linked" or "cmd
 * runs /path, which is set-user-ID"; 0 when it can, or when cmd cannot
 * be read or judged (why untouched). */
int hp_binary_unpreloadable(const char *cmd, char *why, size_t cap);

/* Whether cmd (found as above, through #! lines) is a Python interpreter,
 * by its file name (python, python3, python3.11, python3.11d) or by
 * linking libpython (a program that embeds Python: uwsgi, gdb): 1 or 0. */
int hp_binary_python(const char *cmd);

#endif
