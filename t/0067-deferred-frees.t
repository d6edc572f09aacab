#!/bin/sh
# Deferred removals (record/sampled.c): in exact mode, once the live
# table is large, a single-threaded process puts each free's removal off
# into a batch of 32, done when it is full.  Every reader must still see
# the frees done: dumps right after a run of fewer than 32 frees and
# after a whole batch and some, the peak when an allocation follows
# them, a fork child's dump, a new thread's dump, the leak summary and the
# reachability verdict at exit, a signal handler that allocates and frees
# while the main thread is inside heapprof.
. "$(dirname "$0")/lib.sh"
plan 16

# defer MODE [ENV...]: t/prog/defer (200,000 blocks of 32 bytes from keep(),
# a live table of some MiB) in exact mode.
defer() {
	_m=$1
	shift
	timeout 30 env HEAPPROF_CONF=lg_prof_sample:0 "$@" LD_PRELOAD="$LIB" "$TP/defer" "$_m"
}

# live FILE: a dump's live objects and bytes ("N: B").
live() { sed -n '1s/^heap profile: *\([0-9]*\): *\([0-9]*\) .*/\1: \2/p' "$1"; }
peak() { sed -n 's/^# heapprof peak: //p' "$1"; }

defer dumps
is "$(live d0.heap)" "200000: 6400000" "200,000 blocks of 32 bytes live (nothing else)"
is "$(live d1.heap)" "199995: 6399840" "5 frees, then a dump: all 5 are gone from it"
is "$(live d2.heap)" "199989: 6399816" "7 more frees and one allocation of 200 bytes: exact"
is "$(peak d2.heap)" "200000: 6400000" "the peak stays d0's: the 7 frees came before the allocation"
is "$(live d3.heap)" "199944: 6398376" "45 more frees (a batch done, 13 waiting), then a dump: all 45 are gone"
rm -f ./*.heap

defer fork
is "$(live c.heap)" "199992: 6399744" "a fork child, 5 frees before the fork and 3 after: its dump has all 8 gone"
is "$(live p.heap)" "199995: 6399840" "the parent's dump after the child's exit: its own 5"
rm -f ./*.heap

# The thread's own blocks (glibc's, for its stack and TLS) count too: the
# live figures are the bare dump's less exactly the 6 frees.
# No helper thread: the program's own thread would start it, and whether
# what it allocates is in the dump would depend on which thread ran first.
defer thread HEAPPROF_CONF=lg_prof_sample:0,helper_thread:never
t_objs=$(live t.heap | cut -d: -f1)
t_bytes=$(live t.heap | cut -d' ' -f2)
HEAPPROF_CONF=lg_prof_sample:0,helper_thread:never LD_PRELOAD="$LIB" timeout 30 "$TP/defer" thread 1000 >/dev/null
small=$(live t.heap)
is "$t_objs: $t_bytes" "$((${small%%:*} + 199000)): $((${small#*: } + 199000 * 32))" \
	"a new thread's dump after 6 frees of the main thread: all 6 are gone (the same as with 1,000 blocks, less 199,000)"
rm -f ./*.heap

# At exit: the last 7 frees still wait; they are no leaks.
defer leak HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,leak_check:reachable >out 2>err
st=$?
is $st 0 "the leak gate's run exits 0"
is "$(grep 'Leak approximation' err)" \
	"<heapprof>: Leak approximation summary: ~48 bytes, ~1 object, >= 1 context (direct 48 bytes in 1 object, indirect 0 bytes in 0 objects)" \
	"the summary: lose()'s one block, none of the 7 frees that waited at exit"
like "$(grep -A1 'Direct leak' err)" ' in lose ' "the verdict names lose()"
is "$(grep -c 'Direct leak' err)" 1 "and that one leak only"
rm -f ./*.heap

# A timer handler that allocates and frees (t/0065's sigalloc) while the
# main thread's frees wait, over a large table (100,000 blocks first).
timeout 120 env HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,prof_accum:true LD_PRELOAD="$LIB" \
	"$TP/sigalloc" 100000 >out 2>err
is $? 0 "sigalloc over a large table: finishes and exits 0"
runs=$(sed -n 's/^handler ran \([0-9]*\) times$/\1/p' out)
ok $([ "${runs:-0}" -gt 250 ]; echo $?) "the handler interrupted the program ${runs:-0} times"
is "$(cat err)" "" "nothing leaked"
dump=$(one_file 'heapprof.*.f.*heap')
is "$(grep -c '^0: 0 \[200000: 13107200000\] @ ' "$dump")" 1 \
	"main_alloc's stack: exactly 200000 blocks, 13107200000 bytes, none live"
