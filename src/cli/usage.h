/*
 * usage.h -- the one shape of a usage error, shared by main.c and every
 * subcommand.
 */
#ifndef HP_CLI_USAGE_H
#define HP_CLI_USAGE_H

/* A usage error: "heapprof CMD: <message>" and "try 'heapprof CMD
 * --help'" on stderr (cmd NULL: the command itself).  Returns 2, the
 * status of usage errors. */
int hp_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
