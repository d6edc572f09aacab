#!/bin/sh
# Programs that move their own code.  node --use-largepages and
# libhugetlbfs copy their text into anonymous memory at the same
# addresses; V8 maps node's embedded builtins a second time from the
# binary, elsewhere.  heapprof report names those frames from the binary,
# as jeprof does, and never names a JIT's code: anonymous executable
# memory away from the binary's segments stays an address.  heapprof
# check's verdicts and the dumps' own symbol section (dump_symbols) name
# them too.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 33

# names: the function column of a report or jeprof --text on stdin.
names() { awk '$2 ~ /^[0-9.]+%$/ { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }'; }
flat() { awk -v fn="$1" '$6 == fn { print $1; f = 1 } END { if (!f) print 0 }'; }
cum() { awk -v fn="$1" '$6 == fn { print $4; f = 1 } END { if (!f) print 0 }'; }
# maps DUMP: its MAPPED_LIBRARIES lines.
maps() { sed -n '/^MAPPED_LIBRARIES:/,$p' "$1" | sed 1d; }
run() { prof lg_prof_sample:0,prof_final:true,prof_prefix:"$1" "$TP/remaptext" "$1" >"$1.out" 2>"$1.err"; }

# ---- the fixture: the layouts it makes ------------------------------------
for mode in middle whole copy jit; do
	run $mode
	is $? 0 "remaptext $mode runs"
done
prog=$TP/remaptext
middle=$(one_file 'middle.*.f.*heap') whole=$(one_file 'whole.*.f.*heap')
copy=$(one_file 'copy.*.f.*heap') jit=$(one_file 'jit.*.f.*heap')
# The anonymous range, and the mappings on either side of it.
range=$(sed -n 's/^anonymous 0x\([0-9a-f]*\)-0x\([0-9a-f]*\)$/\1-\2/p' middle.out)
around=$(maps "$middle" | grep -B1 -A1 "^$range " | awk '{ print $2, $6 }' | tr '\n' ' ')
is "$around" "r-xp $prog r-xp  r-xp $prog " \
	"middle: the page is anonymous r-x between two file-backed r-x pieces of the program"
range=$(sed -n 's/^anonymous 0x\([0-9a-f]*\)-0x\([0-9a-f]*\)$/\1-\2/p' whole.out)
is "$(maps "$whole" | grep -c " r-xp .*$prog\$")" 0 "whole: no executable mapping of the program's file is left"
like "$(maps "$whole")" "^$range r-xp 00000000 00:00 0 *\$" "whole: the segment is anonymous"
range=$(sed -n 's/^copy 0x\([0-9a-f]*\)-0x\([0-9a-f]*\)$/\1-\2/p' copy.out)
like "$(maps "$copy")" "^$range r-xp [0-9a-f]+ [0-9a-f:]+ [0-9]+ +$prog\$" \
	"copy: a second r-x mapping of the program's file, away from it"

# ---- heapprof report ------------------------------------------------------
"$BIN" report --show-bytes "$middle" >r 2>e
is "$(flat remap_leaf <r)" 20000 "middle: the frame in the anonymous page is named, with its bytes"
is "$(cum main <r)" 24096 "middle: and the program's file-backed frames keep their names"
is "$(cat e)" "" "middle: the program is not taken for a rebuilt one"
"$BIN" report --lines --show-bytes "$middle" >rl
like "$(cat rl)" "^ +20000 .* remap_leaf .*remaptext\\.c:[0-9]+\$" "middle: with its source line"
"$BIN" report --show-bytes "$whole" >r 2>e
is "$(flat remap_leaf <r)" 20000 "whole: the frame in the anonymous segment is named"
is "$(cum main <r)" 24096 "whole: main too"
"$BIN" report --show-bytes "$copy" >r 2>e
is "$(flat pi_alloc <r)" 21000 "copy: the frame in the second mapping is named"
is "$(cum main <r)" 25096 "copy: and the program's own mappings keep their names"
is "$(cat e)" "" "copy: the program is not taken for a rebuilt one"
is "$(jeprof_bytes "$prog" "$copy" pi_alloc)" 21000 "copy: as jeprof names it"
"$BIN" report --show-bytes "$jit" >r 2>e
is "$(flat pi_alloc <r)" 0 "jit: code the binary does not own there is not named after it"
like "$(cat r)" "^ +21000 .* 0x[0-9a-f]+\$" "jit: it stays an address"
is "$(cum main <r)" 25096 "jit: main is named"

# ---- heapprof check's verdicts ----------------------------------------------
"$BIN" check "$prog" middle >c 2>&1
like "$(cat c)" "^    #0 0x[0-9a-f]+ in remap_leaf .*remaptext\\.c:[0-9]+\$" \
	"check, middle: the leak's frame in the anonymous page is named"
"$BIN" check "$prog" copy >c 2>&1
like "$(cat c)" "^    #0 0x[0-9a-f]+ in pi_alloc .*remaptext\\.c:[0-9]+\$" \
	"check, copy: the leak's frame in the second mapping is named"

# ---- the dumps' symbol section ------------------------------------------------
for mode in middle copy; do
	prof lg_prof_sample:0,prof_final:true,dump_symbols:true,prof_prefix:sym$mode \
		"$prog" $mode >/dev/null 2>&1
	jeprof --text --show_bytes "$(one_file "sym$mode.*.f.*heap")" 2>/dev/null >j$mode
done
is "$(flat remap_leaf <jmiddle)" 20000 \
	"dump_symbols, middle: jeprof without the binary names remap_leaf"
is "$(flat pi_alloc <jcopy)" 21000 \
	"dump_symbols, copy: jeprof without the binary names pi_alloc (the second mapping)"

# ---- node ---------------------------------------------------------------
# node's own frames, in a dump taken while V8's builtins are mapped a
# second time (at exit they are gone): every node:: function jeprof names,
# report names.  With --use-largepages=on, node's text is anonymous too.
node=$(command -v node || command -v nodejs)
if [ -z "$node" ]; then
	for i in $(seq 1 8); do ok 0 "# SKIP node is not installed (make deps)"; done
	done_testing
fi
node=$(readlink -f "$node")
js='const a = []; for (let i = 0; i < 1e5; i++) a.push(Buffer.alloc(100));'
for kind in plain large; do
	opt=
	[ $kind = large ] && opt=--use-largepages=on
	mkdir $kind
	prof lg_prof_sample:0,lg_prof_interval:23,prof_prefix:$kind/n "$node" $opt -e "$js" \
		>/dev/null 2>&1
	d=$(ls $kind/n.*.i*.heap 2>/dev/null | sort -t. -k3 -n | tail -n 1)
	if [ -z "$d" ]; then
		ok 1 "node ($kind): an interval dump"
		continue
	fi
	if [ $kind = large ] && ! maps "$d" | grep -B1 " r-xp 00000000 00:00 0 *\$" |
			grep -q " r-xp .* $node\$"; then
		for i in $(seq 1 4); do ok 0 "# SKIP node did not move its text to large pages here"; done
		continue
	fi
	"$BIN" report --nodecount=100000 "$d" >r 2>e
	jeprof --text --nodecount=100000 "$node" "$d" 2>/dev/null >j
	# jeprof tells apart functions that share a short name: name@address.
	names <j | sed 's/@[0-9a-f]*$//' | grep '^node::' | sort -u >jn
	names <r | grep '^node::' | sort -u >rn
	ok $([ -s jn ]; echo $?) "node ($kind): jeprof names node:: functions ($(wc -l <jn))"
	is "$(comm -23 jn rn | head -n 5)" "" "node ($kind): report names every one of them"
	like "$(names <r | head -n 1)" '^node::NodeArrayBufferAllocator::Allocate$' \
		"node ($kind): Buffer.alloc's bytes are node::NodeArrayBufferAllocator::Allocate's"
	unlike "$(cat e)" "frames in '$node'" "node ($kind): node is not taken for a rebuilt binary"
done
done_testing
