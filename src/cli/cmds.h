/*
 * cmds.h -- the heapprof command's subcommands, one file each
 * (cmd_<name>.c), dispatched by main.c.  Each takes its own argv (argv[0]
 * is the subcommand's name) and returns the exit status: 0 success, 1
 * failure, 2 usage.
 */
#ifndef HP_CLI_CMDS_H
#define HP_CLI_CMDS_H

#include <stddef.h>

int cmd_run(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_dump(int argc, char **argv);
/* toggle, pause and resume */
int cmd_toggle(int argc, char **argv);
/* The reports on dumps; the work is src/report's (report.h). */
int hp_cli_report(int argc, char **argv);
int hp_cli_trend(int argc, char **argv);

/* Where libheapprof.so is (cmd_run.c).  0 when found. */
int find_library(char *out, size_t cap);

#endif
