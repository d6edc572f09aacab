#!/bin/sh
# heapprof ps: columns that line up whatever the programs' names, and
# --json; heapprof trend --json.  The JSON is read back with perl's
# JSON::PP and checked against what the text says.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 18

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
long=$T_DIR/an-idle-program-whose-name-is-longer-than-the-column-was
cp "$TP/idle" "$long"
cp "$TP/idle" "$T_DIR/i"
# (idle ends by itself after 30 seconds.)
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/d "$BIN" run "$long" 30 3 >out1 2>err1 &
p1=$!
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/e "$BIN" run "$T_DIR/i" 30 1 >out2 2>err2 &
p2=$!
n=0
# Until both have published their live heap (refreshed every second).
while { ! grep -qs '^live_bytes=[1-9]' "run/$p1" || ! grep -qs '^live_bytes=[1-9]' "run/$p2"; } &&
      [ $n -lt 1000 ]; do
	sleep 0.01
	n=$((n + 1))
done

# ---- columns ---------------------------------------------------------------
"$BIN" ps >ps.out
col() { awk -v s="$2" '{ i = index($0, s); if (i) { print i; exit } }' "$1"; }
grep "^$p1 " ps.out >row1
grep "^$p2 " ps.out >row2
is "$(wc -l <row1):$(wc -l <row2)" "1:1" "ps lists both processes, a line each"
head -n 1 ps.out >header
is "$(col row1 "$T_DIR/d"):$(col row2 "$T_DIR/e")" "$(col header PREFIX):$(col header PREFIX)" \
	"the PREFIX column starts at the same place on every line, after a long program name"
is "$(col row1 "$long"):$(col row2 "$T_DIR/i")" "$(col header PROGRAM):$(col header PROGRAM)" \
	"and so does PROGRAM"
# Every line of the table: the PREFIX column is where the header puts it
# (other tests' processes may be listed too).
bad=$(awk -v c="$(col header PREFIX)" 'NR > 1 && substr($0, c - 2, 2) != "  " { print }' ps.out)
is "$bad" "" "no line's PROGRAM runs into PREFIX"
like "$(cat row1)" "^$p1 +active +0 +3\\.0 MiB +$long +$T_DIR/d\$" "sizes in MiB, as the library's log"

# ---- ps --json ---------------------------------------------------------------
"$BIN" dump $p1 >/dev/null
"$BIN" ps --json >ps.json
is $? 0 "ps --json exits 0"
perl -MJSON::PP -e '
	local $/; my $d = decode_json(<STDIN>);
	my ($p1, $p2, $long, $dir) = @ARGV;
	my %by = map { $_->{pid} => $_ } @$d;
	my $a = $by{$p1}; my $b = $by{$p2};
	print "array\n" if ref $d eq "ARRAY";
	print "p1 $a->{program} $a->{sampling} $a->{dumps} $a->{live_bytes} $a->{prefix}\n" if $a;
	print "p2 $b->{program} $b->{sampling} $b->{dumps} $b->{live_bytes}\n" if $b;
	print "state ", ($a->{state} ? "true" : "false"), "\n";
	print "last ", ($a->{last_dump} =~ m{^\Q$dir\E/d\.$p1\.0\.s0\.\d{8}T\d{6}Z\.heap$} ? "ok" : "bad"), "\n";
	print "started ", ($a->{started} =~ /^\d{8}T\d{6}Z$/ ? "ok" : "bad $a->{started}"), "\n";
' "$p1" "$p2" "$long" "$T_DIR" <ps.json >got 2>perl.err
is "$(sed -n 1p got)" "array" "ps --json is one JSON array (JSON::PP reads it)"
like "$(sed -n 2p got)" "^p1 $long active 1 3[0-9]{6} $T_DIR/d\$" "with the process: program, sampling, dumps, live bytes, prefix"
like "$(sed -n 3p got)" "^p2 $T_DIR/i active 0 1[0-9]{6}\$" "and the other one"
is "$(sed -n 4,6p got)" "state true
last ok
started ok" "state, the last dump's path and the start time"
is "$(perl -MJSON::PP -e 'local $/; print scalar(grep { !($_->{pid} > 0 && defined $_->{program} && exists $_->{state}) } @{decode_json(<STDIN>)}), "\n"' <ps.json)" \
	0 "every object has its pid, program and whether it publishes a state"
kill -TERM $p1 $p2
wait $p1 $p2 2>/dev/null

# ---- trend --json ------------------------------------------------------------
# rep_grow K keeps K MiB from grow() and 40 KiB from steady(); K minutes
# apart by their names.
now=$(date +%s)
for k in 1 2 3; do
	prof lg_prof_sample:0,prof_final:true,prof_prefix:g "$TP/rep_grow" $k 2>/dev/null
	ts=$(date -u -d "@$((now + 60 * k))" +%Y%m%dT%H%M%SZ)
	mv "$(one_file 'g.*.f.*heap')" "app.4242.$k.i$k.$ts.heap"
done
"$BIN" trend --json app.*.heap >t.json 2>err
is "$?:$(cat err)" "0:" "trend --json exits 0, nothing on stderr"
perl -MJSON::PP -e '
	local $/; my $d = decode_json(<STDIN>);
	my $r = $d->{ranked}[0];
	print join(" ", $d->{format}, $d->{version}, $d->{sample_type}, $d->{unit}, $d->{keys},
		   $d->{timed} ? "timed" : "untimed", $d->{slope_per}, scalar @{$d->{dumps}}), "\n";
	print join(" ", $r->{label} =~ /^grow <- main/ ? "grow" : $r->{label},
		   @{$r->{values}}, $r->{first}, $r->{last}, $r->{delta}, $r->{mono}), "\n";
	printf "%.0f\n", $r->{slope} * 60;
	print join(" ", map { $_->{total} } @{$d->{dumps}}), " $d->{total}{delta}\n";
	print join(" ", map { ($_->{time} // "") =~ /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ ? "t" : "-" } @{$d->{dumps}}), "\n";
' <t.json >got 2>perl.err
is "$(sed -n 1p got)" "heapprof-trend 1 inuse_space bytes stacks timed second 3" \
	"trend --json: what is ranked, over which dumps, slopes per second"
is "$(sed -n 2p got)" "grow 1048576 2097152 3145728 1048576 3145728 2097152 1" \
	"the growing stack first, with its value at every dump, exactly"
is "$(sed -n 3p got)" 1048576 "its slope: 1 MiB a minute"
"$BIN" trend --show-bytes app.*.heap >t.txt
totals=$(sed -n '/^Dumps, in order:/,$p' t.txt | awk 'NR > 1 { print $3 }' | tr '\n' ' ')
delta=$(sed -n 's/^Total: \([0-9]*\) -> \([0-9]*\) .*/\1 \2/p' t.txt | awk '{ print $2 - $1 }')
is "$(sed -n 4p got)" "$totals$delta" "the totals are the text's"
is "$(sed -n 5p got)" "t t t" "each dump with its time"
"$BIN" trend --json --functions --top 1 app.*.heap |
	perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); print "$d->{keys} ", scalar @{$d->{ranked}}, " $d->{ranked}[0]{label}\n"' >got
is "$(cat got)" "functions 1 grow" "--functions --top 1: one function"
done_testing
