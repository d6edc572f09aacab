#!/bin/sh
# Temporary allocations (heaptrack's definition: the block's free is the
# allocating thread's next allocation or free), counted per stack in exact
# mode on a program whose temporaries are known exactly (peaktmp basic:
# h() mallocs and frees N times; k() allocates two blocks and frees them
# in order, N times, none temporary; r() grows a block by realloc 10
# times, every step temporary); heapprof report --temporary ranks them;
# heaptrack on the same program counts the same; at the default rate the
# count is an estimate and a block followed by another allocation is
# still never counted.
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

# The default rate: only sampled blocks are seen, each weighted, and only
# allocations in between (most frees stay on the fast path, unseen).  With
# 10^6 blocks of 100 bytes, about 190 are sampled: h's estimate is N
# within 35% (5 standard deviations).  k's first block, followed by the
# second's allocation, is never temporary; its second block, followed
# only by the first one's free, always is (heaptrack: never).
N=1000000
tprof prof_final:true,prof_prefix:dr basic $N 64 >/dev/null 2>err
dd=$(ls dr.*.f.*.heap)
"$BIN" report --temporary --lines "$dd" >dout
hv=$(awk 'NR > 2 && $4 == "h" { print $1 }' dout)
ok $(awk -v v="${hv:-0}" -v n=$N 'BEGIN { exit !(v > 0.65 * n && v < 1.35 * n) }'; echo $?) \
	"default rate: h's temporary allocations estimated at $hv of $N"
kp=$(grep -n 'char \*p = malloc(64);' "$SRC/t/prog/peaktmp.c" | cut -d: -f1)
kq=$(grep -n 'char \*q = malloc(64);' "$SRC/t/prog/peaktmp.c" | cut -d: -f1)
unlike "$(awk 'NR > 2 && $1 ~ /^[0-9]+$/ { print $4, $5 }' dout)" "^k .*peaktmp\.c:$kp\$" \
	"default rate: k's first block, followed by another allocation, is never temporary"
like "$(awk 'NR > 2 && $1 ~ /^[0-9]+$/ { print $3, $4, $5 }' dout)" "^100\.0% k .*peaktmp\.c:$kq\$" \
	"default rate: k's second block, followed only by a free, is (frees are not seen)"
