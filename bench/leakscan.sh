#!/bin/sh
# bench/leakscan.sh -- what the leak scan (leak_check:reachable) costs at
# exit, against the same run bare, under heapprof without the scan, and
# under valgrind --leak-check=full.  Heaps of 256 MiB and 1 GiB in 4 KiB
# and 1 KiB blocks (bench/bigheap.c: one block in a hundred lost).
# Prints a Markdown table: wall seconds of the whole run (medians of 3),
# the scan's own milliseconds and root bytes from heapprof's debug line,
# and the leaks each tool found.  make bench-leakscan runs it.
set -u
B=${HP_BUILD:-build}
LIB=$B/libheapprof.so
PROG=$B/bench/bigheap
[ -x "$PROG" ] && [ -e "$LIB" ] || { echo "leakscan: make bench-leakscan builds what it needs" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

secs() {   # secs CMD...: wall seconds of one run
	s=$(date +%s%N)
	"$@" >/dev/null 2>>"$T/err"
	awk -v a="$s" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f\n", (b - a) / 1e9 }'
}
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

echo "| heap | blocks | bare s | heapprof exact s | + leak scan s | scan ms | roots MiB | heapprof leaks | valgrind s | valgrind definitely lost |"
echo "|---|---:|---:|---:|---:|---:|---:|---|---:|---|"
for spec in "256 4096" "256 1024" "1024 4096" "1024 1024"; do
	set -- $spec
	mib=$1 size=$2
	blocks=$(( (mib << 20) / size ))
	bare=$(median3 $(secs "$PROG" $mib $size) $(secs "$PROG" $mib $size) $(secs "$PROG" $mib $size))
	exact=$(median3 $(for i in 1 2 3; do secs env HEAPPROF_CONF=lg_prof_sample:0,prof_prefix: LD_PRELOAD=$LIB "$PROG" $mib $size; done))
	: >"$T/err"
	scan=$(median3 $(for i in 1 2 3; do secs env HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_prefix:,log_level:debug LD_PRELOAD=$LIB "$PROG" $mib $size; done))
	ms=$(sed -n 's/.*leak scan: .* \([0-9]*\) ms$/\1/p' "$T/err" | sort -n | sed -n 2p)
	roots=$(sed -n 's/.*leak scan: [0-9]* blocks, \([0-9]*\) bytes of roots.*/\1/p' "$T/err" | head -n 1)
	found=$(sed -n 's/.*SUMMARY: heapprof: \([0-9]*\) byte(s) leaked in \([0-9]*\) allocation(s).*/\1 B in \2/p' "$T/err" | head -n 1)
	vs=$(secs valgrind --leak-check=full --log-file="$T/vg" "$PROG" $mib $size)
	vg=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 B in \2/p' "$T/vg" | tr -d ,)
	echo "| $mib MiB | $blocks | $bare | $exact | $scan | $ms | $(( ${roots:-0} >> 20 )) | $found | $vs | $vg |"
done
