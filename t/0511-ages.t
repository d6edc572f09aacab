#!/bin/sh
# Ages in dumps (prof_age): each stack's live memory by age, exact in
# exact mode, within the sampling bound at a sampled rate, and dumps that
# jeprof and go tool pprof still read.
#
# t/prog/aged keeps 1000-byte blocks at three known moments: first_alloc
# at the start, second_alloc 2 s later, third_alloc 1.5 s after that,
# then exits (the final dump).  At the dump their ages are about 3.5 s
# (bucket [2, 4)), 1.5 s ([1, 2)) and 0 ([0, 1)): each half a bucket
# from its edges, where the clock's resolution (1/16 s) cannot move it.
. "$(dirname "$0")/lib.sh"
plan 26

# ages DUMP FUNCTION: "from:to:bytes ..." of FUNCTION's stack, by
# heapprof report --age --json.
ages() {
	"$BIN" report --age --json "$1" | python3 -c '
import json, sys
for s in json.load(sys.stdin)["stacks"]:
    if s["frames"][0] == sys.argv[1]:
        print(" ".join("%d:%s:%d" % (a["from"], a["to"], a["bytes"]) for a in s["ages"]))' "$2"
}

# Exact mode, dates asked for: every block, exactly.
prof lg_prof_sample:0,prof_age:true,prof_final:true,prof_prefix:ex "$TP/aged" 1000 2000 2000 1000 1500 500 >out 2>err
is "$?:$(cat out)" "0:aged: done" "the program runs as bare"
dump=$(one_file 'ex.*.f.*heap')
up=$(sed -n 's/^# heapprof uptime: //p' "$dump")
like "$up" '^[0-9]+\.[0-9]{4}$' "the dump gives the uptime to 1/16 s ($up)"
ok "$(awk -v u="$up" 'BEGIN { exit !(u >= 3.4 && u < 4) }'; echo $?)" "the uptime is the run's, 3.5 s and a little"
is "$(grep -c '^# age: ' "$dump")" "$(grep -c '^[0-9]*: [0-9]* \[' "$dump")" "one age line per stack row"
is "$(ages "$dump" first_alloc)" "2:4:2000000" "first_alloc: 2000 blocks, all 2-4 s old"
is "$(ages "$dump" second_alloc)" "1:2:1000000" "second_alloc: 1000 blocks, all 1-2 s old"
is "$(ages "$dump" third_alloc)" "0:1:500000" "third_alloc: 500 blocks, under 1 s old"
like "$(grep -A3 '^[0-9]*: 2000000 ' "$dump" | grep '^# age')" '^# age: 2:2000:2000000$' \
	"the line after first_alloc's row has its objects and bytes"

# jeprof and go tool pprof read such a dump as before.
is "$(jeprof_bytes "$TP/aged" "$dump" first_alloc)" 2000000 "jeprof reads a dump with ages"
like "$(go tool pprof -top -unit=byte "$TP/aged" "$dump" 2>/dev/null)" '^ *1000000B .* second_alloc$' \
	"go tool pprof reads it"

# The jemalloc layout carries them too.
prof lg_prof_sample:0,prof_age:true,prof_final:true,prof_prefix:je,dump_format:jemalloc "$TP/aged" 1000 10 1100 10 0 10 >/dev/null 2>&1
dump=$(one_file 'je.*.f.*heap')
is "$(ages "$dump" first_alloc)" "1:2:10000" "the jemalloc layout: first_alloc 1-2 s old"
is "$(jeprof_bytes "$TP/aged" "$dump" first_alloc)" 10000 "jeprof reads it"

# Exact mode by default keeps no dates (they cost a quarter more table
# memory there), and report --age says so.
prof lg_prof_sample:0,prof_final:true,prof_prefix:nd "$TP/aged" 1000 10 0 10 0 10 >/dev/null 2>&1
dump=$(one_file 'nd.*.f.*heap')
is "$(grep -c '^# age\|^# heapprof uptime' "$dump")" 0 "exact mode, prof_age:sampled: no ages"
"$BIN" report --age "$dump" >out 2>err
is "$?:$(cat out)" "1:" "report --age fails on it"
is "$(cat err)" "heapprof: '$dump' has no ages (dumps date blocks at a sampled rate, or with prof_age:true in exact mode; not a dump of jemalloc, gperftools or an older heapprof)" \
	"with one line saying why"
prof lg_prof_sample:14,prof_age:false,prof_final:true,prof_prefix:off "$TP/aged" 1000 10 0 10 0 10 >/dev/null 2>&1
is "$(grep -c '^# age' "$(one_file 'off.*.f.*heap')")" 0 "prof_age:false: none at a sampled rate either"

# Sampled (one sample per 16 KiB on average), three runs: each stack's
# bytes in its one bucket, within 5 standard deviations of the truth.  A
# block of Z bytes is sampled with p = 1 - exp(-(Z+1)/R) and stands for
# Z/p bytes: N blocks' estimate has the variance N Z^2 (1-p)/p.
for run in 1 2 3; do
	rm -f sa.*.heap
	prof lg_prof_sample:14,prof_final:true,prof_prefix:sa "$TP/aged" 1000 16000 2000 8000 1500 4000 >/dev/null 2>&1
	dump=$(one_file 'sa.*.f.*heap')
	for f in first_alloc:16000:2:4 second_alloc:8000:1:2 third_alloc:4000:0:1; do
		IFS=: read fn n lo hi <<EOT
$f
EOT
		got=$(ages "$dump" "$fn")
		verdict=$(echo "$got" | awk -v n="$n" -v lo="$lo" -v hi="$hi" '{
			split($1, a, ":"); R = 16384; Z = 1000; p = 1 - exp(-(Z + 1) / R)
			sd = Z * sqrt(n * (1 - p) / p); d = a[3] - n * Z; if (d < 0) d = -d
			printf "%s %.2f", (NF == 1 && a[1] == lo && a[2] == hi && d <= 5 * sd) ? "ok" : "off", d / sd }')
		ok "$([ "${verdict%% *}" = ok ]; echo $?)" "run $run: $fn ${lo}-${hi}s: $got vs $((n * 1000)) bytes (${verdict#* } sd)"
	done
done
is "$(jeprof --text "$TP/aged" "$dump" 2>/dev/null | grep -c '_alloc$')" 3 "jeprof reads a sampled dump with ages"
done_testing
