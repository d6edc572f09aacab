/*
 * binary.h -- whether LD_PRELOAD can enter a program: for `heapprof run`
 * and `heapprof check`, which warn before they run one it cannot.
 */
#ifndef HP_CLI_BINARY_H
#define HP_CLI_BINARY_H

/* Prints "heapprof WHO: <why>: LD_PRELOAD cannot enter it; <consequence>"
 * on stderr when LD_PRELOAD cannot enter the program cmd (found through
 * PATH as execvp finds it; a #! script's interpreter, through env(1)
 * too): it is statically linked, or runs set-user-ID.  Silent when cmd
 * cannot be read or judged. */
void hp_binary_warn(const char *who, const char *cmd, const char *consequence);

#endif
