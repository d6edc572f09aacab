#!/bin/sh
# The peak snapshot in exact mode: a program whose peak is known exactly
# (peaktmp basic: f() holds 3 x 1 MiB and frees it, then g() keeps 1 MiB)
# records the peak's figure and which stacks held it, in both dump
# layouts; heapprof report --peak shows them; high-water dumps show the
# peak, never a lower heap (they used to: "-1.0 MiB since the previous
# dump"); at a sampled rate report --peak refuses the dump.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 24

MiB=1048576

# tprof CONF ARGS...: peaktmp under the library, bounded in time.
tprof() {
	_c=$1
	shift
	timeout 20 env HEAPPROF_CONF="$_c" LD_PRELOAD="$LIB" "$TP/peaktmp" "$@"
}

# field FILE REGEX: the first line of FILE matching the regex.
hdr() { grep -m1 -E "$2" "$1"; }

# --- exact mode, gperftools layout ---------------------------------------
tprof lg_prof_sample:0,prof_final:true,prof_prefix:ex basic 1000 1024 >/dev/null 2>err
d=$(ls ex.*.f.*.heap)
pobj=$(sed -n 's/^# heapprof peak: \([0-9]*\): [0-9]*$/\1/p' "$d")
total_peak=$(sed -n 's/^# heapprof peak: [0-9]*: \([0-9]*\)$/\1/p' "$d")
pobj=${pobj:-0} total_peak=${total_peak:-0}
ok $([ "$pobj" -ge 3 ] && [ "$total_peak" -ge $((3 * MiB)) ] && [ "$total_peak" -lt $((3 * MiB + 65536)) ]; echo $?) \
	"the final dump records the peak: $total_peak bytes in $pobj objects (f's 3 MiB and what the C runtime kept)"

"$BIN" report --peak --show-bytes --lines "$d" >pk 2>pkerr
like "$(head -n 1 pk)" "^Total: $total_peak B \(inuse_space at the peak, 1 dump\)\$" \
	"report --peak: the headline is the peak, exactly"
f_cum=$("$BIN" report --peak --show-bytes "$d" | awk '$6 == "f" { print $4 }')
is "$f_cum" $((3 * MiB)) "f held exactly 3 MiB at the peak"
g_cum=$("$BIN" report --peak --show-bytes "$d" | awk '$6 == "g" { print $4 }')
is "${g_cum:-none}" none "g, which allocated after the peak, held nothing of it"
objs=$("$BIN" report --peak --inuse-objects "$d" | awk '$6 == "f" { print $4 }')
is "$objs" 3 "--inuse-objects: 3 objects at the peak in f"
# The sum over stacks is the figure: one thread, so the snapshot is exact.
sum=$(sed -n 's/^# peak: [0-9]*: \([0-9]*\) temporary.*/\1/p' "$d" | awk '{ s += $1 } END { print s }')
is "$sum" "$total_peak" "the stacks' peak figures sum to the process's peak"
unlike "$("$BIN" report --show-bytes "$d")" ' f$' "without --peak, the report is the live heap at exit (no f)"

# --- exact mode, jemalloc layout ------------------------------------------
tprof lg_prof_sample:0,prof_final:true,prof_prefix:je,dump_format:jemalloc basic 1000 1024 >/dev/null 2>err
dj=$(ls je.*.f.*.heap)
like "$(hdr "$dj" '^# heapprof peak:')" "^# heapprof peak: [0-9]+: $total_peak\$" \
	"the jemalloc layout records the same peak"
is "$("$BIN" report --peak --show-bytes "$dj" | awk '$6 == "f" { print $4 }')" $((3 * MiB)) \
	"and report --peak reads it: f held 3 MiB"
jt=$(jeprof --text --show_bytes "$TP/peaktmp" "$dj" 2>/dev/null | sed -n 's/^Total: \([0-9]*\) B$/\1/p')
rt=$("$BIN" report --show-bytes "$dj" | sed -n 's/^Total: \([0-9]*\) B .*/\1/p')
is "$jt" "$rt" "jeprof reads the jemalloc layout with the peak lines: the same total as heapprof report"

# --- threads --------------------------------------------------------------
# t/prog/threads: 4 threads keep 1000 blocks each (1,000,000 bytes in all,
# from worker_alloc) and hand 10000 blocks of 64 bytes each to main, which
# frees them after joining (2,560,000 bytes from handoff_alloc): the peak
# is reached when the last thread is done.  With several threads
# allocating at once, each other thread's one block in flight may fall on
# either side of the snapshot: stacks within 4 blocks of the figure.
timeout 20 env HEAPPROF_CONF=lg_prof_sample:0,prof_final:true,prof_prefix:th LD_PRELOAD="$LIB" \
	"$TP/threads" >/dev/null 2>&1
dt=$(ls th.*.f.*.heap)
tp=$(sed -n 's/^# heapprof peak: [0-9]*: \([0-9]*\)$/\1/p' "$dt")
tsum=$(sed -n 's/^# peak: [0-9]*: \([0-9]*\) temporary.*/\1/p' "$dt" | awk '{ s += $1 } END { print s + 0 }')
ok $([ "${tp:-0}" -ge 3560000 ] && [ "${tp:-0}" -lt $((3560000 + 65536)) ] &&
     [ $((tsum - tp)) -le 1600 ] && [ $((tp - tsum)) -le 1600 ]; echo $?) \
	"4 threads: the peak is $tp bytes (3,560,000 and the runtime's), the stacks sum to $tsum"
is "$("$BIN" report --peak --show-bytes "$dt" | awk '$6 == "worker_alloc" { print $4 }')" 1000000 \
	"4 threads: worker_alloc held its 1,000,000 bytes at the peak"
hb=$("$BIN" report --peak --show-bytes "$dt" | awk '$6 == "handoff_alloc" { print $4 }')
ok $([ "${hb:-0}" -ge $((2560000 - 256)) ] && [ "${hb:-0}" -le $((2560000 + 256)) ]; echo $?) \
	"4 threads: handoff_alloc held 2,560,000 bytes within 4 blocks in flight ($hb)"

# A thread's frees go to its allowance, which the shared counter still
# counts (record/peak.h): peaktmp handoff's thread frees f()'s 3 x 16 KiB
# and then allocates nothing while main's up4() holds 4 x 16 KiB.  The
# peak is up4()'s 64 KiB, not f()'s blocks counted as still live (112 KiB
# when a candidate peak does not take the allowances out).
tprof lg_prof_sample:0,prof_final:true,prof_prefix:ho handoff 16 >/dev/null 2>err
dh=$(ls ho.*.f.*.heap)
hp=$(sed -n 's/^# heapprof peak: [0-9]*: \([0-9]*\)$/\1/p' "$dh")
ok $([ "${hp:-0}" -ge 65536 ] && [ "${hp:-0}" -lt $((65536 + 16384)) ]; echo $?) \
	"a thread's frees before it waits are out of the peak: $hp bytes (up4's 64 KiB and the runtime's)"
hsum=$(sed -n 's/^# peak: [0-9]*: \([0-9]*\) temporary.*/\1/p' "$dh" | awk '{ s += $1 } END { print s + 0 }')
is "$hsum" "$hp" "and the stacks' peak figures sum to it"

# --- high-water dumps -----------------------------------------------------
# up() keeps 3 MiB; 200 ms later up2() keeps 3 more and frees 4 of the 6 at
# once; the second high-water dump waits for the rate limit (1 s) and is
# written after the fall.  It must show the peak: 6 MiB.
tprof lg_prof_sample:0,prof_gdump:true,prof_prefix:hw water 1024 >/dev/null 2>err
n=$(ls hw.*.u*.heap 2>/dev/null | wc -l)
ok $([ "$n" -ge 1 ]; echo $?) "high-water dumps written: $n"
last=$(ls hw.*.u*.heap | sort -t. -k3,3n | tail -n 1)
like "$(hdr "$last" '^# heapprof peak:')" "^# heapprof peak: 6: $((6 * MiB))\$" \
	"the last high-water dump records the peak's exact figure: 6 MiB in 6 objects"
jt=$(jeprof --text --show_bytes "$TP/peaktmp" "$last" 2>/dev/null | sed -n 's/^Total: \([0-9]*\) B$/\1/p')
is "$jt" $((6 * MiB)) "its rows are the heap at the peak (jeprof's total: 6 MiB, not the 2 MiB live when written)"
like "$(jeprof --text --show_bytes "$TP/peaktmp" "$last" 2>/dev/null)" " up2$" "up2's blocks are in it"
unlike "$(grep '(high-water)' err)" ' -[0-9.]+ [KMG]?i?B since the previous dump' \
	"no high-water dump is lower than the dump before"
lives=$(sed -n 's/.*(high-water): ~\([0-9.]*\) MiB live.*/\1/p' err | tr '\n' ' ')
ok $(echo "$lives" | awk '{ for (i = 2; i <= NF; i++) if ($i < $(i-1)) exit 1; if ($NF != "6.0") exit 1 }'; echo $?) \
	"the logged high-water figures rise to 6.0 MiB ($lives)"

# --- a sampled rate --------------------------------------------------------
# At a sampled rate the peak is the largest value an estimate took, which
# overshoots the true peak by the estimate's upward swings: --peak is
# exact-mode only and refuses a sampled dump with one line naming the
# option and the rate.
tprof prof_final:true,prof_prefix:dr basic 1000 8192 >/dev/null 2>err
dd=$(ls dr.*.f.*.heap)
"$BIN" report --peak --show-bytes "$dd" >pk 2>pkerr
st=$?
is "$st:$(wc -l <pk)" "1:0" "default rate: report --peak fails, printing no report"
is "$(cat pkerr)" "heapprof: --peak is exact-mode only: '$dd' was sampled at lg_prof_sample:19 (profile with lg_prof_sample:0)" \
	"default rate: one line names the option and the rate"
pb=$(sed -n 's/^# heapprof peak: [0-9]*: \([0-9]*\)$/\1/p' "$dd")
ok $([ -n "$pb" ]; echo $?) "default rate: the dump still records the library's figure ($pb)"
