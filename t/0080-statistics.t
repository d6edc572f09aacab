#!/bin/sh
# The default-rate estimates are unbiased, within a bound derived from
# their variance, not tuned to a lucky run.
#
# An allocation of Z bytes is sampled with probability p = 1 - exp(-(Z+1)/R),
# R = 2^19, and then counts Z/p bytes and 1/p objects.  Each estimate is
# unbiased with variance Z^2 (1-p)/p (bytes) and (1-p)/p (objects); sums
# over a site add up.  With thousands of samples per site the estimate is
# close to normal, and we require |estimate - truth| <= 5 standard
# deviations: a correct profiler fails one check with probability under
# 6e-7, this whole test under 1e-5.  A biased estimator (for example
# jemalloc's sum-then-unbias on site_mixed, which mixes 32-byte and 1 MiB
# blocks on one stack) or wrong weights fail it.
. "$(dirname "$0")/lib.sh"
plan 10

prof prof_accum:true,prof_leak:true "$TP/stat" >out 2>err
is $? 0 "the workload runs"
dump=$(one_file 'heapprof.*.f.*heap')

# check NAME ESTIMATE TRUTH SD
check() {
	verdict=$(awk -v e="$2" -v t="$3" -v s="$4" 'BEGIN {
		d = e - t; if (d < 0) d = -d
		printf "%s %.2f", (d <= 5 * s ? "ok" : "off"), d / s }')
	case $verdict in
	ok*) ok 0 "$1: $2 vs $3 (${verdict#ok } sd)" ;;
	*) ok 1 "$1: $2 vs $3 (${verdict#off } sd)" ;;
	esac
}
# sd KIND N Z [N Z]...: the standard deviation of a site's estimate.
sd() {
	kind=$1
	shift
	awk -v kind="$kind" -v args="$*" 'BEGIN {
		n = split(args, a, " "); R = 524288; v = 0
		for (i = 1; i < n; i += 2) {
			N = a[i]; Z = a[i + 1]; p = 1 - exp(-(Z + 1) / R)
			v += (kind == "bytes" ? N * Z * Z : N) * (1 - p) / p
		}
		printf "%.0f", sqrt(v) }'
}
bytes() { jeprof_bytes "$TP/stat" "$dump" "$1" --alloc_space; }
objects() {
	jeprof --text --alloc_objects "$TP/stat" "$dump" 2>/dev/null |
		awk -v fn="$1" '$6 == fn { print $1 }'
}

check "site_small bytes" "$(bytes site_small)" 1073741824 "$(sd bytes 16777216 64)"
check "site_small objects" "$(objects site_small)" 16777216 "$(sd objects 16777216 64)"
check "site_big bytes" "$(bytes site_big)" 1073741824 "$(sd bytes 16384 65536)"
check "site_big objects" "$(objects site_big)" 16384 "$(sd objects 16384 65536)"
check "site_mixed bytes" "$(bytes site_mixed)" 1073741824 "$(sd bytes 8388608 32 768 1048576)"
check "site_mixed objects" "$(objects site_mixed)" 8389376 "$(sd objects 8388608 32 768 1048576)"
check "site_live bytes in use" "$(jeprof_bytes "$TP/stat" "$dump" site_live)" 268435456 \
	"$(sd bytes 4096 65536)"
summary=$(sed -n 's/.*Leak approximation summary: ~\([0-9]*\) bytes.*/\1/p' err)
check "leak summary bytes" "$summary" 268435456 "$(sd bytes 4096 65536)"
like "$(cat err)" 'Estimated from samples \(lg_prof_sample:19\)' "the summary says it is an estimate"
done_testing
