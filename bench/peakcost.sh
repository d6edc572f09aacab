#!/bin/sh
# bench/peakcost.sh -- what the peak snapshot and the temporary counts
# (record/peak.h, record/sampled.c) cost, in instructions under callgrind:
# bench/churn (2 threads over a ring of 1000 live blocks) under this
# library and under the library of BASE_REV, the commit before them (built
# here from git), the same runs.  Exact mode is where every allocation takes
# the sampled path; at the default rate the unsampled fast path must not
# change at all.
#
# Prints a Markdown table: the run's instructions, heapprof's own (the
# self cost of every function in the library's sources), and the fast
# path's (malloc and free themselves, without the slow paths they call).
# make bench-peakcost runs it (about 4 minutes on 2 cores).
set -u
B=${HP_BUILD:-build}
LIB=$B/libheapprof.so
CHURN=$B/bench/churn
# The parent of the commit that brought them in, unless given.
BASE_REV=${BASE_REV:-$(git log -1 --format=%h --grep='^lib: the peak snapshot and temporary allocations')^}
[ -x "$CHURN" ] && [ -e "$LIB" ] || { echo "peakcost: make bench-peakcost builds what it needs" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "peakcost: needs valgrind (make deps)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# The library without peak tracking: BASE_REV's sources, built alone.
mkdir "$T/base"
git archive "$BASE_REV" | tar -x -C "$T/base" || exit 1
make -s -C "$T/base" build/libheapprof.so >/dev/null 2>&1 || { echo "peakcost: cannot build $BASE_REV" >&2; exit 1; }

# run NAME LIB CONF ARGS: one callgrind run of churn; prints
# "total heapprof fastpath" instructions.
run() {
	HEAPPROF_CONF=$3 valgrind --tool=callgrind --trace-children=yes \
		--callgrind-out-file="$T/$1.%p" env LD_PRELOAD="$2" "$CHURN" $4 >/dev/null 2>"$T/$1.err"
	f=$(ls "$T/$1".[0-9]*)
	callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null | awk '
		/PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
		/src\/lib\// {
			c = $1; gsub(",", "", c); own += c
			# the interposed functions themselves: tls.h:malloc,
			# intercept/malloc.c:free, next/filter.h:free
			if ($NF ~ /:(malloc|free)$/ || $(NF-1) ~ /:(malloc|free)$/) fast += c
		}
		END { printf "%d %d %d\n", total, own, fast }'
}

fmt() {   # 1234567 -> 1,234,567
	echo "$1" | awk '{ s = $1; r = ""
		while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
		print s r }'
}
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f%%", (b - a) * 100 / a }'; }

echo "| run | instructions, $BASE_REV | with peak and temporary | change | heapprof's own, $BASE_REV | with | change | malloc+free fast path, $BASE_REV | with |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for spec in "default rate, churn 2 1000000||2 1000000" \
	    "exact mode, churn 2 200000|lg_prof_sample:0,prof_prefix:|2 200000"; do
	name=${spec%%|*} rest=${spec#*|}
	conf=${rest%%|*} args=${rest#*|}
	n=$((${n:-0} + 1))
	set -- $(run base$n "$T/base/build/libheapprof.so" "$conf" "$args")
	bt=$1 bo=$2 bf=$3
	set -- $(run new$n "$LIB" "$conf" "$args")
	nt=$1 no=$2 nf=$3
	echo "| $name | $(fmt $bt) | $(fmt $nt) | $(pct $bt $nt) | $(fmt $bo) | $(fmt $no) | $(pct $bo $no) | $(fmt $bf) | $(fmt $nf) |"
done
