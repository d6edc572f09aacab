#!/bin/sh
# bench/check-vs-valgrind.sh -- heapprof check against valgrind
# --leak-check=full --trace-children=yes on the same runs: wall seconds
# (medians of 3) against the bare run, and the leaked bytes each finds
# (heapprof check --all --json; valgrind's definitely + indirectly lost).
# make bench-check runs it.
set -u
B=$(cd "${HP_BUILD:-build}" && pwd)
BIN=$B/heapprof
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
printf 'int f(void) { return 1; }\n' >f.c

secs() {
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1
	awk -v a="$s" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f\n", (b - a) / 1e9 }'
}
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b >= 0.05) printf "%.1f", a / b; else printf "-" }'; }

echo "| run | bare s | heapprof check s | ratio | valgrind s | ratio | heapprof leaked B | valgrind lost B |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
run() {
	name=$1
	shift
	bare=$(median3 $(secs "$@") $(secs "$@") $(secs "$@"))
	hc=$(median3 $(for i in 1 2 3; do secs "$BIN" check --all --json hc.json -- "$@"; done))
	vg=$(median3 $(for i in 1 2 3; do secs valgrind --leak-check=full --trace-children=yes --log-file=vg.%p "$@"; rm -f vg.*; done))
	valgrind --leak-check=full --trace-children=yes --log-file=vg.%p "$@" >/dev/null 2>&1
	vlost=$(cat vg.* | sed -n 's/.*\(definitely\|indirectly\) lost: \([0-9,]*\) bytes.*/\2/p' | tr -d , | awk '{ s += $1 } END { print s + 0 }')
	rm -f vg.*
	hlost=$(perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my $s = 0;
		for my $p (@{$j->{processes}}) { $s += ($p->{direct_bytes} // 0) + ($p->{indirect_bytes} // 0) } print $s' <hc.json 2>/dev/null)
	echo "| $name | $bare | $hc | $(ratio "$hc" "$bare") | $vg | $(ratio "$vg" "$bare") | ${hlost:-?} | $vlost |"
}
run "python3 -c 'import json,re,collections'" /usr/bin/python3.11 -c 'import json,re,collections'
run "sqlite3 :memory: (300 k inserts)" sqlite3 :memory: "create table t(a); with recursive c(x) as (select 1 union all select x+1 from c where x<300000) insert into t select x from c; select count(*) from t"
run "gcc -c (driver, cc1, as)" gcc -c f.c -o f.o
run "bigheap 256 MiB" "$B/bench/bigheap" 256 4096
