/*
 * scope.h -- which processes profile: prof_programs, and run_pid with
 * run_only_top (heapprof run --programs and --only-top).
 *
 * Heapprof is loaded into every process that inherits LD_PRELOAD; a
 * process outside the scope starts as with prof:false (nothing sampled,
 * written or published).  Runs at start-up, in the constructor.
 */
#ifndef HP_SCOPE_H
#define HP_SCOPE_H

#include <stdbool.h>

#pragma GCC visibility push(hidden)

/*
 * Whether this process profiles, from the options just loaded.  A process
 * that run_only_top leaves out also takes heapprof out of its own
 * LD_PRELOAD, in place, so that the programs it execs run without it.
 * Logs why at debug level.  No allocation.
 */
bool hp_scope_profiles(void);

/*
 * In a fork child, whether it goes on profiling: not when run_only_top
 * leaves it out (it is not run_pid), as it would leave out a process that
 * started with the library; heapprof then leaves its LD_PRELOAD too.  A
 * shell's forks (command substitutions, subshells: a pyenv shim runs
 * dozens) are no more the top process than the programs it execs.  No
 * allocation.
 */
bool hp_scope_fork_profiles(void);

#pragma GCC visibility pop

#endif
