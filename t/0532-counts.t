#!/bin/sh
# The log line of a dump and heapprof report of that dump give the same
# counts: objects, bytes, contexts.  They did not: exact mode wrote rows
# that readers scale (20 one-byte blocks read as 21, and the log said 20);
# at a sampled rate the log gave the library's estimate, which the integer
# rows cannot hold; blocks of zero bytes were in the log's count and not
# in the dump.  Blocks of zero bytes are now in both, as objects: jeprof
# has no row for them (it would divide by zero), heapprof report reads
# them from the dump's "# zero-size:" lines.  The leak report's figures at a sampled rate are those of
# the leak dump's report too.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 17

# flat FUNCTION <report: the function's flat value (0 if absent).
flat() { awk -v fn="$1" '$6 == fn { print $1; f = 1 } END { if (!f) print 0 }'; }

# log_figures LOG: "BYTES OBJECTS CONTEXTS" from a dump's log line.
log_figures() {
	sed -n 's/^<heapprof>: dump .*: ~\([0-9.]* [KMG]*i*B\) live in \([0-9]*\) objects*, \([0-9]*\) contexts*,.*/\1 \2 \3/p' "$1"
}
# report_figures DUMP: the same from heapprof report (its size written as
# the log writes sizes).
report_figures() {
	_b=$("$BIN" report --show-bytes "$1" | sed -n 's/^Total: \([0-9]*\) B .*/\1/p')
	_o=$("$BIN" report --inuse-objects "$1" | sed -n 's/^Total: \([0-9]*\) .*/\1/p')
	_c=$("$BIN" report --json --inuse-objects "$1" | perl -MJSON::PP -e 'local $/; print scalar @{decode_json(<STDIN>)->{stacks}}')
	perl -e '
		my ($b, $o, $c) = @ARGV; my @u = ("KiB", "MiB", "GiB"); my $s = 1024; my $i = 0;
		my $h = "$b B";
		if ($b >= 1024) {
			while ($i < 2 && int(($b * 10 + $s / 2) / $s) >= 10240) { $s *= 1024; $i++ }
			my $t = int(($b * 10 + $s / 2) / $s); $h = int($t / 10) . "." . ($t % 10) . " $u[$i]";
		}
		print "$h $o $c\n";' "$_b" "$_o" "$_c"
}

# ---- exact mode: small and empty blocks ---------------------------------------
prof lg_prof_sample:0,prof_final:true,prof_prefix:x "$TP/tiny" >out 2>log
d=$(one_file 'x.*.f.*heap')
is "$(log_figures log)" "$(report_figures "$d")" "exact mode: the log line's bytes, objects and contexts are the report's"
"$BIN" report --inuse-objects "$d" >objs
is "$(flat one_byte <objs)" 20 "20 one-byte blocks are 20 objects in the report (not 21)"
is "$("$BIN" report --show-bytes "$d" | flat one_byte)" 20 "and 20 bytes"
is "$(flat small <objs)" 3 "3 blocks of 24 bytes: 3"
is "$(flat zero_bytes <objs)" 7 "7 blocks of zero bytes: 7 objects in the report"
like "$(cat log)" ' live in 31 objects, ' "and in the log's count: 20 + 3 + 7 + stdout's buffer"
is "$(jeprof --text --inuse_objects "$TP/tiny" "$d" 2>/dev/null | flat zero_bytes)" 0 \
	"jeprof has no row for them (it would divide by zero)"
is "$(jeprof --text --inuse_objects "$TP/tiny" "$d" 2>/dev/null | flat one_byte)" 20 "jeprof reads the exact dump as it is: 20"
like "$(go tool pprof -top -sample_index=inuse_objects "$TP/tiny" "$d" 2>/dev/null)" '^ +20 .* one_byte$' \
	"so does go tool pprof"

# ---- sampled: the rows as the reader scales them ------------------------------
for i in 1 2 3; do
	prof prof_final:true,prof_prefix:s$i,lg_prof_sample:10 "$TP/tiny" 3000 >out 2>log$i
	is "$(log_figures log$i)" "$(report_figures "$(one_file "s$i.*.f.*heap")")" \
		"sampled run $i: the log line's figures are the report's ($(log_figures log$i))"
done

# ---- the leak report at a sampled rate and the leak dump ------------------------
prof prof_leak:true,prof_final:true,prof_prefix:l,lg_prof_sample:17 "$TP/seed" >out 2>leak.log
l=$(one_file 'l.*.l0.*heap')
sum=$(sed -n 's/^<heapprof>: SUMMARY: heapprof: ~\([0-9]*\) byte(s) leaked in ~\([0-9]*\) allocation(s).*/\1 \2/p' leak.log)
rb=$("$BIN" report --show-bytes "$l" | sed -n 's/^Total: \([0-9]*\) B .*/\1/p')
ro=$("$BIN" report --inuse-objects "$l" | sed -n 's/^Total: \([0-9]*\) .*/\1/p')
is "$sum" "$rb $ro" "sampled leak: the SUMMARY's bytes and allocations are the leak dump's report"
like "$(cat leak.log)" "Leak approximation summary: ~$rb bytes, ~$ro objects" "and so is the approximation summary"
# Each leak's line is its function's row in the leak dump.
for fn in do_something do_something_else; do
	b=$("$BIN" report --show-bytes "$l" | flat $fn)
	o=$("$BIN" report --inuse-objects "$l" | flat $fn)
	line=$(grep -A1 'Direct leak of' leak.log | grep -B1 "in $fn " | sed -n 's/.*leak of ~\([0-9]*\) byte(s) in ~\([0-9]*\) object.*/\1 \2/p')
	is "$line" "$b $o" "the leak from $fn: the report's $b bytes in $o objects"
done
# And exact leaks stay exact.
prof prof_leak:true,prof_prefix:le,lg_prof_sample:0 "$TP/seed" >out 2>exact.log
like "$(cat exact.log)" 'SUMMARY: heapprof: 6270976 byte\(s\) leaked in 119 allocation\(s\)\.' "exact mode: the leaks, to the byte"
done_testing
