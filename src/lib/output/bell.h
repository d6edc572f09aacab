/*
 * bell.h -- the process's end of the bell (src/bellpage.h): the shared page
 * the heapprof command rings for a dump, a pause or a resume.
 *
 * Made at start-up and in each fork child, in the runtime directory, by
 * the thread that starts the process's profiling; read and written with
 * atomics from any thread, signal handlers included.  Without a runtime
 * directory there is no bell: the request word stays private and the
 * command falls back to the control files and their signal.
 */
#ifndef HP_OUTPUT_BELL_H
#define HP_OUTPUT_BELL_H

#include <stddef.h>
#include <sys/types.h>

#include "bellpage.h"

#pragma GCC visibility push(hidden)

/* Makes this process's bell in runtime_dir ("": none) and moves the
 * request word into it. */
void hp_bell_init(const char *runtime_dir);
/* In a fork child: the parent's page is the parent's; a new one. */
void hp_bell_postfork_child(void);
/* The page, or NULL. */
struct hp_bell *hp_bell_page(void);
/* heapprof's helper thread sleeps on the word now (0: none does). */
void hp_bell_set_helper(pid_t tid);
/* A dump was written (path), or a requested one failed (why). */
void hp_bell_note_dump(const char *path);
void hp_bell_note_failure(const char *why);
/* A request of the command's was served. */
void hp_bell_note_answered(void);
/* The process's totals into the bell's stats fields (HP_BELL_STATS): a
 * walk of every context's counters, on the helper thread. */
void hp_bell_publish_stats(void);
/* Where a leak check of the running process writes its verdict
 * (leak/livecheck.h): <runtime dir>/leaks.<pid>, into buf; returns its
 * length, 0 without a bell (then there is no file). */
size_t hp_bell_leaks_path(char *buf, size_t cap);
/* A leak check asked through the bell is done: its verdict is in place
 * (failure NULL), or it failed (why). */
void hp_bell_note_leaks(const char *failure);
/* Removes the file (and the leak check's verdict) at exit (the page stays mapped: a late request finds
 * no file, and the command reads what it needs from its own mapping). */
void hp_bell_remove(void);

#pragma GCC visibility pop

#endif
