#!/bin/sh
# Temporary allocations (heaptrack's definition: the block's free is the
# allocating thread's next allocation or free), counted per stack in exact
# mode on a program whose temporaries are known exactly (peaktmp basic:
# h() mallocs and frees N times; k() allocates two blocks and frees them
# in order, N times, none temporary; r() grows a block by realloc 10
# times, every step temporary); heapprof report --temporary ranks them;
# heaptrack on the same program counts the same; at a sampled rate report
# --temporary refuses the dump.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 17

tprof() {
	_c=$1
	shift
	timeout 20 env HEAPPROF_CONF="$_c" LD_PRELOAD="$LIB" "$TP/peaktmp" "$@"
}

N=1000
tprof lg_prof_sample:0,prof_final:true,prof_prefix:ex basic $N 1024 >/dev/null 2>err
d=$(ls ex.*.f.*.heap)
tot=$(sed -n 's/^# heapprof temporary: \([0-9]*\): \([0-9]*\)$/\1 \2/p' "$d")
tmp=${tot%% *} allocs=${tot##* }
# h's N, r's 11; f 3, g 1, k 2N, and puts's buffer are not temporary.
is "${tmp:-none}" $((N + 11)) "the final dump counts $((N + 11)) temporary allocations"
ok $([ "${allocs:-0}" -ge $((3 * N + 15)) ] && [ "${allocs:-0}" -le $((3 * N + 20)) ]; echo $?) \
	"of $allocs allocations (3N + 15 of the program's, and the C runtime's)"

"$BIN" report --temporary "$d" >out 2>errr
st=$?
is "$st" 0 "report --temporary: status 0"
like "$(head -n 1 out)" "^Total: $((N + 11)) of $allocs allocations were temporary \([0-9.]+%, 1 dump\)\$" \
	"headline: the process's temporary allocations and their share"
is "$(sed -n 2p out)" "temporary   allocs  share  stack, innermost first" "column header"
is "$(sed -n 3p out | awk '{ print $1, $2, $3, $4 }')" "$N $N 100.0% h" \
	"first row: h, $N temporary of $N (100%)"
rows=$(awk 'NR > 2 && $1 ~ /^[0-9]+$/ { print $1, $4 }' out | tr '\n' ',')
is "$rows" "$N h,10 r,1 r," "rows by temporary count: h, then r's realloc and r's malloc"
unlike "$(awk 'NR > 2 && $1 ~ /^[0-9]+$/ { print $4 }' out)" '^(k|f|g)$' \
	"k (freed after another allocation), f and g have no temporary allocations"
like "$(sed -n 4p out)" '^ +main$' "the caller is listed under the leaf"

"$BIN" report --temporary --collapsed "$d" >col
like "$(cat col)" ";main;h $N\$" "--collapsed: h's temporaries as a flame graph's input"
"$BIN" report --temporary --json "$d" >js
ok $(perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
	my ($h) = grep { $_->{frames}[0]{function} eq "h" } @{$j->{stacks}};
	exit !($j->{sample_type} eq "temporary" && $j->{process_temporary} == '$((N + 11))' &&
	       $h->{value} == '$N' && $h->{allocations} == '$N')' <js; echo $?) \
	"--json: sample_type temporary, the process's totals, h with its allocations"

# heaptrack on the same program: the same temporary count, the same sites.
timeout 60 heaptrack -o ht "$TP/peaktmp" basic $N 1024 >/dev/null 2>&1
htp=$(heaptrack_print ht.* 2>/dev/null)
is "$(printf '%s\n' "$htp" | sed -n 's/^temporary memory allocations: \([0-9]*\) .*/\1/p')" "$tmp" \
	"heaptrack counts the same temporary allocations ($tmp)"
heaptrack_print --flamegraph-cost-type temporary -F htf ht.* >/dev/null 2>&1
is "$(awk '/;h \(peaktmp\.c\); / { s += $NF } END { print s + 0 }' htf)" "$N" "heaptrack: h made $N of them"
is "$(awk '/;r \(peaktmp\.c\); / { s += $NF } END { print s + 0 }' htf)" 11 "heaptrack: r made 11"

# A sampled rate: a sampled block's test sees its thread's allocations
# but not its frees (most stay on the fast path), so it counts what exact
# mode does not (k's second block, followed only by the first one's free):
# --temporary is exact-mode only and refuses a sampled dump with one line
# naming the option and the rate.
tprof lg_prof_sample:14,prof_final:true,prof_prefix:dr basic 100000 64 >/dev/null 2>err
dd=$(ls dr.*.f.*.heap)
"$BIN" report --temporary "$dd" >dout 2>derr
is "$?:$(wc -l <dout)" "1:0" "lg_prof_sample:14: report --temporary fails, printing no report"
is "$(cat derr)" "heapprof: --temporary is exact-mode only: '$dd' was sampled at lg_prof_sample:14 (profile with lg_prof_sample:0)" \
	"lg_prof_sample:14: one line names the option and the rate"
like "$(cat "$dd")" '^# heapprof temporary: [0-9]+: [0-9]+$' "the dump still records the library's figures"
