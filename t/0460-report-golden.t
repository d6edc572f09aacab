#!/bin/sh
# Golden tests of the report engine: heapprof report (text, --lines,
# --alloc-space, --inuse-objects --top, --tree, --collapsed, --json,
# --pprof decoded by go tool pprof -raw, --svg, --base both ways, the
# jemalloc layout with threads, a sampled dump, and the notes on stderr)
# and heapprof trend (text, --functions, --svg), each compared whole with
# a file in t/golden/expected/ by diff -u, which is printed on failure.
#
# The inputs are committed (see t/golden/README): the program
# t/golden/golden and dumps of it in t/golden/dumps/, whose paths read
# @GOLDEN@ where this checkout's t/golden goes.  Nothing in the outputs is
# normalised but that path, put back to @GOLDEN@ before comparing.
#
# After an intended change in an output, rewrite the expected files and
# review the difference:
#     HP_GOLDEN_UPDATE=1 HP_BUILD=$PWD/build HP_SRC=$PWD prove t/0460-report-golden.t
#     git diff t/golden/expected
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 19

G=$SRC/t/golden
EXP=$G/expected

# The dumps, under their own names, with this checkout's path.
for d in "$G"/dumps/*.heap; do
	G=$G perl -pe 's/\@GOLDEN\@/$ENV{G}/g' "$d" >"${d##*/}"
done

# golden NAME DESCRIPTION: the file out, with this checkout's t/golden put
# back to @GOLDEN@, must be expected/NAME (HP_GOLDEN_UPDATE=1: becomes it).
golden() {
	G=$G perl -pe 's/\Q$ENV{G}\E/\@GOLDEN\@/g' out >got
	if [ -n "${HP_GOLDEN_UPDATE:-}" ] && ! cmp -s got "$EXP/$1"; then
		mkdir -p "$EXP" && cp got "$EXP/$1" && diag "updated t/golden/expected/$1"
	fi
	if diff -u "$EXP/$1" got >d 2>&1; then
		ok 0 "$2"
	else
		ok 1 "$2"
		diag "$(cat d)"
	fi
}

# run CMD...: CMD's output in out; its status and stderr are shown when it
# fails (the comparison then fails too).
run() {
	"$@" >out 2>err
	_rc=$?
	[ $_rc -eq 0 ] || diag "$* exited $_rc:" "$(cat err)"
}

# ---- report: text --------------------------------------------------------
run "$BIN" report gperf.heap
golden text.txt "text (the default): functions by flat value, sizes for people"
cp err out
golden text.stderr "the notes on stderr: libc and ld.so are shown as offsets"
run "$BIN" report --show-bytes --lines gperf.heap
golden text-lines.txt "--show-bytes --lines: exact bytes, file:line per row, inlined new_node"
run "$BIN" report --alloc-space gperf.heap
golden text-alloc.txt "--alloc-space: the cumulative counts, churn included"
run "$BIN" report --inuse-objects --top 5 gperf.heap
golden text-objects-top.txt "--inuse-objects --top 5"

# ---- report: other outputs -----------------------------------------------
run "$BIN" report --tree gperf.heap
golden tree.txt "--tree: call paths, recursion in nest"
run "$BIN" report --collapsed gperf.heap
golden collapsed.txt "--collapsed"
run "$BIN" report --json gperf.heap
golden json.json "--json"
run "$BIN" report --pprof -o gperf.pb.gz gperf.heap
# go tool pprof -raw prints every sample, location (address, mapping,
# functions, file:line), mapping and the comment; nothing in it depends on
# the time or the machine (the profile has no time), and -symbolize=none
# keeps it from looking for the binaries.
run go tool pprof -raw -symbolize=none gperf.pb.gz
golden pprof.raw "--pprof, decoded by go tool pprof -raw"
run "$BIN" report --svg gperf.heap
golden svg.svg "--svg"

# ---- report: other inputs ------------------------------------------------
run "$BIN" report --show-bytes --base base.heap gperf.heap
golden base.txt "--base: grow grew by 2 blocks, everything else cancels across ASLR"
run "$BIN" report --show-bytes --base gperf.heap base.heap
golden base-shrank.txt "--base the other way: a decrease, with its note"
run "$BIN" report --collapsed --base gperf.heap base.heap
golden base-shrank-collapsed.txt "--collapsed --base: a negative line"
run "$BIN" report --show-bytes jemalloc.heap
golden jemalloc.txt "jemalloc layout with named threads: the t* rows count"
run "$BIN" report --show-bytes --tree sampled.heap
golden sampled-tree.txt "a sampled dump: values scaled as jeprof scales them"
run "$BIN" report --json --inuse-objects sampled.heap jemalloc.heap
golden sum.json "--json --inuse-objects of two dumps, both layouts, summed"

# ---- trend ---------------------------------------------------------------
set -- series.1000.1.i1.heap series.1000.2.i2.heap series.1000.3.i3.heap series.1000.4.f.heap
run "$BIN" trend "$4" "$2" "$1" "$3"
golden trend.txt "trend: dumps ordered by sequence number, grow ranked first"
run "$BIN" trend --functions --show-bytes "$@"
golden trend-functions.txt "trend --functions --show-bytes"
run "$BIN" trend --svg "$@"
golden trend.svg "trend --svg"
done_testing
