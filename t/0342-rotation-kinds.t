#!/bin/sh
# Retention per kind: dump_keep counts each trigger letter's dumps apart,
# so that one busy kind (high-water dumps, once a second) does not rotate
# away another's series (interval dumps); the first dump of each kind, the
# base every diff and trend of the series needs, is never deleted, neither
# by dump_keep nor by dump_keep_bytes, which counts all kinds together.
. "$(dirname "$0")/lib.sh"
plan 6

# kinds LETTER: the kept dumps of that letter, as "i0 i13 i14 ".
kinds() { ls g.*.heap | sed -n "s/.*\\.\\($1[0-9]*\\)\\..*/\\1/p" | sort -t"$1" -k2n | tr '\n' ' '; }
# logged LETTER NAME: the dumps of that kind the log names, first and newest N.
logged() {
	sed -n "s/^<heapprof>: dump g\\.[0-9]*\\.[0-9]*\\.\\($1[0-9]*\\)\\..*($2).*/\\1/p" err |
		awk -v n="$3" '{ a[NR] = $0 } END { printf "%s ", a[1]; for (i = NR - n + 1; i <= NR; i++) if (i > 1) printf "%s ", a[i] }'
}

# 256 KiB every 10 ms, 60 times (15 MiB): an interval dump per MiB
# allocated (lg_prof_interval:20), threshold dumps at 1, 2, 4 and 8 MiB,
# and the final dump; keep 2 of each kind.
prof lg_prof_sample:0,lg_prof_interval:20,dump_at_bytes:1M,prof_final:true,prof_prefix:g,dump_keep:2 \
	"$TP/grower" 256 10 60 >/dev/null 2>err
ni=$(grep -c '(interval)' err)
nh=$(grep -c '(threshold)' err)
ok $([ "$ni" -ge 10 ] && [ "$nh" -eq 4 ]; echo $?) "the run wrote $ni interval and $nh threshold dumps"
is "$(kinds i)" "$(logged i interval 2)" "dump_keep:2 keeps the first and the newest two interval dumps, whatever the threshold dumps did"
is "$(kinds h)" "h0 h2 h3 " "and the first and the newest two threshold dumps"
is "$(ls g.*.f.*.heap | wc -l)" 1 "and the final dump"
rm -f g.*.heap

# dump_keep_bytes:1 (every kind together over the cap): the first of each
# kind stays, and the final dump, written last.
prof lg_prof_sample:0,lg_prof_interval:20,dump_at_bytes:1M,prof_final:true,prof_prefix:g,dump_keep:0,dump_keep_bytes:1 \
	"$TP/grower" 256 10 60 >/dev/null 2>err
is "$(kinds i)$(kinds h)" "i0 h0 " "dump_keep_bytes never deletes the first dump of a kind"
is "$(ls g.*.heap | wc -l)" 3 "and keeps the final dump, the newest: three files"
done_testing
