/*
 * statefile.h -- what a running profiled process tells the heapprof command.
 *
 * Each process keeps one small file, <runtime dir>/<pid>, rewritten
 * atomically whenever something in it changes and removed at exit:
 *
 *     version=0.1.0
 *     pid=4242
 *     starttime=123456                (field 22 of /proc/pid/stat; 0: unknown)
 *     program=/usr/bin/app
 *     prefix=/var/tmp/app             (expanded; empty: no automatic dumps)
 *     active=1                        (sampling on or paused)
 *     lg_prof_sample=19
 *     signal_dump=10                  (0: none or taken over by the program)
 *     signal_toggle=12
 *     signal_control=63               (wakes the process to read its control
 *                                      files, control/remote.h; 0: none)
 *     dumps=3                         (written by this process)
 *     last_dump=/var/tmp/app.4242.7.s2.20261122T101530Z.heap
 *     live_bytes=123456789            (estimated, as of the last update)
 *     started=20261122T100000Z
 *
 * Values are one line each: control bytes in a path become '?'.
 *
 * The runtime dir is $HEAPPROF_RUNTIME_DIR (ignored in a secure-exec
 * process), or /tmp/heapprof-<uid>, created mode 0700 and used only if it
 * is a directory we own that no one else can write to (else one warning).
 * At start-up the files of dead processes there are removed: a state
 * file, temporary or control file (control/remote.c) whose pid is gone, a
 * temporary untouched for a minute.
 * heapprof ps also removes a file whose pid now belongs to a process that
 * started later than starttime says.  See heapprof(1), "heapprof ps".
 */
#ifndef HP_STATEFILE_H
#define HP_STATEFILE_H

#pragma GCC visibility push(hidden)

/* Picks the directory, removes dead processes' files from it and writes
 * the first version of ours. */
void hp_statefile_init(void);
/* Rewrites the file (helper thread or dumping thread). */
void hp_statefile_publish(void);
/* The signals whose handler is heapprof's (0: none, or taken over by the
 * program); control/signals.c says so whenever that changes. */
void hp_statefile_set_signals(int dump, int toggle, int control);
/* The runtime directory ("" when the state file is not published). */
const char *hp_statefile_dir(void);
/* Records a dump written. */
void hp_statefile_note_dump(const char *path);
/* Removes the file (at exit). */
void hp_statefile_remove(void);
/* In a fork child: a file of its own. */
void hp_statefile_postfork_child(void);

#pragma GCC visibility pop

#endif
