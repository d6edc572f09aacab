#!/bin/sh
# The public API (include/heapprof.h): without the library every call
# returns ENOSYS and does nothing; with it, dumps by path and by automatic
# name, pause and resume (idempotent), thread names, reset, option reads,
# four threads dumping at once.  And a program written for jemalloc gets
# heapprof's dump from mallctl("prof.dump"), while jemalloc keeps its own
# names.
. "$(dirname "$0")/lib.sh"
plan 19

mkdir d
"$TP/api" d >without
is "$(sed -n 1p without)" "loaded 0" "without heapprof: not loaded"
is "$(grep -vc ' 38$\| 38 \| -1$\|^loaded 0$\|failed 4$' without)" 0 "every call returns ENOSYS (active: -1)"
is "$(ls d | wc -l)" 0 "and nothing is written"

HEAPPROF_CONF=lg_prof_sample:0,dump_format:jemalloc,prof_prefix:d/auto LD_PRELOAD=$LIB "$TP/api" d >with 2>err
is $? 0 "with heapprof: exit 0"
is "$(grep -c ' 0$' with)" 12 "the calls succeed (0) and the paused state reads 0"
like "$(cat with)" '^active 0$' "pausing takes effect"
like "$(cat with)" '^name read 0 api-main$' "the thread name reads back"
like "$(cat with)" '^opt.prof_prefix 0 d/auto$' "opt.* reads the configuration"
like "$(cat with)" '^unknown 2$' "an unknown name: ENOENT"
like "$(cat with)" '^bad size 22$' "a wrong size: EINVAL"
is "$(grep -c 'sampling paused (API)' err)" 1 "pausing twice logs once"
is "$(jeprof_bytes "$TP/api" d/explicit.heap leak)" 100000 "heapprof_dump(path) wrote the profile there"
ok $(ls d/auto.*.m0.*.heap >/dev/null 2>&1; echo $?) "heapprof_dump(NULL) wrote d/auto.<pid>.<seq>.m0.<time>.heap"
is "$(for i in 0 1 2 3; do jeprof_bytes "$TP/api" d/thread-$i.heap leak; done | sort -u)" 100000 \
	"four concurrent dumps, all complete; the 200000 bytes allocated while paused are not sampled"
is "$(jeprof_bytes "$TP/api" d/after-reset.heap leak)" 400000 "after heapprof_reset only later allocations count"
like "$(sed -n 2,9p d/after-reset.heap)" '^  t0: [0-9]+: [0-9]+ \[0: 0\] api-main$' "the jemalloc layout shows the thread's name"
is "$(grep -c 'failed 0$' with)" 1 "no concurrent dump failed"

# A jemalloc program's mallctl.
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:je LD_PRELOAD=$LIB "$TP/je_app" >out 2>err
is "$(cat out)" "prof.dump 0
stats.allocated 0 plausible" "mallctl(\"prof.dump\") is heapprof's; stats.allocated is still jemalloc's"
is "$(jeprof_bytes "$TP/je_app" "$(one_file 'je.*.m0.*.heap')" leak)" 123456 "and the dump holds the program's heap"
done_testing
