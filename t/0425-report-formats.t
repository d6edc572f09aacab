#!/bin/sh
# heapprof report's outputs, each checked by what reads it: --pprof by go
# tool pprof (same totals and per-function values, sample types, lines,
# mappings), --svg by xmllint (valid XML naming the functions, with
# tooltips), --json by Perl's JSON::PP, --collapsed and --tree by eye.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 42

prof lg_prof_sample:0,prof_final:true,prof_prefix:s "$TP/seed" >/dev/null
seed=$(one_file 's.*.f.*heap')
"$BIN" report --show-bytes "$seed" >text
total=$(sed -n 's/^Total: \([0-9]*\) B .*/\1/p' text)
prof lg_prof_sample:0,prof_final:true,prof_accum:true,prof_prefix:acc "$TP/rep_grow" 2
acc=$(one_file 'acc.*.f.*heap')

# ---- pprof ---------------------------------------------------------------
"$BIN" report --pprof -o seed.pb.gz "$seed"
is $? 0 "--pprof -o writes a file"
is "$(od -An -tx1 -N2 seed.pb.gz | tr -d ' ')" 1f8b "gzipped"
pp=$(go tool pprof -top -unit=byte seed.pb.gz 2>/dev/null)
like "$pp" "^Type: inuse_space\$" "go tool pprof reads it: inuse_space by default"
like "$pp" "of ${total}B total\$" "the same total, $total bytes"
like "$pp" '^ *3235840B .* do_something$' "do_something 3235840 bytes"
like "$pp" '^ *3194880B .* do_something_else$' "do_something_else 3194880 bytes"
objs=$(go tool pprof -top -sample_index=inuse_objects seed.pb.gz 2>/dev/null)
like "$objs" '^ *80 .* do_something$' "inuse_objects: do_something 80"
raw=$(go tool pprof -raw seed.pb.gz 2>/dev/null)
like "$raw" '^inuse_objects/count inuse_space/bytes\[dflt\]$' "two sample types without cumulative counts"
like "$raw" ': 0x[0-9a-f]+ M=[0-9]+ do_something /.*t/prog/seed\.c:15 s=13$' \
	"locations carry address, mapping, function, file, line and the function's first line"
seed_id=$(readelf -n "$TP/seed" | sed -n 's/.*Build ID: *//p')
like "$raw" "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $TP/seed $seed_id \\[FN\\]\\[FL\\]\\[LN\\]\$" \
	"and the mapping of the executable, with its build-id"

like "$raw" '^Period: 1$' "exact mode: Period 1 (every byte)"
prof prof_final:true,prof_prefix:smp "$TP/seed" >/dev/null
"$BIN" report --pprof -o smp.pb.gz "$(one_file 'smp.*.f.*heap')"
like "$(go tool pprof -raw smp.pb.gz 2>/dev/null)" '^Period: 524288$' \
	"the default rate: Period 524288, the mean sampling interval, as Go's heap profiles give it"

# pprof's File: is the first mapping's: the program, not a library of it.
prof lg_prof_sample:0,prof_final:true,prof_prefix:so "$TP/leakso" >/dev/null 2>&1
"$BIN" report --pprof -o so.pb.gz "$(one_file 'so.*.f.*heap')" 2>/dev/null
like "$(go tool pprof -top so.pb.gz 2>/dev/null)" '^File: leakso$' \
	"File: names a C program that leaks in its shared library"
PYTHONMALLOC=malloc prof lg_prof_sample:0,prof_final:true,prof_prefix:py \
	python3 -c 'x = [str(i) for i in range(10000)]' >/dev/null 2>&1
"$BIN" report --pprof -o py.pb.gz "$(ls -S py.*.f.*heap | head -1)" 2>/dev/null
like "$(go tool pprof -top py.pb.gz 2>/dev/null)" '^File: python3' \
	"File: names python3, not libc or libpython"
"$BIN" report --pprof -o acc.pb.gz "$acc"
raw=$(go tool pprof -raw acc.pb.gz 2>/dev/null)
like "$raw" '^alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes\[dflt\]$' \
	"four sample types with cumulative counts, inuse_space the default"
alloc=$(go tool pprof -top -sample_index=alloc_space -unit=byte acc.pb.gz 2>/dev/null)
like "$alloc" '^ *100000B .* churn$' "alloc_space: churn 100000 bytes"
"$BIN" report --pprof --alloc-objects -o ao.pb.gz "$acc"
like "$(go tool pprof -top ao.pb.gz 2>/dev/null)" '^Type: alloc_objects$' \
	"--alloc-objects makes alloc_objects the default sample type"
"$BIN" report --pprof --focus '^churn$' -o f.pb.gz "$acc"
like "$(go tool pprof -top -sample_index=alloc_space -unit=byte f.pb.gz 2>/dev/null)" \
	'of 100000B total$' "--focus applies to --pprof samples"

# ---- svg -----------------------------------------------------------------
"$BIN" report --svg "$seed" >seed.svg
is $? 0 "--svg exits 0"
xmllint --noout seed.svg 2>err
ok $? "the flame graph is valid XML"
is "$(cat err)" "" "xmllint has nothing to say"
like "$(cat seed.svg)" '^<svg .*xmlns="http://www.w3.org/2000/svg"' "an SVG document"
like "$(cat seed.svg)" '<title>do_something \(3\.1MiB, 50\.3%\)</title>' \
	"a tooltip names do_something with its value"
like "$(cat seed.svg)" '>do_something_else</text>' "and the frame is labelled"
unlike "$(cat seed.svg)" 'href=|<script' "self-contained: no links, no scripts"
prof lg_prof_sample:0,prof_final:true,prof_prefix:cx "$TP/rep_cxx"
"$BIN" report --svg --full-names "$(one_file 'cx.*.f.*heap')" >cx.svg
xmllint --noout cx.svg 2>/dev/null
ok $? "C++ names with <, > and & still make valid XML"
like "$(cat cx.svg)" 'store::Pool&lt;store::Item&gt;::make\(int\)' "escaped, not dropped"

# ---- json ----------------------------------------------------------------
"$BIN" report --json "$seed" >seed.json
# json EXPR: evaluates the Perl expression EXPR over the decoded document $j.
json() { perl -MJSON::PP -0777 -ne '$j = decode_json($_); print '"$1" seed.json; }
is "$(json '"ok"')" ok "--json is valid JSON"
is "$(json '$j->{format} . " " . $j->{sample_type} . " " . $j->{unit}')" \
	"heapprof-report inuse_space bytes" "with its format, sample type and unit"
is "$(json '$j->{total}')" "$total" "the total"
is "$(json '$j->{functions}[0]{name} . " " . $j->{functions}[0]{flat}')" \
	"do_something 3235840" "functions ranked as in --text"
is "$(json '$j->{stacks}[0]{value} . " " . $j->{stacks}[0]{inuse_objects}')" "3235840 80" \
	"stacks with their values"
is "$(json '$j->{stacks}[0]{frames}[0]{function} . ":" . $j->{stacks}[0]{frames}[0]{line}')" \
	"do_something:15" "frames leaf first, with lines"
like "$(json '$j->{stacks}[0]{frames}[0]{module}')" '/t/seed$' "and modules"

# ---- collapsed -----------------------------------------------------------
"$BIN" report --collapsed "$seed" >c
like "$(cat c)" '^_start;.*;main;do_something 3235840$' \
	"--collapsed: root first, leaf last, bytes"
is "$(awk '{ s += $NF } END { print s }' c)" "$total" "the lines add up to the total"
is "$(sort c)" "$(cat c)" "sorted"
"$BIN" report --collapsed --inuse-objects "$seed" >co
like "$(cat co)" ';do_something 80$' "--collapsed --inuse-objects counts objects"

# ---- tree ----------------------------------------------------------------
"$BIN" report --tree --show-bytes "$seed" >tree
like "$(cat tree)" '^ 3235840  50\.3%  do_something$' "--tree: an entry per top function"
like "$(cat tree)" '^ 3235840 100\.0%    main$' "its callers indented below it"
like "$(cat tree)" '^ 3235840 100\.0%          _start$' "all the way to the root"
"$BIN" report --tree --top 1 "$seed" >tree1
is "$(grep -c '^ *[0-9.]*[KMGi]*B  *[0-9.]*%  [^ ]' tree1)" 1 "--tree --top 1: one entry"
done_testing
