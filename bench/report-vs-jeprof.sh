#!/bin/sh
# report-vs-jeprof.sh -- how long `heapprof report` takes on a big dump,
# side by side with `jeprof --text` on the same dump and binary.
#
# usage: bench/report-vs-jeprof.sh [runs] [stacks]   (default 5 and 10000; run `make` first)
#
# The dump: bench/gen-deep.py writes a C program with 3600 functions in 30
# levels; compiled with -g and run under libheapprof.so in exact mode, it
# leaves 10,000 distinct stacks about 35 frames deep in its final dump.
# Every command runs `runs` times, interleaved with the others so that
# machine noise hits them alike; the table gives the median wall time and
# the ratio to jeprof --text measured in the same run.  The first run of
# each command is included (symbolization has no cache between runs).
set -eu
# Offline, as jeprof is: no debuginfod lookups while symbolizing.
unset DEBUGINFOD_URLS

RUNS=${1:-5}
STACKS=${2:-10000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${HP_BUILD:-$ROOT/build}
W=$(mktemp -d "${TMPDIR:-/tmp}/heapprof-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"

[ -x "$B/heapprof" ] && [ -e "$B/libheapprof.so" ] || { echo "run make first" >&2; exit 1; }
command -v jeprof >/dev/null || { echo "jeprof is missing (libjemalloc-dev)" >&2; exit 1; }

python3 "$ROOT/bench/gen-deep.py" --levels 30 --width 120 --stacks "$STACKS" >deep.c
cc -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -o deep deep.c
HEAPPROF_CONF=lg_prof_sample:0,prof_final:true,prof_prefix:deep LD_PRELOAD=$B/libheapprof.so ./deep
DUMP=$(ls deep.*.f.*heap)
stacks=$(grep -c '^[0-9]*: [0-9]* \[' "$DUMP" || true)
depth=$(awk '/ @ 0x/ { n = NF - 5; if (n > d) d = n } END { print d }' "$DUMP")
printf 'dump: %s stacks, up to %s frames; binary %s bytes, %s functions\n' \
	"$stacks" "$depth" "$(stat -c %s deep)" "$(grep -c '^NOINLINE void f[0-9_]*(uint64_t h)$' deep.c)"

# Commands, by name.
run() {
	case $1 in
	jeprof-text) jeprof --text ./deep "$DUMP" ;;
	report-text) "$B/heapprof" report --text "$DUMP" ;;
	report-lines) "$B/heapprof" report --lines "$DUMP" ;;
	report-svg) "$B/heapprof" report --svg "$DUMP" ;;
	report-pprof) "$B/heapprof" report --pprof "$DUMP" ;;
	report-html) "$B/heapprof" report --html "$DUMP" ;;
	report-graph) "$B/heapprof" report --graph "$DUMP" ;;
	report-list) "$B/heapprof" report --list grab "$DUMP" ;;
	esac
}
CMDS="jeprof-text report-text report-lines report-svg report-pprof report-html report-graph report-list"

# Same answer first: the total and the top function.
run jeprof-text 2>/dev/null | sed -n 1,2p >je.top
run report-text 2>/dev/null | sed -n '1p;3p' >hp.top
echo "jeprof:   $(tr '\n' '|' <je.top)"
echo "heapprof: $(tr '\n' '|' <hp.top)"

for i in $(seq "$RUNS"); do
	for c in $CMDS; do
		t0=$(date +%s%N)
		run "$c" >/dev/null 2>&1
		t1=$(date +%s%N)
		echo "$c $(( (t1 - t0) / 1000 ))" >>times
	done
done

median() { awk -v c="$1" '$1 == c { print $2 }' times | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
je=$(median jeprof-text)
printf '\n%-14s %12s %10s   (median of %s runs, wall time)\n' command seconds "vs jeprof" "$RUNS"
for c in $CMDS; do
	m=$(median "$c")
	awk -v c="$c" -v m="$m" -v je="$je" 'BEGIN { printf "%-14s %12.3f %9.1fx\n", c, m / 1e6, je / m }'
done
