#!/bin/sh
# heapprof report --list REGEX: the source lines of the matching
# functions with the bytes of each line, as go tool pprof -list prints
# them: on views, whose lines allocate known bytes (found in its source by
# grep, not written here), the same figures as go tool pprof -list on the
# same dump; inlined and recursive functions; a source that cannot be read
# and a frame without lines, each said in one line; no match, a bad regex.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 22

V=$SRC/t/prog/views.c
# line TEXT: the number of the line of views.c that holds TEXT.
line() { grep -n -F -- "$1" "$V" | head -n 1 | cut -d: -f1; }
# line_after START TEXT: the first line holding TEXT after the one holding START.
line_after() { awk -v s="$1" -v t="$2" 'index($0, s) { on = 1 } on && index($0, t) { print NR; exit }' "$V"; }
# row N: --list's row for line N in out, its columns squeezed.
row() { grep -E "^ +[^ ]+ +[^ ]+ +$1:" out | sed 's/^ *//; s/:.*//; s/  */ /g'; }

prof lg_prof_sample:0,prof_final:true,prof_prefix:v "$TP/views" 4
views=$(one_file 'v.*.f.*heap')

"$BIN" report --list '^lines$' --show-bytes "$views" >out 2>err
is $? 0 "--list '^lines\$' exits 0"
like "$(head -n 1 out)" '^Total: [0-9]+ B \(inuse_space, 1 dump\)$' "under the usual headline"
like "$(cat out)" "^ROUTINE =+ lines in $V\$" "one routine: lines() in views.c"
like "$(cat out)" '^ +13000 +20000 \(flat, cum\) 0\.3% of Total$' "its flat and cum bytes"
start=$(line 'static void lines(void)')
like "$(sed -n 4p out)" "^ +\\. +\\. +$start:__attribute__" "listed from the function's first line, $start"
is "$(row "$(line 'malloc(1000)')")" "3000 3000 $(line 'malloc(1000)')" "3 x 1000 bytes on their line"
is "$(row "$(line 'malloc(2000)')")" "10000 10000 $(line 'malloc(2000)')" "5 x 2000 bytes on theirs"
is "$(row "$(line 'fill(7000)')")" ". 7000 $(line 'fill(7000)')" \
	"fill(7000), inlined: cum on the call's line, not flat"
last=$(line 'fill(7000)')
like "$(tail -n 1 out)" " $((last + 5)):" "to five lines after the last with bytes"

"$BIN" report --list '^fill$' --show-bytes "$views" >out
is "$(row "$(line 'return malloc(n);')")" "7000 7000 $(line 'return malloc(n);')" \
	"fill(), the inlined function, has them on its own line"

"$BIN" report --list '^deep$' --show-bytes "$views" >out
is "$(row "$(line 'deep(d - 1);')")" ". 65536 $(line 'deep(d - 1);')" \
	"deep(), 121 frames deep: the recursive call counts its 65536 bytes once"
m=$(line_after 'static void deep(int d)' 'malloc(65536)')
is "$(row "$m")" "65536 65536 $m" \
	"and the malloc line has them flat"

# ---- go tool pprof -list on the same dump ---------------------------------
"$BIN" report --pprof -o views.pb.gz "$views"
# values FILE: the rows with a value, as "line flat cum".
values() { sed -n 's/^ *\([^ ]*\) *\([^ ]*\) *\([0-9]*\):.*/\3 \1 \2/p' "$1" | sed 's/B\b//g' | grep -v ' \. \.$'; }
for re in '^lines$' '^fill$' '^deep$' '^grows$'; do
	"$BIN" report --list "$re" --show-bytes "$views" >ours
	go tool pprof -list "$re" -unit=byte views.pb.gz >theirs 2>/dev/null
	is "$(values ours)" "$(values theirs)" "go tool pprof -list '$re' gives the same bytes on the same lines"
done

# ---- what cannot be shown ------------------------------------------------
# The golden dumps (t/golden): their binary names its source
# /heapprof-src/t/golden/golden.c, which is not there; libc.so.6 is
# absent, its frames are offsets.
G=$SRC/t/golden
G=$G perl -pe 's/\@GOLDEN\@/$ENV{G}/g' "$G/dumps/gperf.heap" >gperf.heap
"$BIN" report --list '^grow$' --show-bytes gperf.heap >out
like "$(cat out)" '^    cannot read /heapprof-src/t/golden/golden\.c: No such file or directory; the lines with values:$' \
	"a source that is not there: one line saying so"
like "$(cat out)" '^ +196608 +196608 +28$' "then the lines with bytes, without their text"
"$BIN" report --list '^libc' gperf.heap >out
like "$(cat out)" '^    no source information: no line table for it \(see --debug-dir\)$' \
	"a frame with no line table: one line"
"$BIN" report --list 'no_such_function' "$views" >out 2>err
is $? 1 "no match: status 1"
is "$(cat err)" "heapprof: --list 'no_such_function': no function matches" "with one line"
"$BIN" report --list '(' "$views" >out 2>err
is $? 2 "a bad regex is a usage error"
done_testing
