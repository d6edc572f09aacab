#!/bin/sh
# The benchmark suite runs end to end on tiny sizes (the figures mean
# nothing at this size; `make bench` measures): every workload under
# every configuration, thread scaling, the repeated default-rate runs,
# callgrind, dumps and the report
# comparison, with the Markdown results and the SVG chart written.
. "$(dirname "$0")/lib.sh"
plan 18

M=$HP_BUILD/bench/measure
[ -x "$M" ] || { echo "Bail out! $M is missing: run make check"; exit 1; }

# measure itself: status, timeout and peak RSS.
like "$("$M" -- true)" '^[0-9.]+ [0-9]+ ok$' "measure: a command that succeeds"
like "$("$M" -- sh -c 'exit 3')" ' exit:3$' "measure: an exit status"
like "$(FOO=no "$M" -E FOO=yes -- sh -c 'test "$FOO" = yes')" ' ok$' "measure: -E sets the command's environment"
like "$("$M" -t 1 -- sleep 30)" '^1\.[0-9]+ [0-9]+ timeout$' "measure: a timeout kills the command after 1 s"
rss=$("$M" -- python3 -c 'b = bytearray(64 << 20); print(len(b))' | awk '{ print $2 }')
ok $([ "$rss" -gt 65536 ] && [ "$rss" -lt 200000 ]; echo $?) "measure: peak RSS of a 64 MiB process ($rss KiB)"

perl "$SRC/bench/run" --tiny --results R.md --svg r.svg >out 2>err
is $? 0 "bench/run --tiny exits 0"
[ $? -eq 0 ] || diag "$(tail -n 20 err)"

# Every configuration ran every workload, and none failed.
for c in glibc hp hp-exact je hp-je je-prof je-exact tc tc-heapprofile heaptrack; do
	grep -q "^| $c | [0-9]" out || echo "$c" >>missing
done
is "$(cat missing 2>/dev/null)" "" "the time and RSS tables have a row for every configuration"
unlike "$(sed -n '/^### Wall time/,/^### Overhead/p' out)" 'fails' "no configuration failed on a tiny workload"
like "$(cat out)" '^\| hp \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$' \
	"heapprof's row has a ratio for each of the five workloads"
like "$(cat out)" '^\| churn \(2 x 1 M\) \| [0-9,]+ \| [0-9,]+ \| [+-][0-9.]+% \| [0-9,]+ \| [0-9,]+ \| [+-][0-9.]+% \|$' \
	"callgrind counted churn's instructions with and without heapprof, over glibc and jemalloc"
like "$(sed -n '/^### Instructions with sampling paused/,/^Paused/p' out)" \
	'^\| churn \(2 x 1 M\) \| [0-9,]+ \| [0-9,]+ \| [+-][0-9.]+% \| [+-][0-9.]+% \| [0-9,]+ \| [0-9,]+ \| [+-][0-9.]+% \| [+-][0-9.]+% \|$' \
	"callgrind counted churn with sampling paused, over glibc and jemalloc, beside the default rate"
like "$(cat out)" '^\| 1,000 \| [0-9.]+ \| [0-9.]+ MB \| [0-9.]+ \| [0-9.]+ MB \|$' \
	"dump latency, heapprof and jemalloc, with the dump sizes"
like "$(cat out)" '^\| signal \| [0-9,]+ \| [0-9.]+ \| [0-9]+ \| [0-9]+ \| [1-9][0-9]* \|$' "malloc stalls while the helper writes dumps"
like "$(cat out)" '^\| cc1 \| [0-9.]+ s \| [0-9.]+ s \| [+-][0-9.]+% \| [0-9.]+ s \| [0-9.]+ s \| [+-][0-9.]+% \|$' \
	"the repeated runs: cc1 under glibc and heapprof, medians and minimums"
like "$(cat out)" '^report-text +[0-9.]+ +[0-9.]+x$' "report against jeprof"
like "$(sed -n '/^## Targets/,$p' R.md)" '^\| a dump of 10k stacks|^\| default rate, churn instructions' \
	"R.md has the targets, with what was measured"
perl "$SRC/bench/run" --tiny --only repeat --results R.md --append >out2 2>err2
ok $([ $? -eq 0 ] && grep -q '^# heapprof benchmarks$' R.md && grep -q '^# heapprof benchmarks: a later run$' R.md \
	&& grep -q '^## Targets' R.md; echo $?) "--append adds a later run after the first, which stays"
xmllint --noout r.svg 2>xerr && grep -q '<title>heaptrack on cc1: ' r.svg
ok $? "the chart is valid SVG with a bar per configuration and workload"
done_testing
