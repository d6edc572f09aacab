#!/bin/sh
# bench/gate.sh (make bench-gate: the leak gate beside LeakSanitizer and
# valgrind) runs end to end on tiny sizes, and on its C fixtures the
# three tools find the same leaks: the blocks bigheap leaves out of its
# chain (in address order, and in a random order), and the block every
# third forked test leaks (the figures mean nothing at this size).
. "$(dirname "$0")/lib.sh"
plan 7

for f in bigheap bigheap-lsan forktests forktests-lsan measure; do
	[ -x "$HP_BUILD/bench/$f" ] || { echo "Bail out! $HP_BUILD/bench/$f is missing: run make check"; exit 1; }
done
command -v valgrind >/dev/null || { echo "Bail out! valgrind is missing: make deps installs it"; exit 1; }

HP_BUILD=$HP_BUILD sh "$SRC/bench/gate.sh" --tiny >out 2>err
is $? 0 "bench/gate.sh --tiny exits 0"
[ -s err ] && diag "$(tail -n 20 err)"
like "$(cat out)" '^\| tiny: 1 GiB in 10 M blocks, 1000 lost \| [0-9.]+ \| [0-9.]+ \([0-9.]+x\) \| [0-9.]+ \([0-9.]+x\) \| [0-9.]+ \([0-9.]+x\) \| [0-9]+, [0-9]+ \(1\) \|$' \
	"bigheap: bare, heapprof check, LeakSanitizer and valgrind timed, and heapprof's exit scan"
like "$(cat out)" '^\| tiny: 20 forked tests of a 1 M-block fixture \| [0-9.]+ \| [0-9.]+ \([0-9.]+x\) \| [0-9.]+ \([0-9.]+x\) \| [0-9.]+ \([0-9.]+x\) \| [0-9]+, [0-9]+ \(5\) \|$' \
	"forktests: the same, with the scans of the parent and its 4 children"
like "$(cat out)" '^\| tiny: perl hash of 300,000 entries \| [0-9.]+ \| [0-9.]+ \([0-9.]+x\) \|' "perl's hash under the gate"
like "$(cat out)" '^\| tiny: 1 GiB in 10 M blocks, 1000 lost \|( [0-9]+ \|){4} 1070 B in 10 \| 1070 B in 10 \| 1070 B in 10 \|$' \
	"bigheap: heapprof, LeakSanitizer and valgrind each find the 10 lost blocks"
like "$(cat out)" '^\| tiny: the same, linked in a random order \|( [0-9]+ \|){4} 1070 B in 10 \| 1070 B in 10 \| 1070 B in 10 \|$' \
	"bigheap's chain in a random order: the same 10"
like "$(cat out)" '^\| tiny: 20 forked tests of a 1 M-block fixture \|( [0-9]+ \|){4} 203 B in 2 \| 203 B in 2 \| 203 B in 2 \|$' \
	"forktests: each finds the two tests' leaks, in the children that made them"
done_testing
