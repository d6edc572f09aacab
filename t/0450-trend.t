#!/bin/sh
# heapprof trend: a series of real dumps, ordered by the UTC time in their
# names (then the sequence number, then the command line), ranks the
# stack that grows at every dump first, with its slope, first and last
# values and monotonicity; --functions, --top, --svg (a valid XML chart),
# and dumps of one process from jemalloc.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 34

# rep_grow K keeps K MiB from grow() and 40 KiB from steady().  Run it for
# K = 1..5 in a shuffled order and name each final dump as the library
# names rotated dumps, K minutes apart, with sequence numbers that run
# backwards so that only the times give the right order.
now=$(date +%s)
for k in 3 1 5 2 4; do
	prof lg_prof_sample:0,prof_final:true,prof_prefix:g "$TP/rep_grow" $k
	ts=$(date -u -d "@$((now + 60 * k + 5))" +%Y%m%dT%H%M%SZ)
	trig=i$k
	[ $k = 5 ] && trig=f
	mv "$(one_file 'g.*.f.*heap')" "app.4242.$((10 - k)).$trig.$ts.heap"
	cp "app.4242.$((10 - k)).$trig.$ts.heap" "seq.4242.$k.i$k.heap"
done
set -- app.*.heap

"$BIN" trend "$@" >t 2>err
is $? 0 "trend exits 0"
is "$(cat err)" "" "nothing on stderr"
like "$(sed -n 1p t)" '^Trend of inuse_space over 5 dumps from [0-9-]+ [0-9:]+Z to [0-9-]+ [0-9:]+Z$' \
	"the headline gives the span from the names"
is "$(sed -n 2p t)" "Total: 1.0MiB -> 5.0MiB (+4.0MiB, +1.0MiB/min)" "the total grew 1 MiB a minute"
first=$(sed -n 5p t)
like "$first" ' grow <- main <- ' "the growing stack is ranked first"
like "$first" '^ +\+1\.0MiB/min +1\.0MiB +5\.0MiB +\+4\.0MiB +1\.00  grow' \
	"with its slope, first and last values, delta and monotonicity 1.00"
like "$(sed -n 6p t)" '^ +0B/min +40\.0KiB +40\.0KiB +0B +0\.00  steady <- main' \
	"the steady stack does not grow"
order=$(sed -n '/^Dumps, in order:$/,$p' t | sed 1d | awk '{ print $NF }' | cut -d. -f4 | tr '\n' ' ')
is "$order" "i1 i2 i3 i4 f " "dumps ordered by the times in their names, final dump included"

"$BIN" trend --show-bytes "$@" >tb
like "$(sed -n 5p tb)" '^ +\+1048576/min +1048576 +5242880 +\+4194304 +1\.00  grow' \
	"--show-bytes: exact bytes"
"$BIN" trend --inuse-objects "$@" >to
like "$(sed -n 5p to)" '^ +\+16/min +16 +80 +\+64 +1\.00  grow' "--inuse-objects: 16 objects a minute"
"$BIN" trend --functions --show-bytes "$@" >tf
like "$(sed -n 4p tf)" 'function$' "--functions ranks functions"
like "$(sed -n 5p tf)" '^ +\+1048576/min +1048576 +5242880 +\+4194304 +1\.00  grow$' \
	"grow first, by its flat bytes"
"$BIN" trend --top 1 "$@" >t1
is "$(sed -n '/^ *[-+0-9.]*[KMGi]*B\/min /p' t1 | wc -l | tr -d ' ')" 1 "--top 1: one stack"
"$BIN" trend --focus '^steady$' "$@" >tfo
like "$(sed -n 2p tfo)" '^Total: 40\.0KiB -> 40\.0KiB ' "--focus selects stacks"

# Without times in the names: the sequence numbers, per dump.
"$BIN" trend seq.*.heap >ts
like "$(sed -n 1p ts)" '^Trend of inuse_space over 5 dumps$' "no times: no span"
like "$(sed -n 5p ts)" '^ +\+1\.0MiB/dump +1\.0MiB +5\.0MiB ' "slopes per dump"
order=$(sed -n '/^Dumps, in order:$/,$p' ts | sed 1d | awk '{ print $NF }' | tr '\n' ' ')
is "$order" "seq.4242.1.i1.heap seq.4242.2.i2.heap seq.4242.3.i3.heap seq.4242.4.i4.heap seq.4242.5.i5.heap " \
	"ordered by sequence number"
# Without either: the command line.
for k in 1 2 3; do cp seq.4242.$k.i$k.heap plain$((4 - k)).heap; done
"$BIN" trend plain3.heap plain2.heap plain1.heap >tp
like "$(sed -n 5p tp)" '^ +\+1\.0MiB/dump +1\.0MiB +3\.0MiB ' "other names: command-line order"

# The chart.
"$BIN" trend --svg -o trend.svg "$@"
is $? 0 "--svg -o writes the chart"
xmllint --noout trend.svg 2>err
ok $? "the chart is valid XML"
is "$(cat err)" "" "xmllint has nothing to say"
like "$(cat trend.svg)" '<polyline ' "it draws lines"
like "$(cat trend.svg)" '<title>grow &lt;- main &lt;- .*: 5\.0MiB at [0-9:]+ \(app\.' \
	"points have tooltips with the stack, value, time and dump"
like "$(cat trend.svg)" '>\+1\.0MiB/min  total</text>' "a legend with each line's slope"
unlike "$(cat trend.svg)" 'href=|<script' "self-contained"

# Dumps of one process: jemalloc's prof.dump after each of 4 phases.
LD_PRELOAD=$JEMALLOC MALLOC_CONF=prof:true,lg_prof_sample:0 "$TP/rep_phases" ph 4
"$BIN" trend --show-bytes ph.1.heap ph.2.heap ph.3.heap ph.4.heap >tj
like "$(sed -n 5p tj)" '^ +\+1048576/dump +1048576 +4194304 +\+3145728 +1\.00  grow <- main' \
	"one process under jemalloc: grow first"
is "$(grep -c jemalloc tj)" 0 "jemalloc's frames are trimmed"

# Usage and errors.
"$BIN" trend app.4242.9.i1.*.heap >out 2>err
is $? 2 "one dump is a usage error"
like "$(sed -n 1p err)" '^heapprof trend: needs at least two dumps$' "that says why"
"$BIN" trend --frobnicate "$@" >out 2>err
is $? 2 "an unknown option exits 2"
is "$(sed -n '2,$p' err)" "try 'heapprof trend --help'" "then where the help is"
"$BIN" trend --help >out
like "$(cat out)" '^usage: heapprof trend \[options\] DUMP\.\.\.$' "--help prints the usage"
"$BIN" trend --alloc-space "$@" >out 2>err
is $? 1 "--alloc-space without cumulative counts exits 1"
like "$(cat err)" "has no cumulative counts for --alloc-space" "with the same one line as report"
done_testing
