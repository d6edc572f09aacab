/*
 * cmds.h -- the heapprof command's subcommands, dispatched by main.c:
 * hp_cmd_<name> in cmd_<name>.c (dump and toggle share cmd_ctl.c).  Each
 * takes its own argv (argv[0] is the subcommand's name) and returns the
 * exit status: 0 success, 1 failure, 2 usage.
 */
#ifndef HP_CLI_CMDS_H
#define HP_CLI_CMDS_H

int hp_cmd_run(int argc, char **argv);
int hp_cmd_ps(int argc, char **argv);
int hp_cmd_dump(int argc, char **argv);
/* toggle, pause and resume */
int hp_cmd_toggle(int argc, char **argv);
/* The reports on dumps; the work is src/report's (report.h, trend.h). */
int hp_cmd_report(int argc, char **argv);
int hp_cmd_trend(int argc, char **argv);

/* The heap profiles of running processes over HTTP (cmd_serve.c). */
int hp_cmd_serve(int argc, char **argv);

/* A tree of processes under the leak check (cmd_check.c). */
int hp_cmd_check(int argc, char **argv);

/* A leak check of a running process (cmd_leaks.c). */
int hp_cmd_leaks(int argc, char **argv);

/* Loading heapprof into a running process, and leaving it (cmd_attach.c). */
int hp_cmd_attach(int argc, char **argv);
int hp_cmd_detach(int argc, char **argv);

#endif
