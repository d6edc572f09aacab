/*
 * help.h -- what the command says of itself, for main.c.
 */
#ifndef HP_CLI_HELP_H
#define HP_CLI_HELP_H

#include <stdio.h>

/* The overview: the subcommands, the command's own options, and how to
 * preload the library by hand (with its path when it is found). */
void hp_help_overview(FILE *out);

/* `heapprof help options` on stdout: one of the library's options per
 * line (name, values, default, what it does; the bash completion reads the
 * first two columns).  Returns 0. */
int hp_help_options(void);

#endif
