#!/bin/sh
# heapprof report's symbolization: inlined frames with their lines, C++
# names, a shared library of our own, PIE and non-PIE executables,
# separate debug information (debuglink next to the binary or in
# --debug-dir, build-id directories), and what happens when the binary is
# stripped, rebuilt after the dump or gone: module+0xoffset, never a wrong
# name.  Also dumps with a symbol section, read without the binary.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 49

flat() { awk -v fn="$1" '$6 == fn { print $1; f = 1 } END { if (!f) print 0 }'; }
cum() { awk -v fn="$1" '$6 == fn { print $4; f = 1 } END { if (!f) print 0 }'; }
# line PATTERN FILE: the first line number of FILE matching PATTERN.
line() { grep -n -- "$1" "$2" | head -n 1 | cut -d: -f1; }
exact() { prof lg_prof_sample:0,prof_final:true,prof_prefix:"$1" "$2"; }
CFLAGS_T="-O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"

# ---- inlined frames ------------------------------------------------------
exact inl "$TP/rep_inline"
inl=$(one_file 'inl.*.f.*heap')
"$BIN" report --show-bytes "$inl" >r
is "$(flat leaf_alloc <r)" 20000 "an inlined function is its own frame, with the flat bytes"
is "$(cum middle <r)" 20000 "the function it is inlined into is its caller"
is "$(cum outer <r)" 20000 "and so on out to the real function"
is "$(flat outer <r)" 0 "which keeps no flat bytes of its own"
is "$(flat plain <r)" 15000 "a plain function is unaffected"
src=$SRC/t/prog/rep_inline.c
"$BIN" report --lines --show-bytes "$inl" >rl
like "$(cat rl)" " leaf_alloc .*rep_inline\\.c:$(line 'return malloc(n);' "$src")\$" \
	"--lines: the inlined leaf at its malloc line"
like "$(cat rl)" " middle .*rep_inline\\.c:$(line 'void \*p = leaf_alloc(n);' "$src")\$" \
	"--lines: middle at the line where leaf_alloc was inlined"
like "$(cat rl)" " outer .*rep_inline\\.c:$(line 'sink = middle(1000);' "$src")\$" \
	"--lines: outer at the line where middle was inlined"

# ---- C++ -----------------------------------------------------------------
exact cx "$TP/rep_cxx"
cx=$(one_file 'cx.*.f.*heap')
"$BIN" report --show-bytes "$cx" >c
is "$(flat store::Pool::make <c)" 1280 "a template member: jeprof's short name store::Pool::make"
is "$(flat fill <c)" 8000 "overloads share their short name"
is "$(flat Holder::Holder <c)" 4000 "a constructor: Holder::Holder"
"$BIN" report --show-bytes --full-names "$cx" >cf
is "$(flat 'store::Pool<store::Item>::make(int)' <cf)" 1280 "--full-names: demangled in full"
is "$(flat 'fill(int)' <cf)" 4000 "--full-names: fill(int) apart"
is "$(flat 'fill(double)' <cf)" 4000 "--full-names: fill(double) apart"
is "$(jeprof_bytes "$TP/rep_cxx" "$cx" store::Pool::make)" 1280 "jeprof names it the same way"

# ---- a shared library, PIE and non-PIE -----------------------------------
. "$SRC/t/replib.sh"
replib_sources
cc $CFLAGS_T -shared -fPIC -o libreplib.so lib.c &&
	cc $CFLAGS_T -pie -fPIE -o pie main.c -L. -lreplib -Wl,-rpath,"$T_DIR" &&
	cc $CFLAGS_T -no-pie -fno-PIE -o nopie main.c -L. -lreplib -Wl,-rpath,"$T_DIR"
ok $? "built a shared library and a PIE and a non-PIE program using it"
exact pie ./pie
"$BIN" report --show-bytes "$(one_file 'pie.*.f.*heap')" >p
is "$(flat lib_static <p)" 14336 "a static function in our shared library"
is "$(cum lib_entry <p)" 14336 "and its exported caller"
is "$(flat local_leak <p)" 15000 "a static function in the PIE executable"
exact nopie ./nopie
"$BIN" report --show-bytes "$(one_file 'nopie.*.f.*heap')" >np
like "$(readelf -h nopie)" 'Type: +EXEC' "the non-PIE program is ET_EXEC"
is "$(flat local_leak <np)" 15000 "a static function in the non-PIE executable"
is "$(flat lib_static <np)" 14336 "and in the library it loads"

# ---- separate debug information ------------------------------------------
cp pie sep && objcopy --only-keep-debug sep sep.debug && strip -s sep &&
	objcopy --add-gnu-debuglink=sep.debug sep && mkdir dbg && mv sep.debug dbg/
exact sep ./sep
sep=$(one_file 'sep.*.f.*heap')
"$BIN" report --show-bytes "$sep" >s1 2>err
is "$(flat local_leak <s1)" 0 "stripped, debug file elsewhere: no name for local_leak"
like "$(cat s1)" ' sep\+0x[0-9a-f]+$' "but sep+0xoffset"
"$BIN" report --show-bytes --lines --debug-dir "$T_DIR/dbg" "$sep" >s2
like "$(cat s2)" "^ +15000 .* local_leak $T_DIR/main\\.c:$(line 'sink = malloc(5000);' main.c)\$" \
	"--debug-dir: the .gnu_debuglink file gives names and lines"
cp dbg/sep.debug . && "$BIN" report --show-bytes "$sep" >s3
is "$(flat local_leak <s3)" 15000 "a debug file next to the binary is found without options"

cp pie bid && id=$(readelf -n bid | sed -n 's/.*Build ID: *//p') &&
	mkdir -p ids/.build-id/$(echo "$id" | cut -c1-2) &&
	objcopy --only-keep-debug bid "ids/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" &&
	strip -s bid
ok $? "a binary whose debug file lives in a build-id directory"
exact bid ./bid
"$BIN" report --show-bytes --debug-dir "$T_DIR/ids" "$(one_file 'bid.*.f.*heap')" >b
is "$(flat local_leak <b)" 15000 "found by build-id under --debug-dir"

# ---- stripped, rebuilt, gone ---------------------------------------------
cp pie stripped && strip -s stripped
exact st ./stripped
"$BIN" report --show-bytes "$(one_file 'st.*.f.*heap')" >st
is "$(flat local_leak <st)" 0 "stripped binary: no name for a static function"
like "$(cat st)" '^ +5000 .* stripped\+0x[0-9a-f]+$' "its frames are stripped+0xoffset"
is "$(flat lib_static <st)" 14336 "the library it uses still has names"

cp pie rebuilt
exact rb ./rebuilt
rb=$(one_file 'rb.*.f.*heap')
# As an older heapprof wrote it, without build-ids: the file's time and
# segments decide (t/0418 has the build-ids).
sed -i '/^# heapprof build-id:/d' "$rb"
sleep 1
# Recompiled with more code in front: the old offsets now mean other code.
(echo 'void filler(void); void filler(void) { __asm__(".fill 8192,1,0x90"); }'; cat main.c) >main2.c
cc $CFLAGS_T -o rebuilt main2.c -L. -lreplib -Wl,-rpath,"$T_DIR"
"$BIN" report --show-bytes "$rb" >rb.out 2>rb.err
is $? 0 "a binary rebuilt after the dump is no error"
is "$(flat local_leak <rb.out)" 0 "but its frames get no names"
like "$(cat rb.out)" ' rebuilt\+0x[0-9a-f]+$' "only rebuilt+0xoffset"
like "$(cat rb.err)" "^heapprof: note: frames in '$T_DIR/rebuilt' are shown as rebuilt\\+0x<offset>: the file was modified after the dump was written\$" \
	"and a note says why"
touch -d '2000-01-01 00:00' rebuilt
"$BIN" report --show-bytes "$rb" >rb2.out 2>rb2.err
is "$(flat local_leak <rb2.out)" 0 "an old timestamp does not fool it"
like "$(cat rb2.err)" 'its segments do not match the dump.s mappings$' "the segments give it away"

# Overwritten in place (same inode): the dump from before and the dump
# from after share the module, and each is judged on its own.
cp pie inplace
exact ip1 ./inplace
ip1=$(one_file 'ip1.*.f.*heap')
sed -i '/^# heapprof build-id:/d' "$ip1"
sleep 1
cc $CFLAGS_T -o variant main2.c -L. -lreplib -Wl,-rpath,"$T_DIR" && cat variant >inplace
exact ip2 ./inplace
sed -i '/^# heapprof build-id:/d' "$(one_file 'ip2.*.f.*heap')"
"$BIN" report --merge --show-bytes "$(one_file 'ip2.*.f.*heap')" "$ip1" >ip 2>iperr
is "$(flat local_leak <ip)" 15000 "in place: the dump after the change has names"
like "$(cat ip)" ' inplace\+0x[0-9a-f]+$' "the dump before it has offsets"
like "$(cat iperr)" "'$T_DIR/inplace' .*: the file was modified after the dump was written\$" \
	"and the note is about that one"

cp pie gone
exact gone ./gone
rm gone
"$BIN" report --show-bytes "$(one_file 'gone.*.f.*heap')" >g 2>gerr
is $? 0 "a missing binary is no error"
like "$(cat g)" ' gone\+0x[0-9a-f]+$' "its frames are gone+0xoffset"
like "$(cat gerr)" ': the file is gone, and no --binary or debug directory has its build-id [0-9a-f]{40}$' \
	"and a note says why"

# ---- symbol sections -----------------------------------------------------
# jeprof's symbolized format: frame 0 is looked up at its address, the
# callers one byte lower; "a--b" is b inlined into a.
cat >sym.heap <<'EOF'
--- symbol
binary=/nonexistent/app
0x401000 alloc_here
0x401fff caller_fn
0x402fff main
0x403000 outer_fn--inlined_fn
---
--- heap
heap profile: 5: 500 [0: 0] @ heap_v2/1
3: 300 [0: 0] @ 0x401000 0x402000 0x403000
2: 200 [0: 0] @ 0x403000 0x402000 0x403000

MAPPED_LIBRARIES:
00400000-00500000 r-xp 00000000 00:00 0          /nonexistent/app
EOF
"$BIN" report --show-bytes sym.heap >sy 2>syerr
is "$(flat alloc_here <sy)" 300 "symbol section: frame 0 at its own address"
is "$(cum caller_fn <sy)" 500 "callers at their address minus one"
is "$(flat inlined_fn <sy)" 200 "'outer--inner': the inner one is the leaf"
is "$(cum outer_fn <sy)" 200 "and the outer one its caller"
is "$(cat syerr)" "" "no binary needed, no note"
is "$(jeprof --text --show_bytes sym.heap 2>/dev/null | awk '$6 == "alloc_here" { print $1 }')" 300 \
	"jeprof reads the same file the same way"
done_testing
