#!/bin/sh
# SQLite's own TCL test suite (Debian's source package, built into
# build/real by make real-progs): 164 of its test/*.test files, about a
# minute bare on a quiet machine (two and a half when four other jobs share
# its two cores).  Each file runs bare, at the default rate and in exact
# mode, one after the other; the preloaded runs must give the bare run's
# exit status and error count, the same failing test cases and the same
# passing ones.  (Threaded tests print progress dots before a case's name:
# they are not part of it.)
#
# SQLite's fault-injection loops (malloc*, *fault*, fts3malloc) name their
# cases after the iteration that succeeded ("...transient.642"): how many
# sqlite3_malloc calls a statement makes depends on malloc_usable_size and
# so on the heap's layout, which the preload shifts: glibc allocates a few
# blocks in the host's heap for heapprof (creating its helper thread,
# pthread_getattr_np for a thread's stack bounds, which for the main
# thread reads /proc/self/maps through stdio).  Those names are compared
# without that last number; everything else exactly.
. "$(dirname "$0")/driver.sh"

TF=$HP_BUILD/real/sqlite/testfixture
TD=$HP_BUILD/real/sqlite-src/test
[ -x "$TF" ] && [ -d "$TD" ] || { echo "Bail out! $TF is missing: run make real-progs"; exit 1; }

# The subset: queries, inserts, triggers, full-text search (fts3, fts5),
# WAL, locking, the pager, SQLite's malloc-failure loops and its threads.
FILES="select1 select2 select3 select4 select5 select6 select7 select8 select9
selectA selectB selectC selectD selectE selectF selectG e_select
insert insert2 insert3 insert4 insert5 insertfault update delete
trigger1 trigger2 trigger3 trigger4 trigger5 trigger6 trigger7 trigger8 trigger9
triggerA triggerB triggerC triggerD triggerE triggerF triggerG
fts3aa fts3ab fts3ac fts3ad fts3ae fts3af fts3ag fts3ah fts3ai fts3aj fts3ak
fts3al fts3am fts3an fts3ao fts3b fts3c fts3d fts3e fts3f fts3query
fts3snippet fts3malloc
../ext/fts5/test/fts5aa ../ext/fts5/test/fts5ab ../ext/fts5/test/fts5ad
../ext/fts5/test/fts5ae ../ext/fts5/test/fts5af ../ext/fts5/test/fts5ag
../ext/fts5/test/fts5ah ../ext/fts5/test/fts5ai ../ext/fts5/test/fts5ak
../ext/fts5/test/fts5al ../ext/fts5/test/fts5fault2 ../ext/fts5/test/fts5fault3
wal wal2 wal3 wal4 wal5 wal6 wal7 wal8 wal9 lock lock2 lock3 lock4 lock5
lock6 lock7 pager1 savepoint vacuum vacuum2 btree01 btree02
malloc3 malloc4 malloc5 malloc6 malloc7 malloc8 malloc9 mallocA mallocB
mallocC mallocD mallocE mallocF mallocG mallocH mallocI mallocJ mallocK
mallocL mallocM
thread001 thread002 thread005 thread1 thread2
func func2 func3 func4 func5 func6 func7 where where2 where3 where4 where5
where6 where7 where8 where9 json101 json102 json103 json104 json105 window1
index index2 index3 index4 index5 index6 index7 index8 index9
join join2 join3 join4 join5 join6 join7 join8 join9 expr"
nfiles=$(echo $FILES | wc -w)
plan $((nfiles * 2))

# result OUTPUT STATUS: the run's result lines, sorted.
result() {
	echo "status $2"
	grep -E '^[0-9]+ errors out of [0-9]+ tests' "$1" | sed 's/ tests .*//; s/out of [0-9]*//'
	sed -n 's/^!Failures on these tests: //p' "$1" | tr ' ' '\n' | grep . | sed 's/^/FAIL /' | sort -u
	sed -n 's/^\.*\([^ !.][^ ]*\)\.\.\..*/\1/p' "$1" |
		sed -E 's/^(.*(transient|persistent).*)\.[0-9]+$/\1.N/' | sed 's/^/case /' | sort -u
}

cases() { grep -cE '^\.*[^ !.][^ ]*\.\.\.' "$1"; }

totb=0 totd=0 tote=0 failb=0 faild=0 faile=0
for f in $FILES; do
	n=$(basename "$f")
	tb=0 td=0 te=0
	for m in $REAL_MODES; do
		mkdir -p "$T_DIR/run" && cd "$T_DIR/run" || exit 1
		real_run "$n" "$m" timeout 300 "$TF" "$TD/$f.test"
		o=$REAL_OUT/$n.$m
		result "$o.out" "$(cat "$o.rc")" >"$o.res"
		c=$(cases "$o.out")
		case $m in
		bare) tb=$(cat "$o.ms") totb=$((totb + c)) failb=$((failb + $(grep -c '^FAIL' "$o.res"))) ;;
		default) td=$(cat "$o.ms") totd=$((totd + c)) faild=$((faild + $(grep -c '^FAIL' "$o.res"))) ;;
		exact) te=$(cat "$o.ms") tote=$((tote + c)) faile=$((faile + $(grep -c '^FAIL' "$o.res"))) ;;
		esac
		cd "$T_DIR" && rm -rf "$T_DIR/run"
	done
	real_compare "$n" "status, errors, failing and passing cases"
	real_time "$n" "$tb" "$td" "$te"
	# Kept for reading: the outputs of files whose results differ.
	if cmp -s "$REAL_OUT/$n.bare.res" "$REAL_OUT/$n.default.res" &&
		cmp -s "$REAL_OUT/$n.bare.res" "$REAL_OUT/$n.exact.res"; then
		rm -f "$REAL_OUT/$n".*.out
	fi
done

real_fact "test files: $nfiles; cases run: bare $totb, default $totd, exact $tote"
real_fact "failing cases: bare $failb, default $faild, exact $faile"
real_summary
done_testing
