/*
 * remote.h -- requests from the heapprof command that need no SIGUSR1 or
 * SIGUSR2: the control files.
 *
 * In the runtime directory beside the state file (output/statefile.h),
 * the command creates an empty file for each request:
 *
 *     ctl.<pid>.dump     write a dump ('s', as signal_dump would)
 *     ctl.<pid>.pause    pause sampling (prof_active:false)
 *     ctl.<pid>.resume   resume it
 *
 * and then wakes the process with its control signal (signal_control in
 * the state file) when heapprof's handler holds it and some thread of the
 * program does not block it.  The helper thread also looks once a second,
 * so a process whose threads block every signal still answers.  A request
 * is taken by removing its file, before the work: one asked during a dump
 * is another dump, as with the signals.  Only the directory's owner (or
 * root) can create files there: the runtime directory is mode 0700.
 */
#ifndef HP_REMOTE_H
#define HP_REMOTE_H

#pragma GCC visibility push(hidden)

/* Removes control files left under our process ID by a process that had
 * it before us.  At init and in a fork child. */
void hp_remote_forget(void);
/* Takes the requests waiting: pauses or resumes sampling itself (the newer
 * of the two when both wait) and returns the hp_request bits for the rest
 * (HP_REQ_SIGNAL_DUMP, HP_REQ_STATE).  Helper thread. */
unsigned hp_remote_take(void);

#pragma GCC visibility pop

#endif
