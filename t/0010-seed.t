#!/bin/sh
# The seed example in exact mode: the leak summary, the final dump's name,
# mode and contents, read by jeprof and by go tool pprof, in both formats.
. "$(dirname "$0")/lib.sh"
plan 20

# jemalloc's seed example, with jemalloc's meaning of a leak: live at exit.
prof lg_prof_sample:0,prof_leak:true,leak_check:live "$TP/seed" >out 2>err
st=$?
is $st 0 "the program's exit status is unchanged"
is "$(cat out)" "seed: allocated" "its output is unchanged"
is "$(sed -n 1p err)" "<heapprof>: Leak approximation summary: ~6430720 bytes, ~120 objects, >= 2 contexts" \
	"exact leak summary"
dump=$(one_file 'heapprof.*.f.*heap')
like "$dump" '^heapprof\.[0-9]+\.0\.f\.[0-9]{8}T[0-9]{6}Z\.heap$' "final dump named <prefix>.<pid>.<seq>.f.<UTC time>.heap"
like "$(sed -n 2p err)" "^<heapprof>: Run $BIN report $T_DIR/$dump for leak detail\$" \
	"the second line names the dump and the heapprof command beside the library"
cmd=$(sed -n 's/^<heapprof>: Run \(.*\) for leak detail$/\1/p' err)
$cmd >report 2>&1
like "$(sed -n 1p report)" '^Total: 6\.1MiB \(inuse_space, 1 dump\)$' "that command, pasted, reports the leak"
is "$(stat -c %a "$dump")" 600 "the dump is mode 0600"
is "$(ls -A | grep -c '\.tmp$')" 0 "no temporary file is left behind"
like "$(sed -n 1p "$dump")" '^heap profile: [0-9]+: [0-9]+ \[0: 0\] @ heapprofile$' "gperftools header: exact counts (heapprofile)"
like "$(cat "$dump")" '^MAPPED_LIBRARIES:$' "maps section present"

is "$(jeprof_bytes "$TP/seed" "$dump" do_something)" 3235840 "jeprof: do_something holds 3235840 bytes"
is "$(jeprof_bytes "$TP/seed" "$dump" do_something_else)" 3194880 "jeprof: do_something_else holds 3194880 bytes"

pp=$(go tool pprof -top -unit=byte "$TP/seed" "$dump" 2>/dev/null)
like "$pp" '^ *3235840B .* do_something$' "pprof: do_something 3235840 bytes"
like "$pp" '^ *3194880B .* do_something_else$' "pprof: do_something_else 3194880 bytes"
objs=$(go tool pprof -top -sample_index=inuse_objects "$TP/seed" "$dump" 2>/dev/null)
like "$objs" '^ *80 .* do_something$' "pprof: do_something 80 objects"

# The jemalloc layout: per-thread rows, read by jeprof with the same totals.
rm -f heapprof.*.heap
prof lg_prof_sample:0,prof_final:true,dump_format:jemalloc,prof_prefix:je "$TP/seed" >/dev/null 2>&1
dump=$(one_file 'je.*.f.*heap')
is "$(sed -n 1p "$dump")" "heap_v2/1" "jemalloc layout header"
like "$(sed -n 2,3p "$dump")" '^  t0: [0-9]+: [0-9]+ \[0: 0\] seed$' "main thread row with its name"
is "$(jeprof_bytes "$TP/seed" "$dump" do_something)" 3235840 "jeprof reads the jemalloc layout"

# The default meaning: no longer reachable.  The last block is still held
# by the global sink, as valgrind says (6270976 bytes definitely lost).
rm -f *.heap
prof lg_prof_sample:0,prof_leak:true "$TP/seed" >out 2>err
is "$(grep 'Leak approximation' err)" "<heapprof>: Leak approximation summary: ~6270976 bytes, ~119 objects, >= 2 contexts (direct 6270976 bytes in 119 objects, indirect 0 bytes in 0 objects)" \
	"by default the summary counts what is unreachable, with the split"
like "$(grep 'for leak detail' err)" '^<heapprof>: Run .* report .*/heapprof\.[0-9]+\.[0-9]+\.l0\.[0-9TZ]+\.heap for leak detail$' \
	"and names the leak dump"
done_testing
