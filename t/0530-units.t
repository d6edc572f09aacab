#!/bin/sh
# One unit convention: sizes are bytes or binary multiples named KiB, MiB,
# GiB (powers of 1024), in the library's log lines, heapprof ps, and every
# output of heapprof report and trend; never kB, MB or GB.  One decimal,
# rounded, and the next unit where that would read 1024.0.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 15

si='[0-9](kB|MB|GB|TB)'
# tiny 1 BYTES keeps BYTES + 4188 bytes at exit (with stdout's buffer).
prof lg_prof_sample:0,prof_final:true,prof_prefix:a "$TP/tiny" 1 3221225 >out 2>log
d=$(one_file 'a.*.f.*heap')
like "$(cat log)" '^<heapprof>: dump .*: ~3\.1 MiB live in ' "the library's log line: MiB"
"$BIN" report "$d" >text
like "$(cat text)" '^Total: 3\.1MiB \(inuse_space, 1 dump\)$' "report --text: MiB"
like "$(cat text)" ' 20B .* one_byte$' "bytes as B"
"$BIN" report --tree "$d" >tree
"$BIN" report --svg "$d" >svg
"$BIN" report --html "$d" >html
"$BIN" report --graph "$d" >dot
"$BIN" report --list 'sized' "$d" >list 2>/dev/null
cp "$d" b.1.0.f.heap
cp "$d" b.1.1.f.heap
"$BIN" trend b.1.0.f.heap b.1.1.f.heap >trend
"$BIN" trend --svg b.1.0.f.heap b.1.1.f.heap >trend.svg
for f in tree svg dot list trend trend.svg; do
	ok $(grep -qE 'MiB' $f && ! grep -qE "$si" $f; echo $?) "report/trend $f: MiB, no kB/MB/GB"
done
like "$(cat html)" 'units = \["KiB", "MiB", "GiB"' "the HTML page's script names KiB, MiB, GiB"
unlike "$(cat html)" '"kB", "MB"' "and not kB, MB"

# The edge: just under 1 MiB reads 1.0 MiB, not 1024.0 KiB, everywhere.
prof lg_prof_sample:0,prof_final:true,prof_prefix:e "$TP/tiny" 1 1044362 >out 2>log
e=$(one_file 'e.*.f.*heap')
total=$("$BIN" report --show-bytes "$e" | sed -n 's/^Total: \([0-9]*\) B .*/\1/p')
ok $([ "$total" -ge 1048525 ] && [ "$total" -lt 1048576 ]; echo $?) "a dump of $total bytes: just under 1 MiB"
like "$(cat log)" 'live: ~1\.0 MiB|~1\.0 MiB live' "the log rounds it to 1.0 MiB"
like "$("$BIN" report "$e" | sed -n 1p)" '^Total: 1\.0MiB ' "so does the report"

# heapprof ps: the live heap in the same units.
export HEAPPROF_RUNTIME_DIR=$T_DIR/run
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/p "$BIN" run "$TP/idle" 30 2 >/dev/null 2>&1 &
pid=$!
n=0
while ! grep -qs '^live_bytes=[1-9]' "run/$pid" && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
like "$("$BIN" ps | grep "^$pid ")" "^$pid +active +0 +2\\.0 MiB " "heapprof ps: 2.0 MiB"
kill -TERM $pid
wait $pid 2>/dev/null
done_testing
