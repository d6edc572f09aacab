#!/bin/sh
# heapprof report --base: what grew between two dumps of one process (the
# slow-leak workflow, checked against jeprof --base) and between two runs
# of a program (where jeprof, which subtracts raw addresses, cannot
# cancel anything under ASLR), exact in exact mode, with negative entries
# kept and marked, several bases summed, in every output.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 20

flat() { awk -v fn="$1" '$6 == fn { print $1; f = 1 } END { if (!f) print 0 }'; }

# rep_grow N keeps N MiB from grow() and 40960 bytes from steady().
prof lg_prof_sample:0,prof_final:true,prof_prefix:old "$TP/rep_grow" 2
prof lg_prof_sample:0,prof_final:true,prof_prefix:new "$TP/rep_grow" 5
old=$(one_file 'old.*.f.*heap')
new=$(one_file 'new.*.f.*heap')

"$BIN" report --show-bytes --base "$old" "$new" >d 2>err
is $? 0 "--base exits 0"
is "$(flat grow <d)" 3145728 "grow grew by exactly 3 MiB"
is "$(flat steady <d)" 0 "steady did not grow: no row"
is "$(sed -n 1p d)" "Total: +3145728 B (inuse_space, 1 dump minus 1 base dump)" \
	"the headline gives the net growth"
unlike "$(cat d)" '^Note:' "no note when nothing shrank"

"$BIN" report --show-bytes --base "$new" "$old" >neg
is "$(flat grow <neg)" -3145728 "the other way round: grow is -3145728"
like "$(sed -n 1p neg)" '^Total: -3145728 B ' "a negative total"
like "$(cat neg)" '^Note: 1 stack shrank since the base: values with .-. are decreases' \
	"a note marks the negative entries"
like "$(grep ' grow$' neg)" '^-3145728 -100\.0%' "percentages of the absolute total, negative"

"$BIN" report --base "$new" "$old" >negh
is "$(flat grow <negh)" -3.0MiB "negative sizes for people: -3.0MiB"

# Several bases are summed like the dumps.
"$BIN" report --show-bytes --base "$old" --base "$old" "$new" >two
is "$(flat grow <two)" 1048576 "two bases: grow is 5 - 2 - 2 = 1 MiB"
is "$(flat steady <two)" -40960 "two bases: steady is -40960"

"$BIN" report --collapsed --base "$old" "$new" >c
like "$(cat c)" ';main;grow 3145728$' "--collapsed: the delta per path"
is "$(grep -c ';steady ' c)" 0 "--collapsed: no line for a zero delta"
"$BIN" report --json --base "$old" "$new" >j
like "$(cat j)" '"total": 3145728,' "--json: the net total"
like "$(cat j)" "\"base\": \\[\"$old\"\\]" "--json: names the base"
# Dumps of one process, from jemalloc's prof.dump: grow() keeps 1 MiB per
# phase; steady() replaces its block.
LD_PRELOAD=$JEMALLOC MALLOC_CONF=prof:true,lg_prof_sample:0 "$TP/rep_phases" ph 3
is $? 0 "one process wrote three dumps under jemalloc"
"$BIN" report --show-bytes --base ph.1.heap ph.3.heap >p
is "$(flat grow <p)" 2097152 "phase 1 to 3: grow grew by 2 MiB"
is "$(jeprof_bytes "$TP/rep_phases" ph.3.heap grow --base=ph.1.heap)" 2097152 \
	"jeprof --base agrees on dumps of one process"
is "$(flat steady <p)" 0 "steady's replaced block cancels out"
done_testing
