#!/bin/sh
# heapprof report --focus and --ignore: POSIX extended regular expressions
# on function names; --focus keeps the stacks with a matching frame,
# --ignore drops them, both together, in every output.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 14

flat() { awk -v fn="$1" '$6 == fn { print $1; f = 1 } END { if (!f) print 0 }'; }
total() { sed -n 's/^Total: \([-+0-9]*\) B .*/\1/p'; }

prof lg_prof_sample:0,prof_final:true,prof_prefix:s "$TP/seed" >/dev/null
seed=$(one_file 's.*.f.*heap')
"$BIN" report --show-bytes "$seed" >all
all=$(total <all)

"$BIN" report --show-bytes --focus '^do_something$' "$seed" >f1
is "$(total <f1)" 3235840 "--focus '^do_something\$': only its stack counts"
is "$(flat do_something_else <f1)" 0 "the other function is gone"
like "$(sed -n 1p f1)" ", focus '\\^do_something\\\$'\\)\$" "the headline says so"

"$BIN" report --show-bytes --focus do_something "$seed" >f2
is "$(total <f2)" 6430720 "--focus matches anywhere in a name (extended regex)"

"$BIN" report --show-bytes --focus '^main$' "$seed" >f3
is "$(total <f3)" "$all" "--focus on a caller keeps every stack through it"

"$BIN" report --show-bytes --ignore '^do_something$' "$seed" >i1
is "$(total <i1)" $((all - 3235840)) "--ignore drops the stacks with a matching frame"
is "$(flat do_something_else <i1)" 3194880 "and keeps the others"

"$BIN" report --show-bytes --focus 'do_something' --ignore '_else$' "$seed" >fi
is "$(total <fi)" 3235840 "--focus and --ignore together"

"$BIN" report --show-bytes --focus 'no_such_function' "$seed" >none 2>err
is $? 0 "a focus that matches nothing is no error"
is "$(total <none)" 0 "and leaves an empty report"

"$BIN" report --collapsed --ignore 'do_something' "$seed" >c
is "$(grep -c do_something c)" 0 "--ignore applies to --collapsed"
"$BIN" report --svg --focus '^do_something_else$' "$seed" >f.svg
unlike "$(cat f.svg)" '>do_something<' "and to --svg"

prof lg_prof_sample:0,prof_final:true,prof_prefix:cx "$TP/rep_cxx"
cx=$(one_file 'cx.*.f.*heap')
"$BIN" report --show-bytes --focus '^fill$' "$cx" >cf
is "$(total <cf)" 8000 "names are matched as displayed: short names by default"
"$BIN" report --show-bytes --full-names --focus '^fill\(int\)$' "$cx" >cff
is "$(total <cff)" 4000 "full names with --full-names"
done_testing
