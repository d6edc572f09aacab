#!/bin/sh
# Real programs sampled at lg_prof_sample:14 against the exact run of the
# same deterministic workload: python3 (PYTHONMALLOC=malloc, a script
# that builds a dict and lists and exits with os._exit, so they are live
# in the final dump), gcc's cc1 on a generated C file, and sqlite3 loading
# a table and indexing it.  The final dump's totals (live and allocated
# bytes and objects, scaled as jeprof scales them) must be the exact
# run's within 5 standard deviations, in each of 3 runs.
#
# The bound, from the sample count: an allocation of Z bytes counts
# Z/p bytes with p = 1 - exp(-Z/R), variance Z^2 (1-p)/p <= Z R, so the
# total's variance is at most R X for X true bytes: sd <= X / sqrt(X/R),
# X/R being the expected number of samples.  Objects: variance (1-p)/p
# per block, about R/Z, which needs the sizes; each stack's average size
# in the exact dump gives it, and underestimates it where a stack mixes
# sizes (measured up to 1.3 times for python3), so twice that.
#
# A bias shows in every run: the mean of the RUNS signed deviations (in
# those sd), whose own sd is at most 1/sqrt(RUNS) for independent runs,
# must be within 5/sqrt(RUNS) of 0 too.  cc1's objects, when a dump's
# rows were rounded to the nearest, read 7% high, 3.4 sd on average over
# 12 runs: beyond that bound, as no single run was beyond 5.
. "$(dirname "$0")/lib.sh"
RUNS=3
R=16384
plan $((3 * (1 + RUNS * 5 + 4)))

cat >load.py <<'PY'
import os
d = {}
for i in range(100000):
    d["k%d" % i] = [i, str(i) * (i % 7), (i, i + 1)]
l = [bytes(i % 300) for i in range(30000)]
t = sorted(d.items())[:50000]
print(len(t), len(l), flush=True)
os._exit(0)
PY
awk 'BEGIN { for (i = 0; i < 1500; i++)
	printf "struct s%d { int a; long b[%d]; };\nint f%d(int x) { struct s%d v = { x, { 0 } }; " \
	       "for (int j = 0; j < x; j++) v.a += j * %d; return v.a + (int)v.b[0]; }\n", i, i % 7 + 1, i, i, i }' >gen.c
awk 'BEGIN { print "create table t(a integer primary key, b text, c real);"; print "begin;"
	for (i = 1; i <= 20000; i++) printf "insert into t values(%d, '\''row %d of the table'\'', %d.5);\n", i, i, i
	print "commit;"; print "create index tb on t(b);"; print "select count(*), sum(c) from t;" }' >load.sql
CC1=$(gcc -print-prog-name=cc1)

# work NAME LG: the workload NAME at lg_prof_sample:LG, its final dump
# NAME.LG.*.f.*.heap.
work() {
	_c=lg_prof_sample:$2,prof_accum:true,prof_final:true,prof_prefix:$1.$2
	case $1 in
	python3) PYTHONHASHSEED=0 PYTHONMALLOC=malloc prof "$_c" /usr/bin/python3 load.py ;;
	cc1) prof "$_c" "$CC1" -quiet -O1 gen.c -o gen.s ;;
	sqlite3) prof "$_c" sqlite3 :memory: <load.sql ;;
	esac >/dev/null 2>&1
	ls "$1.$2".*.f.*.heap 2>/dev/null | head -n 1
}
# rows DUMP: each stack's objects, bytes, allocated objects and bytes,
# scaled as jeprof scales heap_v2/R rows (exact dumps: as they are).
rows() {
	awk 'NR == 1 { R = 0; if (match($0, /heap_v2\/[0-9]+/)) R = substr($0, RSTART + 8, RLENGTH - 8) + 0
		if (R == 1) R = 0; next }
	/^MAPPED_LIBRARIES/ { exit }
	$1 ~ /^[0-9]+:$/ && $2 ~ /^[0-9]+$/ && $5 == "@" {
		c = $1 + 0; b = $2 + 0; ac = $3; sub(/\[/, "", ac); ab = $4; sub(/\]/, "", ab)
		s = sc(c, b); as = sc(ac, ab)
		printf "%.3f %.3f %.3f %.3f\n", c * s, b * s, ac * as, ab * as }
	function sc(n, s) { return R == 0 || n == 0 || s == 0 ? 1 : 1 / (1 - exp(-(s / n) / R)) }' "$1"
}
# totals DUMP: live objects, live bytes, allocated objects, allocated bytes.
totals() {
	rows "$1" | awk '{ for (i = 1; i <= 4; i++) t[i] += $i }
		END { printf "%.0f %.0f %.0f %.0f\n", t[1], t[2], t[3], t[4] }'
}
# sds DUMP: an exact dump's standard deviations of the four totals at R.
sds() {
	rows "$1" | awk -v R=$R '
	function ov(n, b) { if (!n || !b) return 0; p = 1 - exp(-(b / n) / R); return n * (1 - p) / p }
	{ v[1] += ov($1, $2); v[2] += $2; v[3] += ov($3, $4); v[4] += $4 }
	END { printf "%.0f %.0f %.0f %.0f\n", 2 * sqrt(v[1]), sqrt(R * v[2]), 2 * sqrt(v[3]), sqrt(R * v[4]) }'
}

names="live-objects live-bytes alloc-objects alloc-bytes"
for w in python3 cc1 sqlite3; do
	exact=$(work $w 0)
	ok $([ -s "$exact" ]; echo $?) "$w: the exact run's final dump is written"
	truth=$(totals "$exact") sd=$(sds "$exact")
	zs1= zs2= zs3= zs4=
	for run in $(seq $RUNS); do
		dump=$(work $w 14)
		ok $([ -s "$dump" ]; echo $?) "$w, run $run: the sampled run's final dump is written"
		est=$(totals "$dump")
		rm -f "$w.14".*
		for i in 1 2 3 4; do
			set -- $names; eval "name=\${$i}"
			set -- $est; eval "e=\${$i}"
			set -- $truth; eval "t=\${$i}"
			set -- $sd; eval "s=\${$i}"
			z=$(awk -v e="$e" -v t="$t" -v s="$s" 'BEGIN { d = e - t
				printf "%+.2f", (s > 0 ? d / s : (d > 0 ? 99 : d < 0 ? -99 : 0)) }')
			ok $(awk -v z="$z" 'BEGIN { exit !(z != "" && z + 0 <= 5 && z + 0 >= -5) }'; echo $?) \
				"$w, run $run: $name $e vs exact $t ($z sd of $s)"
			eval "zs$i=\"\${zs$i} \$z\""
		done
	done
	for i in 1 2 3 4; do
		set -- $names; eval "name=\${$i}"
		eval "zs=\${zs$i}"
		m=$(echo $zs | awk '{ for (i = 1; i <= NF; i++) m += $i; printf "%+.2f", m / NF }')
		ok $(awk -v m="$m" -v n=$RUNS 'BEGIN { exit !(m <= 5 / sqrt(n) && m >= -5 / sqrt(n)) }'; echo $?) \
			"$w: $name, the mean of the runs' deviations, $m sd, is within 5/sqrt($RUNS)"
	done
done
done_testing
