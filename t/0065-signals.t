#!/bin/sh
# Re-entry from signal handlers: a timer handler allocates and frees while
# the main thread is inside heapprof (holding its locks, unwinding, ...) in
# exact mode.  No deadlock, no crash, exact counts, nothing left live.
. "$(dirname "$0")/lib.sh"
plan 6

timeout 120 env HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,prof_accum:true LD_PRELOAD=$LIB \
	"$TP/sigalloc" >out 2>err
st=$?
is $st 0 "finishes (no deadlock) and exits 0"
runs=$(sed -n 's/^handler ran \([0-9]*\) times$/\1/p' out)
# About 500 (a 50 us timer over the loop; fewer since a single-threaded
# program keeps glibc's lock-free paths): enough to land inside heapprof.
ok $([ "${runs:-0}" -gt 250 ]; echo $?) "the handler interrupted the program ${runs:-0} times"
is "$(cat err)" "" "nothing leaked: every block freed in a handler was accounted for"
dump=$(one_file 'heapprof.*.f.*heap')
main_row=$(grep -c '^0: 0 \[200000: 13107200000\] @ ' "$dump")
is "$main_row" 1 "main_alloc's stack: exactly 200000 blocks, 13107200000 bytes, none live"
handler_objs=$(awk '/^[0-9]+: [0-9]+ \[/ { gsub(/\[|:/, "", $3); if ($4 ~ /^[0-9]+\]$/ && $0 ~ / @ /) { b = $4; sub(/\]/, "", b); if (b == 16 * $3) n += $3 } } END { print n + 0 }' "$dump")
ok $([ "$handler_objs" -le "$runs" ]; echo $?) "handler blocks recorded ($handler_objs) do not exceed handler runs"
live=$(sed -n 1p "$dump" | awk '{print $3, $4}')
is "$live" "1: 4096" "live at exit: only stdio's buffer"
done_testing
