#!/bin/sh
# Rust, built with Debian's /usr/bin/rustc (make deps; never a rustup
# toolchain found on PATH), no cargo:
#   rs-threads    t/prog/rs_threads.rs starting REAL_RUST_THREADS threads
#                 (default 20,000) one after another, each allocating;
#                 every std::thread asks glibc for its own stack before it
#                 allocates, where heapprof once deadlocked (issue 18)
#   rs-pipeline   t/real/rs_pipeline.rs: mpsc channels (one bounded)
#                 between a producer, a pool of workers and a collector,
#                 HashMaps of words, formatted output, panics caught with
#                 catch_unwind in the workers and one thread's panic
#                 returned by join, scoped threads (REAL_RUST_JOBS jobs,
#                 default 20,000)
# Each runs bare, at the default rate, in exact mode and under heapprof
# check, and must give the bare run's status, standard output and
# standard error (heapprof's own lines aside).  The programs are built in
# the scratch directory, so heapprof check counts them: the gate must
# find no leak in either (its status is then the program's, and it must
# say it counted the process).
#
# Every run is under timeout -s KILL (REAL_RUST_TIMEOUT seconds, default
# 300): a hang is a status of 137 that differs from bare.
. "$(dirname "$0")/driver.sh"

RUSTC=/usr/bin/rustc
[ -x "$RUSTC" ] || { echo "Bail out! $RUSTC is missing: run make deps"; exit 1; }
NT=${REAL_RUST_THREADS:-20000}
NJ=${REAL_RUST_JOBS:-20000}
TMO=${REAL_RUST_TIMEOUT:-300}
plan 12

"$RUSTC" -O -o "$T_DIR/rs_threads" "$SRC/t/prog/rs_threads.rs" 2>"$REAL_OUT/rustc.threads.err"
ok $? "$RUSTC builds t/prog/rs_threads.rs"
"$RUSTC" -O -o "$T_DIR/rs_pipeline" "$_real_t/rs_pipeline.rs" 2>"$REAL_OUT/rustc.pipeline.err"
ok $? "$RUSTC builds t/real/rs_pipeline.rs"


real_run_all rs-threads $TMO "$T_DIR/rs_threads" "$NT"
real_run_all rs-pipeline $TMO "$T_DIR/rs_pipeline" "$NJ"

# The bare runs themselves: what the others are held to.
is "$(cat "$REAL_OUT/rs-threads.bare.rc") $(cat "$REAL_OUT/rs-threads.bare.out")" \
	"0 threads $NT" "bare: rs_threads exits 0 after $NT threads"
like "$(cat "$REAL_OUT/rs-pipeline.bare.rc") $(tr '\n' ' ' <"$REAL_OUT/rs-pipeline.bare.out")" \
	"^0 jobs $NJ handled $NJ .* caught index +[1-9].* joined a panicked thread: \"uncaught in doomed\" panic hook ran [1-9]" \
	"bare: rs_pipeline exits 0, every job handled, panics caught and joined"

real_compare rs-threads "status, stdout ('threads $NT'), stderr" "default exact check"
real_compare rs-pipeline "status, stdout, stderr" "default exact check"

for n in rs-threads rs-pipeline; do
	like "$(cat "$REAL_OUT/$n.check.err")" '^heapprof check: no leaks in 1 counted process' \
		"$n: heapprof check counted the Rust program and found no leak"
done

real_fact "rustc: $("$RUSTC" --version); rs_threads: $NT threads; rs_pipeline: $NJ jobs," \
	"$(sed -n 's/^panic hook ran \([0-9]*\) times.*/\1 panics/p' "$REAL_OUT/rs-pipeline.bare.out")"
for m in default exact check; do
	real_fact "$m: statuses rs_threads $(cat "$REAL_OUT/rs-threads.$m.rc"), rs_pipeline" \
		"$(cat "$REAL_OUT/rs-pipeline.$m.rc"); heapprof's lines:$(cat "$REAL_OUT"/*."$m".err |
		grep -e '^<heapprof>: ' -e '^heapprof check: ' | sed -E 's/pid [0-9]+/pid N/' |
		sort | uniq -c | awk '{ $1 = $1; printf " [%s]", $0 }')"
done
real_summary
done_testing
