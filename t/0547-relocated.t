#!/bin/sh
# An installation moved elsewhere (bin/heapprof beside lib/libheapprof.so)
# names itself by clean paths: heapprof help's LD_PRELOAD line, and the
# command the leak summary's "Run ... report" line gives, never
# "bin/../bin/heapprof"; a library preloaded by such a path says the clean
# one too, unless a symbolic link makes it another file.
. "$(dirname "$0")/lib.sh"
plan 7

mkdir -p r/bin r/lib
cp "$BIN" r/bin/heapprof
cp "$LIB" r/lib/libheapprof.so
R=$T_DIR/r
# runline ERR: the command of the "Run ... report DUMP for leak detail" line.
runline() { sed -n 's/^<heapprof>: Run \(.*\) report .* for leak detail$/\1/p' "$1"; }

"$R/bin/heapprof" help >help 2>&1
like "$(cat help)" "LD_PRELOAD=$R/lib/libheapprof\\.so " "heapprof help: LD_PRELOAD names the library by a clean path"

"$R/bin/heapprof" run -c prof_leak:true,lg_prof_sample:0 "$TP/seed" >/dev/null 2>err
is "$(runline err)" "$R/bin/heapprof" "heapprof run: the leak summary names bin/heapprof, not bin/../bin/heapprof"
dump=$(sed -n 's/^<heapprof>: Run .* report \(.*\) for leak detail$/\1/p' err)
"$(runline err)" report "$dump" >out 2>&1
is "$?" 0 "and that command reports the dump"

LD_PRELOAD="$R/bin/../lib/./libheapprof.so" HEAPPROF_CONF=prof_leak:true,lg_prof_sample:0,prof_prefix:x \
	"$TP/seed" >/dev/null 2>err
is "$(runline err)" "$R/bin/heapprof" "preloaded as bin/../lib/./libheapprof.so: bin/heapprof"
unlike "$(grep '^<heapprof>: Run ' err)" '/\.\.?/' "no ./ or ../ in the line"

# Through a link, "link/.." is not the link's directory: the path stays
# as it was, and works.
mkdir elsewhere
ln -s "$R/bin" elsewhere/link
LD_PRELOAD="$T_DIR/elsewhere/link/../lib/libheapprof.so" HEAPPROF_CONF=prof_leak:true,lg_prof_sample:0,prof_prefix:x \
	"$TP/seed" >/dev/null 2>err
cmd=$(runline err)
is "$cmd" "$T_DIR/elsewhere/link/../bin/heapprof" "through a symbolic link the name is kept (the clean one is another file)"
ok $([ -x "$cmd" ]; echo $?) "and names the command"
done_testing
