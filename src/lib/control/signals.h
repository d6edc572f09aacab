/*
 * signals.h -- the dump and toggle signals (signal_dump, signal_toggle).
 *
 * The handler only records the signal and wakes the helper thread.  It is
 * installed with SA_RESTART, and never over a handler the program already
 * has: the program wins, and the log says so.  A handler the program
 * installs later also wins; the helper thread notices within a second and
 * logs it once.  While ours is installed the signal no longer terminates
 * the process.
 */
#ifndef HP_SIGNALS_H
#define HP_SIGNALS_H

#pragma GCC visibility push(hidden)

/* Installs handlers for the configured signals, removing ours from
 * signals no longer configured.  Idempotent; called at init and after
 * configuration changes. */
void hp_signals_configure(int dump_sig, int toggle_sig);
/* Logs once if the program replaced one of our handlers.  Helper thread. */
void hp_signals_check(void);

#pragma GCC visibility pop

#endif
