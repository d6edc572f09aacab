/*
 * log.h -- every line the library prints goes through here.
 *
 * Lines start with "<heapprof>: ", end with a newline and are written with
 * a single write(2), so lines from several threads or processes never
 * interleave.  Nothing here allocates; hp_log may be called from any
 * thread, inside malloc, after fork and at exit.  It is not called from
 * signal handlers.
 */
#ifndef HP_LOG_H
#define HP_LOG_H

#include <stdint.h>

#include "base/compiler.h"

enum hp_log_level {
	HP_LOG_ERROR = 0,   /* something failed; the host carries on */
	HP_LOG_WARN  = 1,   /* configuration problems, ignored settings */
	HP_LOG_INFO  = 2,   /* dumps written, leak summaries, state changes */
	HP_LOG_DEBUG = 3,   /* configuration sources at startup */
};

/* Prints one line if level <= the configured log level.  The message is
 * truncated at 1 KiB; control bytes in it (a newline, an escape) are
 * printed as \xHH, so a quoted value can never start a line of its own.  Errors and warnings are capped per process so that
 * a misbehaving host cannot make the library flood its log. */
void hp_log(enum hp_log_level level, const char *fmt, ...) HP_PRINTF(2, 3);

/* Sets the level (from the log_level option). */
void hp_log_set_level(int level);

/* A line of a report the user asked for (the leak report): printed like
 * an error, but never counted against the cap on errors and warnings. */
void hp_log_report(const char *fmt, ...) HP_PRINTF(1, 2);

/* Whether a line printed now can reach anyone: a log file is open, or
 * standard error is (fcntl(2, F_GETFD) succeeds, and it was open when the
 * library started: a program that starts with fd 2 closed may open a file
 * of its own there, which heapprof never writes to).  Programs such as ls
 * and sort close it before exit; callers with much to say (the leak
 * report) check first and keep quiet rather than write to a closed
 * descriptor. */
int hp_log_can_print(void);

/* Sends messages to the file at path (NULL or empty: standard error),
 * rotating it when a line would take it past max bytes (0: never) and
 * keeping nkeep rotated files.  Missing directories of path are created
 * (0700).  Only a regular file is used: a symbolic link is never
 * followed, and a FIFO, socket or device is not even opened (a FIFO
 * would block).  Returns 0, the errno of the failed open, or
 * HP_LOG_ENOTREG (messages then go to standard error).  A "<path>.lock"
 * that is not a regular file is not used either: one warning, and writers
 * lock the directory.  Thread-safe. */
#define HP_LOG_ENOTREG (-1)
int hp_log_configure(const char *path, int64_t max, int nkeep);

/* The text for hp_log_configure's error: strerror's, or, for
 * HP_LOG_ENOTREG, what the file is ("a FIFO, not a regular file"). */
const char *hp_log_strerror(int err);

/* In a fork child. */
void hp_log_postfork_child(void);

/* At start-up, before the log file is configured: hold lines (on), then
 * write them where they belong (off).  Holding starts the library's log:
 * it notes whether standard error is open at all. */
void hp_log_hold(int on);

#endif
