#!/bin/sh
# heapprof report --graph: the call graph in Graphviz's dot language, read
# by dot itself; node labels with the flat and cumulative bytes of
# programs whose numbers are known, the same as go tool pprof -dot and
# jeprof --dot give on the same dump; pprof's cut-offs; --graph --svg
# through dot, and one clear line when dot is missing.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 33

# nodes FILE: "name flat cum" per node of a dot file, from labels as
# heapprof and pprof write them ("f\n3235840 (50.3%)\nof 6430720 (99.9%)",
# "main\n0 of 6430720B (100%)") or jeprof does ("f\n0 (0.0%)\rof 42 (1.0%)\r").
nodes() {
	perl -ne 'next unless /^N\d+ \[label="(.*?)(?<!\\)"/; my @l = split /\\[nr]/, $1;
		my $name = shift @l; my $v = join " ", @l; $v =~ s/B\b//g;
		my ($flat) = $v =~ /^\s*(-?\d+)/; my ($cum) = $v =~ /of (-?\d+)/;
		print "$name $flat ", $cum // $flat, "\n"' "$1" | sort
}

prof lg_prof_sample:0,prof_final:true,prof_prefix:s "$TP/seed" >/dev/null
seed=$(one_file 's.*.f.*heap')
total=$("$BIN" report --show-bytes "$seed" | sed -n 's/^Total: \([0-9]*\) B .*/\1/p')

"$BIN" report --graph --show-bytes -o seed.dot "$seed"
is $? 0 "--graph -o writes a file"
like "$(head -n 1 seed.dot)" '^digraph "heapprof" \{$' "a dot graph"
dot -Tsvg seed.dot >seed.svg 2>err
ok $? "dot reads it"
is "$(cat err)" "" "without a word"
like "$(cat seed.dot)" '^N[0-9]+ \[label="do_something\\n3235840 \(50\.3%\)" .*fontsize=24 ' \
	"do_something: 3235840 bytes, in the largest font"
like "$(cat seed.dot)" '^N[0-9]+ \[label="do_something_else\\n3194880 \(49\.7%\)|^N[0-9]+ \[label="do_something_else\\n3194880 \(49\.6%\)' \
	"do_something_else: 3194880 bytes"
like "$(cat seed.dot)" "^N[0-9]+ \\[label=\"main\\\\n0 of $total " \
	"main: nothing of its own, all of the total"
like "$(cat seed.dot)" '^N[0-9]+ -> N[0-9]+ \[label=" 3235840" .*tooltip="main -> do_something \(3235840\)"' \
	"the call main -> do_something carries 3235840 bytes"
like "$(cat seed.dot)" "^subgraph cluster_L .*Type: inuse_space.*of $total total" "a legend"

# ---- the same as go tool pprof -dot and jeprof --dot ---------------------
# views 4: grows 4 MiB, shrinks 1 MiB, a long name 256 KiB, shared()
# 2 x 64 KiB through via_a() and via_b(), deep() 64 KiB through 121
# frames, steady() 40 KiB; lines() and fill() under the 0.5% cut-off.
prof lg_prof_sample:0,prof_final:true,prof_prefix:v "$TP/views" 4
views=$(one_file 'v.*.f.*heap')
"$BIN" report --graph --show-bytes -o views.dot "$views"
"$BIN" report --pprof -o views.pb.gz "$views"
go tool pprof -dot -unit=byte views.pb.gz >pprof.dot 2>/dev/null
nodes views.dot >ours
nodes pprof.dot >theirs
ok $([ "$(wc -l <ours)" -ge 10 ]; echo $?) "views: $(wc -l <ours) nodes"
diff -u theirs ours >d
ok $? "the same nodes, flat and cum bytes as go tool pprof -dot on the same dump"
[ -s d ] && diag "$(cat d)"
like "$(cat ours)" '^grows 4194304 4194304$' "grows: 4194304"
like "$(cat ours)" '^shared 131072 131072$' "shared: 131072, from two callers"
unlike "$(cat ours)" '^(lines|fill) ' "lines() and fill() are under the node fraction"
jeprof --dot --show_bytes "$TP/views" "$views" 2>/dev/null >jeprof.dot
nodes jeprof.dot >je
for f in grows shrinks shared deep steady main; do
	is "$(grep "^$f " ours)" "$(grep "^$f " je)" "jeprof --dot agrees on $f"
done

# ---- cut-offs --------------------------------------------------------------
"$BIN" report --graph --show-bytes --node-fraction 0.015 -o cut.dot "$views"
like "$(cat cut.dot)" '^N[0-9]+ -> N[0-9]+ \[label=" 131072" .*tooltip="main \.\.\. shared \(131072\)".* style="dotted"\]$' \
	"--node-fraction 0.015 leaves out via_a and via_b: main calls shared through them, dotted"
like "$(cat cut.dot)" 'Dropped 6 nodes \(cum <= 86438\)' "the legend says what was left out"
"$BIN" report --graph --show-bytes --node-fraction 0 -o all.dot "$views"
like "$(cat all.dot)" '^N[0-9]+ -> N[0-9]+ \[label=" 7000\\n \(inline\)".*tooltip="lines -> fill \(7000\)"' \
	"--node-fraction 0 keeps fill(), which lines() calls inlined"
"$BIN" report --graph --node-count 3 -o three.dot "$views"
is "$(grep -c '^N[0-9]* \[' three.dot)" 3 "--node-count 3: three nodes"
like "$(cat three.dot)" 'Showing top 3 nodes out of' "and the legend says so"
"$BIN" report --graph --edge-fraction 0.5 -o edges.dot "$views"
like "$(cat edges.dot)" 'Dropped [0-9]+ edges \(freq <= 2\.7MiB\)' "--edge-fraction 0.5 leaves out calls under 2.7MiB"
is "$(grep -c ' -> ' edges.dot)" 4 "the four calls of the root, main included, stay"

# ---- SVG through dot -----------------------------------------------------
"$BIN" report --graph --svg -o views.svg "$views"
is $? 0 "--graph --svg"
xmllint --noout views.svg 2>/dev/null
ok $? "an SVG document, drawn by dot"
like "$(cat views.svg)" '>grows</text>' "with the nodes' names"
PATH=/nonexistent "$BIN" report --graph --svg -o none.svg "$views" 2>err
is $? 1 "without dot on the PATH: status 1"
is "$(cat err)" "heapprof: --graph --svg needs Graphviz's dot program, which is not installed (apt-get install graphviz); --graph alone writes the dot text" \
	"and one line that says what to do"
"$BIN" report --graph --json "$views" >/dev/null 2>err
is $? 2 "--graph with another format is a usage error"
done_testing
