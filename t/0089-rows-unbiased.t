#!/bin/sh
# A dump's rows read without bias where each stack has few samples.
#
# A dump row holds integers (objects: bytes) that readers scale by
# 1/(1 - exp(-(bytes/objects)/R)).  heapprof's estimate for a stack with
# k samples of s bytes is k/p objects with p = 1 - exp(-(s+1)/R) (the
# sample point takes s + 1 bytes of the stream), and the row that scales
# back onto it needs about k s/(s+1) objects: not an integer.  Rounded to
# the nearest, the reader got about 2/s too many objects (gcc's cc1, whose
# stacks mostly hold one or two samples of a few dozen bytes, read 7%
# more objects than it allocated); rows are now rounded up or down at
# random, unbiased on average.
#
# t/prog/manystacks allocates blocks of 8 to 32 bytes from 4096 stacks,
# about two samples each at lg_prof_sample:14, and prints the truth.
# heapprof report's totals, in both dump layouts, must be within 5
# standard deviations of it in each of 3 runs.  The variance: N blocks of
# s bytes give N (1-p)/p for objects and N s^2 (1-p)/p for bytes; the
# random rounding adds at most 1/4 of a row's object squared per row,
# (1/p')^2/4 objects and (s/p')^2/4 bytes with p' = 1 - exp(-s/R), for
# each stack's live and allocated rows.  Rounding to the nearest misses
# by 10 to 20 of these standard deviations.  The age lines (prof_age,
# on at a sampled rate) follow the rows and hold the estimates: a stack
# whose row rounds to no object keeps a row, of zeros, so that they sum
# to the live bytes too (within the same bound).
. "$(dirname "$0")/lib.sh"
RUNS=3
PER=2000
plan $((2 * RUNS * 6))

# sd KIND: the standard deviation of the total of KIND (live-objects,
# live-bytes, alloc-objects, alloc-bytes) at lg_prof_sample:14.
sd() {
	awk -v kind="$1" -v per=$PER 'BEGIN {
		R = 16384; split("8 12 16 24 32", size, " ")
		n = (kind ~ /^live/) ? int((per + 1) / 2) : per
		for (leaf = 0; leaf < 4096; leaf++) {
			s = size[leaf % 5 + 1]; p = 1 - exp(-(s + 1) / R); q = 1 - exp(-s / R)
			w = (kind ~ /bytes/) ? s * s : 1
			v += n * w * (1 - p) / p + w / (q * q) / 4
		}
		printf "%.0f", sqrt(v) }'
}
# value DUMP KIND: heapprof report's total of KIND.
value() {
	"$BIN" report --"$(echo "$2" | sed 's/live-/inuse-/; s/bytes/space/')" --show-bytes --text "$1" |
		awk 'NR == 1 && $1 == "Total:" { print $2 }'
}

kinds="live-objects live-bytes alloc-objects alloc-bytes"
for layout in gperftools jemalloc; do
	for run in $(seq $RUNS); do
		prof lg_prof_sample:14,prof_accum:true,prof_final:true,prof_prefix:ms.$layout.$run,dump_format:$layout \
			"$TP/manystacks" $PER >truth 2>err
		dump=$(ls ms.$layout.$run.*.f.*.heap 2>/dev/null | head -n 1)
		ok $([ -s "$dump" ] && grep -q '^manystacks: allocated' truth; echo $?) \
			"$layout, run $run: the run writes its final dump and its truth"
		set -- $(sed 's/.*allocated \([0-9]*\) \([0-9]*\) live \([0-9]*\) \([0-9]*\)/\3 \4 \1 \2/' truth)
		for kind in $kinds; do
			t=$1
			shift
			e=$(value "$dump" $kind) s=$(sd $kind)
			z=$(awk -v e="${e:-0}" -v t="$t" -v s="$s" 'BEGIN { printf "%+.2f", (e - t) / s }')
			ok $(awk -v z="$z" 'BEGIN { exit !(z <= 5 && z >= -5) }'; echo $?) \
				"$layout, run $run: $kind $e vs $t ($z sd of $s)"
		done
		t=$(sed 's/.*live [0-9]* \([0-9]*\)/\1/' truth) s=$(sd live-bytes)
		e=$(awk '/^# age:/ { for (i = 3; i <= NF; i++) { split($i, a, ":"); b += a[3] } }
			END { printf "%.0f", b }' "$dump")
		z=$(awk -v e="$e" -v t="$t" -v s="$s" 'BEGIN { printf "%+.2f", (e - t) / s }')
		ok $(awk -v z="$z" 'BEGIN { exit !(z <= 5 && z >= -5) }'; echo $?) \
			"$layout, run $run: the age lines' live bytes $e vs $t ($z sd of $s)"
	done
done
done_testing
