#!/bin/sh
# bench/leakslive.sh -- heapprof leaks PID on a heap of 1 GiB in 10 M
# blocks of 107 bytes, 1000 of them lost (bench/bigheap.c, as
# bench/gate.sh), exact (lg_prof_sample:0) and at the default rate: how
# long the process's threads are stopped (the verdict's pause_ms) and the
# command's wall time, medians of ROUNDS checks of one running process;
# and what it found.  make bench-leakslive runs it; BIG="MiB size lost"
# and ROUNDS change the sizes.
set -u
B=${HP_BUILD:-build}
LIB=$B/libheapprof.so
HP=$B/heapprof
PROG=$B/bench/bigheap
BIG=${BIG:-1024 107 1000}
ROUNDS=${ROUNDS:-5}
[ -x "$PROG" ] && [ -e "$LIB" ] || { echo "leakslive: make bench-leakslive builds what it needs" >&2; exit 1; }
T=$(mktemp -d)
trap 'touch "$T/go"; rm -rf "$T"' EXIT
export HEAPPROF_RUNTIME_DIR=$T/run

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

echo "| mode | blocks | pause ms (median of $ROUNDS) | min | max | heapprof leaks wall s | found |"
echo "|---|---:|---:|---:|---:|---:|---|"
for mode in exact default; do
	conf=helper_thread:start,prof_prefix:
	[ $mode = exact ] && conf=lg_prof_sample:0,$conf
	rm -f "$T/go" "$T/out"
	BIGHEAP_WAIT=$T/go HEAPPROF_CONF=$conf LD_PRELOAD=$LIB $PROG $BIG >"$T/out" 2>"$T/err" &
	pid=$!
	while ! grep -q '^bigheap:' "$T/out" 2>/dev/null; do sleep 0.2; done
	: >"$T/pauses"
	: >"$T/walls"
	for i in $(seq "$ROUNDS"); do
		s=$(date +%s%N)
		"$HP" leaks --json "$pid" >"$T/v.json"
		awk -v a="$s" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }' >>"$T/walls"
		python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pause_ms"])' "$T/v.json" >>"$T/pauses"
	done
	found=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print("%s%d B in %d" % ("~" if d["estimated"] else "", d["leaked_bytes"], d["leaked_objects"]))' "$T/v.json")
	blocks=$(sed -n 's/^bigheap: \([0-9]*\) blocks.*/\1/p' "$T/out")
	echo "| $mode | $blocks | $(median <"$T/pauses") | $(sort -n "$T/pauses" | head -n 1) | $(sort -n "$T/pauses" | tail -n 1) | $(median <"$T/walls") | $found |"
	touch "$T/go"
	wait $pid
done
