#!/bin/sh
# The peak and temporary lines in dumps: jeprof and go tool pprof read a
# dump exactly as they read it without them (both layouts, with and
# without cumulative counts); heapprof report --peak renders every format
# from them; --peak and --temporary refuse dumps that have none and
# option mixes that mean nothing; malformed lines are one clear error.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 35

MiB=1048576
tprof() {
	_c=$1
	shift
	timeout 20 env HEAPPROF_CONF="$_c" LD_PRELOAD="$LIB" "$TP/peaktmp" "$@"
}

# --- third-party readers: the same as without the lines -----------------
for layout in gperftools jemalloc; do
	for accum in false true; do
		tprof lg_prof_sample:0,prof_final:true,prof_prefix:$layout$accum,dump_format:$layout,prof_accum:$accum \
			basic 200 1024 >/dev/null 2>err
		d=$(ls $layout$accum.*.f.*.heap)
		n=$(grep -c '^ *#' "$d")
		grep -v '^ *#' "$d" >plain.heap
		jeprof --text --show_bytes "$TP/peaktmp" "$d" >j1 2>/dev/null
		jeprof --text --show_bytes "$TP/peaktmp" plain.heap >j2 2>/dev/null
		ok $([ "$n" -ge 3 ] && [ -s j1 ] && cmp -s j1 j2; echo $?) \
			"jeprof --text: a $layout dump (prof_accum:$accum) with its $n peak lines reads as without them"
		if [ $layout = gperftools ]; then
			go tool pprof -top -unit=byte "$TP/peaktmp" "$d" >p1 2>/dev/null
			go tool pprof -top -unit=byte "$TP/peaktmp" plain.heap >p2 2>/dev/null
			ok $([ -s p1 ] && cmp -s p1 p2; echo $?) \
				"go tool pprof -top: the same (prof_accum:$accum)"
		fi
	done
done
if [ $_t_failed -ne 0 ]; then
	diag "$(diff j1 j2 | head -20)" "$(diff p1 p2 | head -20)"
fi

# --- report --peak in every format ---------------------------------------
tprof lg_prof_sample:0,prof_final:true,prof_prefix:ex basic 200 1024 >/dev/null 2>err
d=$(ls ex.*.f.*.heap)
# Without --peak or --temporary, heapprof report reads as without the lines
# (the stacks that have only a peak line add nothing).
grep -v '^ *#' "$d" >ex-plain.heap
for fmt in --text --tree --collapsed; do
	"$BIN" report $fmt --show-bytes "$d" >r1 2>&1
	"$BIN" report $fmt --show-bytes ex-plain.heap 2>&1 | sed "s/ex-plain\.heap/$d/g" >r2
	ok $(cmp -s r1 r2; echo $?) "heapprof report $fmt: the same as without the lines"
done
like "$("$BIN" report --peak --collapsed "$d")" ';main;f;touch 3145728$' "--collapsed: f's 3 MiB at the peak"
like "$("$BIN" report --peak --tree --show-bytes "$d")" '^Total: [0-9]+ B \(inuse_space at the peak, 1 dump\)$' \
	"--tree: the headline says at the peak"
"$BIN" report --peak --json "$d" >js
ok $(perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
	my ($f) = grep { $_->{name} eq "f" } @{$j->{functions}};
	exit !($j->{at_peak} && $f->{cum} == '$((3 * MiB))')' <js; echo $?) \
	"--json: at_peak, f's cum is 3 MiB"
"$BIN" report --peak --pprof -o pk.pb.gz "$d"
like "$(go tool pprof -top -unit=byte pk.pb.gz 2>/dev/null)" ' 3145728B +[0-9.]+% +f$' \
	"--pprof: go tool pprof sees f's 3 MiB (inuse_space at the peak)"
"$BIN" report --peak --svg -o pk.svg "$d"
ok $(xmllint --noout pk.svg 2>/dev/null && grep -q '>f<\|>f (' pk.svg; echo $?) "--svg: a valid flame graph with f"
# Every rendering says the values are at the peak, not the live heap's.
"$BIN" report --peak --graph "$d" >pk.dot
like "$(grep -o 'Type: [a-z_ ]*' pk.dot)" '^Type: inuse_space at the peak$' "--graph: the legend says at the peak"
like "$(grep -o 'class="title"[^<]*' pk.svg)" 'flame graph: inuse_space at the peak$' "--svg: the title says at the peak"
"$BIN" report --peak --html -o pk.html "$d"
like "$(grep -o '<title>[^<]*' pk.html)" 'flame graph: inuse_space at the peak$' "--html: so does the page's title"
"$BIN" report --show-bytes "$d" >now
"$BIN" report --peak --show-bytes "$d" >atpeak
ok $(! cmp -s now atpeak; echo $?) "--peak shows something else than the live heap at exit"

# --- refusals ------------------------------------------------------------
# A dump of an older heapprof (the golden tests' fixture).
sed "s|@GOLDEN@|$SRC/t/golden|g" "$SRC/t/golden/dumps/gperf.heap" >old.heap
g=old.heap
"$BIN" report --peak "$g" >out 2>e
is "$?:$(cat e)" "1:heapprof: '$g' has no peak figures (a dump of jemalloc, gperftools or an older heapprof)" \
	"--peak on a dump without peak lines: status 1, one line"
"$BIN" report --temporary "$g" >out 2>e
is "$?:$(cat e)" "1:heapprof: '$g' has no counts of temporary allocations (a dump of jemalloc, gperftools or an older heapprof)" \
	"--temporary on such a dump: status 1, one line"
for bad in "--peak --temporary" "--temporary --pprof" "--temporary --inuse-space" "--temporary --base $d"; do
	"$BIN" report $bad "$d" >out 2>e
	st=$?
	ok $([ $st -eq 2 ] && [ ! -s out ] && grep -q '^heapprof report: ' e; echo $?) "report $bad: a usage error (status 2)"
done

# dump_peak:false: the process's three lines, no stack's; the dump is the
# one without the lines plus those three, and --peak and --temporary say why
# they have nothing to show.
tprof lg_prof_sample:0,prof_final:true,prof_prefix:np,dump_peak:false basic 200 1024 >/dev/null 2>err
n=$(ls np.*.f.*.heap)
is "$(grep '^ *#' "$n" | grep -v '^# heapprof build-id:' | sed 's/:.*//' | tr '\n' ' ')" \
	"# heapprof peak # heapprof temporary # heapprof time " \
	"dump_peak:false: only the process's peak, temporary and time lines"
"$BIN" report --peak "$n" >out 2>e
is "$?:$(cat e)" "1:heapprof: '$n' has the process's peak but not its stacks' (written with dump_peak:false)" \
	"--peak on it: status 1, one line that names the option"
"$BIN" report --temporary "$n" >out 2>e
like "$?:$(cat e)" "^1:heapprof: '$n' has the process's temporary allocations but not its stacks' \\(written with dump_peak:false\\)\$" \
	"--temporary on it: the same"

# --- malformed lines -----------------------------------------------------
row=$(grep -m1 '^[0-9]' "$d")
maps=$(sed -n '/^MAPPED_LIBRARIES:/,$p' "$d")
mk() { printf 'heap profile: 1: 10 [0: 0] @ heap_v2/1\n%s\n\n%s\n' "$1" "$maps" >"$2"; }
rejects() {
	"$BIN" report --peak "$1" >out 2>e
	st=$?
	ok $([ $st -eq 1 ] && [ ! -s out ] && [ "$(wc -l <e)" -eq 1 ] && grep -Eq -- "$2" e; echo $?) "$3"
	[ $st -eq 1 ] || diag "status $st: $(cat e)"
}
mk "# heapprof peak: 1: 10
$row
# peak: x" b1.heap
rejects b1.heap "^heapprof: cannot read 'b1.heap': line 4: expected '# peak: <objects>: <bytes> temporary:" \
	"a garbled '# peak:' line: its line number"
mk "# heapprof peak: 1: 10
# peak: 1: 10 temporary: 0: 1" b2.heap
rejects b2.heap "line 3: '# peak:' line with no stack row before it" "a '# peak:' line with no row before it"
mk "# heapprof peak: 1
$row" b3.heap
rejects b3.heap "line 2: expected '# heapprof peak: <objects>: <bytes>'" "a garbled '# heapprof peak:' line"
mk "# heapprof peak: 1: 10
$row
# peak: 1: 10 temporary: 0: 1
# peak: 1: 10 temporary: 0: 1" b4.heap
rejects b4.heap "line 5: '# peak:' line with no stack row before it" "two '# peak:' lines for one row"
mk "$row
# zero-size: 12 @" b5.heap
rejects b5.heap "line 3: expected '# zero-size: <live objects>: <allocated objects> @ <addresses>'" \
	"a garbled '# zero-size:' line"
mk "$row
# zero-size: 12: 30 @ 0x1234 0x5678" z.heap
"$BIN" report --text --inuse_objects z.heap >out 2>e
like "$?:$(cat e)$(grep -c ' 12 .*0x1234' out)" "^0:[1-9]" "a '# zero-size:' line is a stack of its own with its objects"
mk "# heapprof peak: 1: 10
# a comment of someone else's
$row
# peak: 1: 10 temporary: 0: 1 @ 0x1234 0x5678" ok.heap
"$BIN" report --peak --show-bytes ok.heap >out 2>e
is "$?" 0 "other comments are skipped; a '# peak: ... @ frames' line is a stack of its own"
mk "# heapprof peak: 1: 10 moving
$row
# peak: 1: 10 temporary: 0: 1" mv.heap
"$BIN" report --peak mv.heap >out 2>e
like "$?:$(cat e)" "^0:heapprof: note: 'mv.heap' was written while the heap reached new peaks" \
	"a dump that caught no still peak: report --peak says so"
