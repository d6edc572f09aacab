#!/bin/sh
# realloc is sampled as any allocation: by the bytes it asks for, with the
# countdown, whatever brought it to heapprof's slow path.  A realloc of a
# block near a sampled one went there (the page filter cannot tell) and
# was sampled every time: 48-byte blocks realloc'ed to 48 bytes read 58
# times their size.  t/prog/reallocs keeps every block live to the end;
# at lg_prof_sample:14 (R = 16 KiB) each site's live bytes and objects in
# the final dump must be the truth within 5 standard deviations of the
# estimate (an allocation of Z bytes is sampled with p = 1 - exp(-(Z+1)/R) and
# counts Z/p bytes, 1/p objects), in each of 3 runs (3 seeds: the sampler
# seeds itself from the clock).  And mk_same's blocks, all realloc'ed,
# count as allocated (prof_accum) but not live: a realloc frees the old
# block as far as the estimates go.
. "$(dirname "$0")/lib.sh"
RUNS=3
plan $((RUNS * 12))

N=200000
R=16384
# check NAME ESTIMATE TRUTH SD
check() {
	verdict=$(awk -v e="$2" -v t="$3" -v s="$4" 'BEGIN {
		if (e == "") { print "off none"; exit }
		d = e - t; if (d < 0) d = -d
		printf "%s %.2f", (d <= 5 * s ? "ok" : "off"), (s > 0 ? d / s : d) }')
	case $verdict in
	ok*) ok 0 "$1: $2 vs $3 (${verdict#ok } sd)" ;;
	*) ok 1 "$1: ${2:-nothing} vs $3 (${verdict#off } sd)" ;;
	esac
}
# sd KIND COUNT SIZE: the standard deviation of a site's estimate.
sd() {
	awk -v kind="$1" -v N="$2" -v Z="$3" -v R=$R 'BEGIN {
		p = 1 - exp(-(Z + 1) / R)
		printf "%.0f", sqrt((kind == "bytes" ? N * Z * Z : N) * (1 - p) / p) }'
}
# flat VALUE-OPTION FUNCTION: jeprof's flat figure for FUNCTION.
flat() {
	jeprof --text --show_bytes "$1" "$TP/reallocs" "$dump" 2>/dev/null |
		awk -v fn="$2" '$6 == fn { print $1 }'
}

for run in $(seq $RUNS); do
	rm -f ra.*
	prof lg_prof_sample:14,prof_accum:true,prof_final:true,prof_prefix:ra "$TP/reallocs" $N >out 2>err
	dump=$(ls ra.*.f.*.heap 2>/dev/null | head -n 1)
	[ -s "$dump" ]
	ok $? "run $run: the final dump is written"
	check "run $run: re_same live bytes" "$(flat --inuse_space re_same)" $((N * 48)) "$(sd bytes $N 48)"
	check "run $run: re_same live objects" "$(flat --inuse_objects re_same)" $N "$(sd objects $N 48)"
	check "run $run: re_half live bytes" "$(flat --inuse_space re_half)" $((N * 48)) "$(sd bytes $N 48)"
	check "run $run: re_half live objects" "$(flat --inuse_objects re_half)" $N "$(sd objects $N 48)"
	check "run $run: re_double live bytes" "$(flat --inuse_space re_double)" $((N / 64 * 4096)) \
		"$(sd bytes $((N / 64)) 4096)"
	check "run $run: re_null live bytes" "$(flat --inuse_space re_null)" $((N * 64)) "$(sd bytes $N 64)"
	check "run $run: re_null live objects" "$(flat --inuse_objects re_null)" $N "$(sd objects $N 64)"
	check "run $run: re_big live bytes" "$(flat --inuse_space re_big)" $((N / 64 * 8192)) \
		"$(sd bytes $((N / 64)) 8192)"
	check "run $run: mk_same allocated bytes" "$(flat --alloc_space mk_same)" $((N * 48)) "$(sd bytes $N 48)"
	check "run $run: re_same allocated bytes" "$(flat --alloc_space re_same)" $((N * 48)) "$(sd bytes $N 48)"
	mk_live=$(flat --inuse_space mk_same)
	is "${mk_live:-0}" 0 "run $run: mk_same's blocks, all realloc'ed, are not live"
done
