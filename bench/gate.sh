#!/bin/sh
# bench/gate.sh -- the leak gate against LeakSanitizer and valgrind, side by
# side in one run (issue 22's workloads):
#   bigheap    a 1 GiB heap in 10 M blocks of 107 bytes, 1000 of them lost
#              (bench/bigheap.c)
#   shuffled   the same heap with its chain in a random order: every block
#              reached misses the cache, as in a real heap
#   forktests  20 tests, each in a forked child of a 1 M-block fixture, as
#              libcheck's CK_FORK runs them; every third test leaks a block
#              (bench/forktests.c)
#   perl       perl -e 'my %h; $h{$_} = "x" x 20 for 1..300000'
# under four configurations: bare, heapprof check (the gate: every
# allocation recorded, the reachability scan at each exit), LeakSanitizer
# (the same source built with gcc -fsanitize=leak; perl through
# LD_PRELOAD=liblsan.so.0) and valgrind --leak-check=full.  Configurations
# are alternated within each round, so that the machine's drift hits them
# alike.  Prints Markdown: wall seconds (medians) and ratios to bare, peak
# RSS, the exit scan's own milliseconds (heapprof's debug line, from runs
# of their own with log_level:debug: each process's scan, summed over the
# processes of a run, and the longest) and the leaks each tool found.
#
# usage: sh bench/gate.sh [--tiny] [WORKLOAD...]
#   GATE_ROUNDS (default 5) rounds of bare, heapprof and LeakSanitizer;
#   GATE_VG_ROUNDS (default 1) of valgrind, which takes minutes;
#   GATE_SCAN_ROUNDS (default 3) of the debug runs for the scan's time.
# --tiny runs everything once on small sizes (t/0950 keeps it working).
# make bench-gate builds what it needs and runs it; bench/gate.results
# holds a run before and after the scan's index.
set -u
B=${HP_BUILD:-build}
LIB=$B/libheapprof.so
HP=$B/heapprof
BB=$B/bench
M=$BB/measure
ROUNDS=${GATE_ROUNDS:-5}
VG_ROUNDS=${GATE_VG_ROUNDS:-1}
SCAN_ROUNDS=${GATE_SCAN_ROUNDS:-3}
TINY=0
if [ "${1:-}" = --tiny ]; then
	TINY=1 ROUNDS=1 VG_ROUNDS=1 SCAN_ROUNDS=1
	shift
fi
WORKLOADS=${*:-bigheap shuffled forktests perl}
for f in "$LIB" "$HP" "$M" "$BB/bigheap" "$BB/bigheap-lsan" "$BB/forktests" "$BB/forktests-lsan"; do
	[ -x "$f" ] || [ -e "$f" ] || { echo "gate.sh: $f is missing: make bench-gate builds it" >&2; exit 1; }
done
LSAN=
for d in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib; do
	[ -e "$d/liblsan.so.0" ] && LSAN=$d/liblsan.so.0 && break
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

if [ $TINY = 1 ]; then
	BIG="16 107 10" FORK="10000 4" PERLN=3000
else
	BIG="1024 107 1000" FORK="1000000 20" PERLN=300000
fi
PERLPROG="my %h; \$h{\$_} = \"x\" x 20 for 1..$PERLN"

# cmd WORKLOAD CONFIG: the command line (words; perl's program is $PERLPROG)
cmd() {
	case $1 in
	bigheap) prog="$BB/bigheap $BIG" lsan="$BB/bigheap-lsan $BIG" ;;
	shuffled) prog="$BB/bigheap $BIG shuffle" lsan="$BB/bigheap-lsan $BIG shuffle" ;;
	forktests) prog="$BB/forktests $FORK" lsan="$BB/forktests-lsan $FORK" ;;
	perl) prog="perl -e" lsan="perl -e" ;;
	esac
	case $2 in
	bare) echo "$prog" ;;
	heapprof) echo "$HP check --all -- $prog" ;;
	lsan) if [ $1 = perl ]; then echo "-E LD_PRELOAD=$LSAN -- $lsan"; else echo "$lsan"; fi ;;
	valgrind) echo "valgrind --leak-check=full --log-file=$T/vg.%p $prog" ;;
	esac
}

# run WORKLOAD CONFIG: one measured run; appends "secs rssKiB" to
# $T/WORKLOAD.CONFIG and keeps standard error in $T/WORKLOAD.CONFIG.err
run() {
	c=$(cmd "$1" "$2")
	rm -f "$T"/vg.*
	case $c in
	-E*) set -- "$1" "$2" $c ;;
	*) set -- "$1" "$2" -- $c ;;
	esac
	w=$1 k=$2
	shift 2
	if [ $w = perl ]; then
		out=$("$M" -t 1200 -e "$T/$w.$k.err" "$@" "$PERLPROG")
	else
		out=$("$M" -t 1200 -e "$T/$w.$k.err" "$@")
	fi
	echo "$out" | awk '{ print $1, $2, $3 }' >>"$T/$w.$k"
	[ $k = valgrind ] && cat "$T"/vg.* >"$T/$w.vg" 2>/dev/null
	return 0
}

median() {   # median FILE COLUMN
	awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

leaks() {   # leaks WORKLOAD CONFIG: "bytes B in n"
	case $2 in
	heapprof) sed -n 's/.*leaked \([0-9]*\) byte(s) in \([0-9]*\) allocation(s).*/\1 \2/p' "$T/$1.$2.err" | tail -n 1 ;;
	lsan) sed -n 's/^SUMMARY: LeakSanitizer: \([0-9]*\) byte(s) leaked in \([0-9]*\) allocation(s).*/\1 \2/p' \
		"$T/$1.$2.err" ;;
	# LeakSanitizer's and heapprof's figures count indirect leaks too.
	valgrind) sed -n 's/.*\(definitely\|indirectly\) lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\2 \3/p' "$T/$1.vg" | tr -d , ;;
	esac | awk 'BEGIN { b = 0; n = 0 } { b += $1; n += $2 } END { printf "%d B in %d\n", b, n }'
}

for w in $WORKLOADS; do
	for r in $(seq "$ROUNDS"); do
		for k in bare heapprof lsan; do
			[ $k = lsan ] && [ $w = perl ] && [ -z "$LSAN" ] && continue
			run $w $k
		done
		[ $r -le "$VG_ROUNDS" ] && run $w valgrind
	done
	# The scan's own time: heapprof check's configuration, with the debug log.
	for r in $(seq "$SCAN_ROUNDS"); do
		c=$(cmd $w bare)
		conf=lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_leak_error:false,leak_report:false,prof_final:false,prof_prefix:,log_level:debug
		if [ $w = perl ]; then
			"$M" -t 1200 -e "$T/scan.err" -E LD_PRELOAD=$LIB -E HEAPPROF_CONF=$conf -- $c "$PERLPROG" >/dev/null
		else
			"$M" -t 1200 -e "$T/scan.err" -E LD_PRELOAD=$LIB -E HEAPPROF_CONF=$conf -- $c >/dev/null
		fi
		sed -n 's/.*leak scan: .* \([0-9]*\) ms$/\1/p' "$T/scan.err" |
			awk 'BEGIN { s = 0; m = 0 } { s += $1; if ($1 > m) m = $1 } END { print s, m, NR }' >>"$T/$w.scan"
	done
done

ratio() {   # ratio A B
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2fx\n", a / b }'
}
cell() {   # cell WORKLOAD CONFIG: "secs (ratio)"
	f=$T/$1.$2
	if [ ! -s "$f" ]; then
		echo "n/a"
		return
	fi
	if grep -qv ' ok$\| exit:23$' "$f"; then
		echo "fails ($(grep -v ' ok$\| exit:23$' "$f" | awk '{ print $3 }' | head -n 1))"
		return
	fi
	s=$(median "$f" 1)
	echo "$s ($(ratio "$s" "$(median "$T/$1.bare" 1)"))"
}
mib() {   # mib FILE: of the runs that ended as they should
	[ -s "$1" ] && ! grep -qv ' ok$\| exit:23$' "$1" && awk -v k="$(median "$1" 2)" 'BEGIN { printf "%d\n", k / 1024 }' || echo "n/a"
}
name() {
	[ $TINY = 1 ] && printf 'tiny: '
	case $1 in
	bigheap) echo "1 GiB in 10 M blocks, 1000 lost" ;;
	shuffled) echo "the same, linked in a random order" ;;
	forktests) echo "20 forked tests of a 1 M-block fixture" ;;
	perl) echo "perl hash of 300,000 entries" ;;
	esac
}

echo "### The leak gate: wall seconds (medians of $ROUNDS; valgrind $VG_ROUNDS) and ratios to bare"
echo
echo "| workload | bare s | heapprof check | LeakSanitizer | valgrind --leak-check=full | heapprof's exit scans, ms: sum, longest (processes) |"
echo "|---|---:|---:|---:|---:|---:|"
for w in $WORKLOADS; do
	sum=$(median "$T/$w.scan" 1) long=$(median "$T/$w.scan" 2) np=$(median "$T/$w.scan" 3)
	echo "| $(name $w) | $(median "$T/$w.bare" 1) | $(cell $w heapprof) | $(cell $w lsan) | $(cell $w valgrind) | $sum, $long ($np) |"
done
echo
echo "### Peak RSS (MiB, the largest process) and the leaks each found"
echo
echo "| workload | bare | heapprof check | LeakSanitizer | valgrind | leaks: heapprof | LeakSanitizer | valgrind (definitely + indirectly lost) |"
echo "|---|---:|---:|---:|---:|---|---|---|"
for w in $WORKLOADS; do
	lh=$(leaks $w heapprof) ll=n/a lv=$(leaks $w valgrind)
	[ -s "$T/$w.lsan" ] && ll=$(leaks $w lsan)
	echo "| $(name $w) | $(mib "$T/$w.bare") | $(mib "$T/$w.heapprof") | $(mib "$T/$w.lsan") | $(mib "$T/$w.valgrind") | $lh | $ll | $lv |"
done
