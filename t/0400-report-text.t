#!/bin/sh
# heapprof report --text on the seed program in exact mode: exact bytes
# and objects per function in both dump layouts, the same totals and top
# functions as jeprof, several dumps summed, human sizes, --top, --lines,
# -o, and usage errors (status 2).
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 41

# flat/cum FUNCTION: that column of FUNCTION in a --text table on stdin.
flat() { awk -v fn="$1" '$6 == fn { print $1; f = 1 } END { if (!f) print 0 }'; }
cum() { awk -v fn="$1" '$6 == fn { print $4; f = 1 } END { if (!f) print 0 }'; }

prof lg_prof_sample:0,prof_final:true,prof_prefix:g "$TP/seed" >/dev/null 2>&1
g=$(one_file 'g.*.f.*heap')
prof lg_prof_sample:0,prof_final:true,prof_prefix:j,dump_format:jemalloc "$TP/seed" >/dev/null 2>&1
j=$(one_file 'j.*.f.*heap')
ok $([ -n "$g" ] && [ -n "$j" ]; echo $?) "the seed program left a dump in each layout"

"$BIN" report --show-bytes "$g" >out 2>err
is $? 0 "report exits 0"
is "$(cat err)" "" "and prints nothing on stderr"
is "$(flat do_something <out)" 3235840 "do_something: 3235840 bytes"
is "$(flat do_something_else <out)" 3194880 "do_something_else: 3194880 bytes"
is "$(sed -n 2p out)" "    flat  flat%   sum%      cum   cum% function" "jeprof's columns under a header"
like "$(grep ' do_something$' out)" '^ 3235840  50\.3%  50\.3%  3235840  50\.3% do_something$' \
	"rows in jeprof's %8s %6s %6s %8s %6s %s layout"
total=$(sed -n 's/^Total: \([0-9]*\) B (inuse_space, 1 dump)$/\1/p' out)
like "$total" '^[0-9]+$' "the headline gives the total in bytes"
is "$(cum main <out)" "$total" "main's cum is the total"

# jeprof on the same dump: same total, same top functions in the same order.
jeprof --text --show_bytes "$TP/seed" "$g" >jout 2>/dev/null
is "$(sed -n 's/^Total: \([0-9]*\) B$/\1/p' jout)" "$total" "jeprof reports the same total"
top_hp=$(sed -n '3,4p' out | awk '{ print $1, $6 }')
top_je=$(sed -n '2,3p' jout | awk '{ print $1, $6 }')
is "$top_hp" "$top_je" "and the same top two functions with the same bytes"

"$BIN" report --show-bytes "$j" >jl
is "$(flat do_something <jl)" 3235840 "jemalloc layout: do_something 3235840 bytes"
is "$(flat do_something_else <jl)" 3194880 "jemalloc layout: do_something_else 3194880 bytes"

# Threads in the jemalloc layout: per-thread rows and names are skipped,
# the t* rows count.
prof lg_prof_sample:0,prof_final:true,prof_prefix:th,dump_format:jemalloc "$TP/threads" >/dev/null 2>&1
th=$(one_file 'th.*.f.*heap')
"$BIN" report --show-bytes "$th" >thr
is "$(flat worker_alloc <thr)" 1000000 "four named threads: worker_alloc keeps 1000000 bytes"
is "$(sed -n 's/^Total: \([0-9]*\) B .*/\1/p' thr)" \
	"$(jeprof --text --show_bytes "$TP/threads" "$th" 2>/dev/null | sed -n 's/^Total: \([0-9]*\) B$/\1/p')" \
	"the same total as jeprof"

"$BIN" report --inuse-objects "$g" >objs
is "$(flat do_something <objs)" 80 "--inuse-objects: do_something 80 objects"
is "$(flat do_something_else <objs)" 40 "--inuse-objects: do_something_else 40 objects"
like "$(sed -n 1p objs)" '^Total: [0-9]+ \(inuse_objects, 1 dump\)$' "--inuse-objects headline"

# Several dumps are summed, across layouts (of two processes: --merge).
"$BIN" report --merge --show-bytes "$g" "$j" >two
is "$(flat do_something <two)" 6471680 "two dumps summed: do_something 6471680 bytes"
like "$(sed -n 1p two)" '\(inuse_space, 2 dumps\)$' "the headline counts the dumps"

"$BIN" report "$g" >human
is "$(flat do_something <human)" 3.1MiB "sizes for people by default (3.1MiB)"
is "$(flat do_something_else <human)" 3.0MiB "3194880 bytes is 3.0MiB"

"$BIN" report --top 2 "$g" >top
is "$(wc -l <top | tr -d ' ')" 4 "--top 2: headline, header and two rows"

"$BIN" report --lines --show-bytes "$g" >lines
like "$(cat lines)" '^ 3235840 .* do_something /.*t/prog/seed\.c:15$' "--lines: do_something at seed.c:15"
like "$(cat lines)" ' main /.*t/prog/seed\.c:[0-9]+$' "--lines: main with its file and line"

"$BIN" report --show_bytes -o rep.txt "$g" >stdout
is "$(cat stdout)" "" "-o: nothing on stdout"
is "$(flat do_something <rep.txt)" 3235840 "-o writes the report (and --show_bytes is accepted)"

# Usage errors: status 2, one line and where the help is.
"$BIN" report --frobnicate "$g" >out 2>err
is $? 2 "an unknown option exits 2"
like "$(sed -n 1p err)" "^heapprof report: unknown option '--frobnicate'$" "and names it"
is "$(sed -n '2,$p' err)" "try 'heapprof report --help'" "then where the help is, and nothing more"
"$BIN" report >out 2>err
is $? 2 "no dump exits 2"
"$BIN" report --text --svg "$g" >out 2>err
is $? 2 "two output formats exit 2"
"$BIN" report --inuse-objects --alloc-space "$g" >out 2>err
is $? 2 "two value types exit 2"
"$BIN" report --top 0 "$g" >out 2>err
is $? 2 "--top 0 exits 2"
"$BIN" report --focus '(' "$g" >out 2>err
is $? 2 "a bad regular expression exits 2"
"$BIN" report "$g" --base >out 2>err
is $? 2 "a missing option value exits 2"
"$BIN" report --debug-dir relative/dir "$g" >out 2>err
is $? 2 "--debug-dir wants an absolute path"
"$BIN" report -o /nonexistent/dir/rep.txt "$g" >out 2>err
is $? 1 "an output file that cannot be written exits 1"
is "$(cat err)" "heapprof: cannot write '/nonexistent/dir/rep.txt': No such file or directory" \
	"with one line naming it"
"$BIN" report --help >out 2>err
is $? 0 "--help exits 0"
like "$(cat out)" '^usage: heapprof report \[options\] DUMP\.\.\.$' "and prints the usage on stdout"
done_testing
