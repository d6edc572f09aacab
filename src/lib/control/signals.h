/*
 * signals.h -- the dump, toggle and control signals (signal_dump,
 * signal_toggle, and a real-time signal heapprof picks).
 *
 * The handler only records the signal and wakes the helper thread.  It is
 * installed with SA_RESTART, and only where the program would have
 * SIG_DFL (next/sigview.h keeps the program's view): a handler the program
 * has, or installs later, wins, and so does SIG_IGN, inherited or set; the
 * helper thread notices within a second and logs it once.  While ours is
 * installed the signal no longer terminates the process.
 *
 * The control signal only wakes the helper thread to read the control
 * files (control/remote.h); it is advertised in the state file as
 * signal_control, for heapprof dump and toggle, which never need SIGUSR1
 * or SIGUSR2.
 *
 * The final signals: with prof_final and prof_final_signals, SIGTERM and
 * SIGINT are claimed the same way (only at SIG_DFL: never over the
 * program's handler or SIG_IGN).  One arriving asks for the final dump
 * (HP_REQ_FINAL); whoever answers writes it, gives the signal back its
 * default action and sends it again, so the program dies by it as it
 * would bare; the thread that took it waits in the handler meanwhile (up
 * to 5 s).  A second final signal, or one under a seccomp filter, kills
 * at once.
 */
#ifndef HP_SIGNALS_H
#define HP_SIGNALS_H

#pragma GCC visibility push(hidden)

/* Installs handlers for the configured signals, giving back those no
 * longer configured, and picks the control signal.  Idempotent; called at
 * init and after configuration changes. */
void hp_signals_configure(int dump_sig, int toggle_sig);
/* Logs once when the program took over or gave back one of our signals,
 * picks another control signal if the program took it, and updates the
 * state file.  Helper thread. */
void hp_signals_check(void);
/* Gives every signal heapprof holds (dump, toggle, control, final) back
 * to the program's view, for a process that stops profiling (a fork that
 * run_only_top leaves out): bare, they do to it what they would have.  In
 * a fork child, before it runs the program's code again. */
void hp_signals_leave(void);
/* HP_REQ_FINAL: the final dump (prof_final, not sandboxed), then the final
 * signal that arrived again with its default action.  On the thread that
 * answers requests. */
void hp_signals_final(void);

/* Whether this thread answers requests from one of heapprof's signal
 * handlers (the interrupted code may be anywhere: a leak check, which
 * walks the loader's list of objects, is left for a sample point). */
int hp_signals_in_handler(void);

#pragma GCC visibility pop

#endif
