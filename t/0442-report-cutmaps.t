#!/bin/sh
# A dump cut inside MAPPED_LIBRARIES (a full disk, a copy cut short): its
# stacks are whole, so it is read, with one line naming the file and
# saying that frames in the lost mappings are not named; a cut in the
# middle of a line drops that line rather than failing the report or
# reading a wrong path.  A whole dump reads without a word.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 10

prof lg_prof_sample:0,prof_final:true,prof_prefix:a "$TP/seed" >/dev/null 2>&1
f=$(one_file 'a.*.f.*.heap')
"$BIN" report "$f" >out 2>err
is "$?:$(cat err)" "0:" "a whole dump: no warning"

# Cut in the middle of a maps line, at five places from the end.
size=$(stat -c %s "$f")
bad=
for cut in 20 45 70 150 600; do
	head -c $((size - cut)) "$f" >cut$cut.heap
	"$BIN" report --show-bytes cut$cut.heap >out 2>err
	st=$?
	if [ $st -ne 0 ] || [ "$(wc -l <err)" -ne 1 ] ||
	   ! grep -Eq "^heapprof: warning: 'cut$cut\\.heap' ends inside MAPPED_LIBRARIES, in the middle of line [0-9]+ \\(a cut dump\\?\\): frames in the mappings it lost are not named\$" err ||
	   ! grep -q ' 3235840 .* do_something$' out; then
		bad="$bad $cut"
		diag "cut $cut bytes short: status $st" "$(cat err)"
	fi
done
is "$bad" "" "cut inside a maps line (5 places): read, status 0, one warning naming the file and the line"
like "$(cat err)" "line $(( $(wc -l <cut600.heap) + 1 )) " "the line named is the file's last (unended)"

# Cut at the end of a line: only the first three mappings are left; the
# frames above them cannot be named.
n=$(grep -n '^MAPPED_LIBRARIES:' "$f" | cut -d: -f1)
head -n $((n + 3)) "$f" >lines.heap
"$BIN" report --show-bytes lines.heap >out 2>err
is "$?" 0 "cut at the end of a maps line: read"
like "$(cat err)" "^heapprof: warning: 'lines\\.heap': MAPPED_LIBRARIES ends below [0-9]+ of the dump's [0-9]+ frames \\(a cut dump\\?\\): they are not named\$" \
	"one line says the maps end below some frames"
is "$(wc -l <err)" 1 "and only one"
like "$(cat out)" ' 3235840 .* do_something$' "the program's own frames are still named"

# Every reader of dumps says it: trend, and the other formats.
cp "$f" a.1.1.i1.heap
cp cut70.heap a.1.2.i2.heap
"$BIN" trend a.1.1.i1.heap a.1.2.i2.heap >out 2>err
like "$?:$(cat err)" "^0:heapprof: warning: 'a\\.1\\.2\\.i2\\.heap' ends inside MAPPED_LIBRARIES" "trend warns, naming the cut dump"
"$BIN" report --pprof -o p.pb.gz cut70.heap >out 2>err
like "$?:$(cat err)" "^0:heapprof: warning: 'cut70\\.heap' ends inside" "report --pprof warns too"
"$BIN" report --json cut70.heap >out 2>err
is "$(grep -c 'warning' err):$(head -c 1 out)" "1:{" "--json: the warning on standard error, the JSON whole"
done_testing
