#!/bin/sh
# heapprof trend --svg: the x axis's labels never overlap, whether the
# dumps are spread evenly or bunched in time (high-water dumps, several in
# a second, then a long quiet): each label keeps clear of the last.
. "$(dirname "$0")/lib.sh"
plan 6

prof lg_prof_sample:0,prof_final:true,prof_prefix:g "$TP/seed" >/dev/null 2>&1
f=$(one_file 'g.*.f.*.heap')
# labels SVG: "x label" of each x-axis label, but the axis's title.
labels() { sed -n 's/^<text x="\([0-9.]*\)" y="[0-9.]*" class="xl">\([^<]*\)<\/text>$/\1 \2/p' "$1" | grep -v ' time (UTC\| dump$'; }
# clear FILE: every label at least its half-widths (12px, 0.64 em a glyph) apart from the next.
clear() { labels "$1" | awk '{ w = length($2 " " $3) * 12 * 0.64 / 2 } NR > 1 && $1 - x < pw + w { bad = 1 } { x = $1; pw = w } END { exit bad }'; }

# Bunched: nine dumps in nine seconds, then one ten minutes later (a day
# from now: dumps written after the binary).
day=$(date -u -d tomorrow +%Y%m%d)
for i in 0 1 2 3 4 5 6 7 8; do cp "$f" "b.4242.$i.u$i.${day}T10000${i}Z.heap"; done
cp "$f" "b.4242.9.u9.${day}T101000Z.heap"
"$BIN" trend --svg -o b.svg b.4242.*.heap 2>err
is "$?:$(cat err)" "0:" "a chart of ten bunched dumps"
n=$(labels b.svg | wc -l)
ok $([ "$n" -ge 2 ]; echo $?) "$n labels along x"
clear b.svg
ok $? "none overlaps another ($(labels b.svg | tr '\n' ' '))"
like "$(labels b.svg | tail -n 1)" ' 10:10:00$' "the last dump's time is labelled"

# Many dumps evenly spread, by number (no times): 60 of them.
for i in $(seq 1 60); do cp "$f" "n.4242.$i.i$i.heap"; done
"$BIN" trend --svg -o n.svg $(for i in $(seq 1 60); do echo "n.4242.$i.i$i.heap"; done) 2>err
is "$?:$(cat err)" "0:" "a chart of 60 dumps without times"
clear n.svg
ok $? "no label overlaps another ($(labels n.svg | wc -l) labels)"
done_testing
