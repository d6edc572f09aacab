#!/bin/sh
# Build-ids.  Every dump gives each loaded object's build-id, in comment
# lines that jeprof and go tool pprof skip; --pprof's mappings carry them.
# heapprof report takes a file with the dump's build-id for the binary
# whatever its time, warns in one line when the file at a mapping's path
# has another build-id (a redeploy), and finds the binary the dump was
# taken with by its build-id: --binary, a --debug-dir's .build-id tree (a
# separate debug file is enough: PIE, non-PIE, a library) or a debuginfod
# cache.  Without build-ids (an older dump) --binary is matched by file
# name, and still checked against the dump's mappings.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 51

flat() { awk -v fn="$1" '$6 == fn { print $1; f = 1 } END { if (!f) print 0 }'; }
cum() { awk -v fn="$1" '$6 == fn { print $4; f = 1 } END { if (!f) print 0 }'; }
exact() { prof lg_prof_sample:0,prof_final:true,prof_prefix:"$1" "$2" >/dev/null 2>&1; }
bid() { readelf -n "$1" | sed -n 's/.*Build ID: *//p'; }
# debug FILE DIR: FILE's separate debug file, in DIR's build-id tree.
debug() {
	_id=$(bid "$1") && _d=$2/.build-id/$(echo "$_id" | cut -c1-2) && mkdir -p "$_d" &&
		objcopy --only-keep-debug "$1" "$_d/$(echo "$_id" | cut -c3-).debug"
}
lines() { grep -c . "$1"; }
CFLAGS_T="-O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"

. "$SRC/t/replib.sh"
replib_sources
# The next release: more code in front, so the old offsets mean other code.
filler='void filler(void); void filler(void) { __asm__(".fill 8192,1,0x90"); }'
(echo "$filler"; cat lib.c) >lib2.c
(echo "$filler"; cat main.c) >main2.c
build() { # build MAIN LIB
	cc $CFLAGS_T -shared -fPIC -o libbid.so "$2" &&
		cc $CFLAGS_T -pie -fPIE -o app "$1" -L. -lbid -Wl,-rpath,"$T_DIR"
}
build main.c lib.c
ok $? "built a PIE program and its shared library"
app_id=$(bid app) lib_id=$(bid libbid.so)
exact v1 "$T_DIR/app"
d1=$(one_file 'v1.*.f.*heap')
prof lg_prof_sample:0,prof_final:true,dump_format:jemalloc,prof_prefix:je "$T_DIR/app" >/dev/null 2>&1
dj=$(one_file 'je.*.f.*heap')

# ---- the dump ---------------------------------------------------------------
line=$(grep "^# heapprof build-id: 0x[0-9a-f]* $app_id " "$d1")
is "$line" "# heapprof build-id: $(echo "$line" | cut -d' ' -f4) $app_id $T_DIR/app" \
	"the program's build-id line: its address, build-id and path"
addr=$(echo "$line" | sed 's/^# heapprof build-id: 0x\([0-9a-f]*\) .*/\1/')
like "$(sed -n '/^MAPPED_LIBRARIES:/,$p' "$d1")" "^0*$addr-[0-9a-f]+ r..p 00000000 .* $T_DIR/app\$" \
	"the address is where the program's first page is mapped"
like "$(cat "$d1")" "^# heapprof build-id: 0x[0-9a-f]+ $lib_id $T_DIR/libbid\\.so\$" \
	"the library's line too"
like "$(sed -n '/^MAPPED_LIBRARIES:/,$p' "$d1" | sed 1d | head -n 1)" '^[0-9a-f]+-[0-9a-f]+ ' \
	"the lines come before MAPPED_LIBRARIES, whose lines stay /proc's"
sed '/^# heapprof build-id:/d' "$d1" >old.heap
sed '/^# heapprof build-id:/d' "$dj" >oldj.heap
is "$(jeprof --text --show_bytes "$T_DIR/app" "$d1" 2>/dev/null)" \
	"$(jeprof --text --show_bytes "$T_DIR/app" old.heap 2>/dev/null)" \
	"jeprof reads the dump exactly as without the lines"
is "$(jeprof_bytes "$T_DIR/app" "$d1" local_leak)" 15000 "(local_leak: 15000 bytes)"
is "$(jeprof --text --show_bytes "$T_DIR/app" "$dj" 2>/dev/null)" \
	"$(jeprof --text --show_bytes "$T_DIR/app" oldj.heap 2>/dev/null)" \
	"the jemalloc layout too"
is "$(go tool pprof -top -unit=byte "$T_DIR/app" "$d1" 2>&1)" \
	"$(go tool pprof -top -unit=byte "$T_DIR/app" old.heap 2>&1)" \
	"go tool pprof reads the dump exactly as without the lines"
like "$(go tool pprof -top -unit=byte "$T_DIR/app" "$d1" 2>/dev/null)" '^ *15000B .* local_leak$' \
	"(local_leak: 15000 bytes)"
"$BIN" report --pprof -o p.pb.gz "$d1"
raw=$(go tool pprof -raw p.pb.gz 2>/dev/null)
like "$raw" "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $T_DIR/app $app_id \\[" \
	"--pprof: the program's mapping carries its build-id"
like "$raw" "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $T_DIR/libbid\\.so $lib_id \\[" \
	"and the library's"

# ---- a redeploy: both rebuilt at the same paths -------------------------------
mkdir saved dbg && cp app saved/app.v1 && cp libbid.so saved/libbid.so.v1 &&
	debug app dbg && debug libbid.so dbg
ok $? "kept the first release's binaries, and its debug files in a build-id tree"
build main2.c lib2.c
new_app=$(bid app) new_lib=$(bid libbid.so)
isnt() { if [ "$1" != "$2" ]; then ok 0 "$3"; else ok 1 "$3"; fi; }
isnt "$new_app" "$app_id" "the new release has other build-ids"
"$BIN" report --show-bytes "$d1" >r 2>e
is $? 0 "the dump of the old release is no error"
is "$(flat local_leak <r)$(flat lib_static <r)" 00 "no names from the new binaries"
like "$(cat r)" '^ +5000 .* app\+0x[0-9a-f]+$' "the program's frames are app+0xoffset"
is "$(lines e)" 2 "one line for each binary"
is "$(grep "'$T_DIR/app'" e)" \
	"heapprof: warning: '$T_DIR/app' has build-id $new_app, not the dump's $app_id: its frames are shown as app+0x<offset> (no --binary or debug directory has the dump's)" \
	"a warning says the program at the path is not the dump's, and what to do"
like "$(cat e)" "^heapprof: warning: '$T_DIR/libbid\\.so' has build-id $new_lib, not the dump's $lib_id: " \
	"the library's too"

"$BIN" report --show-bytes --debug-dir "$T_DIR/dbg" "$d1" >r 2>e
is "$(flat local_leak <r)" 15000 "--debug-dir: the old program's debug file names its frames"
is "$(flat lib_static <r)" 14336 "and the old library's"
is "$(cum main <r)" 29336 "every frame"
dbgfile=$T_DIR/dbg/.build-id/$(echo "$app_id" | cut -c1-2)/$(echo "$app_id" | cut -c3-).debug
is "$(grep "'$T_DIR/app'" e)" \
	"heapprof: warning: '$T_DIR/app' has build-id $new_app, not the dump's $app_id: names come from '$dbgfile'" \
	"still one warning per binary, saying where the names come from"
is "$(lines e)" 2 "(two lines)"
"$BIN" report --show-bytes --lines --debug-dir "$T_DIR/dbg" "$d1" >rl 2>/dev/null
like "$(cat rl)" "^ +15000 .* local_leak $T_DIR/main\\.c:7\$" "with source lines"
"$BIN" report --pprof -o q.pb.gz --debug-dir "$T_DIR/dbg" "$d1" 2>/dev/null
raw=$(go tool pprof -raw q.pb.gz 2>/dev/null)
like "$raw" "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $T_DIR/app $app_id \\[FN\\]\\[FL\\]\\[LN\\]" \
	"--pprof: the mapping is the dump's path and build-id, with functions and lines"

"$BIN" report --show-bytes --binary saved/app.v1 --binary "$T_DIR/saved/libbid.so.v1" "$d1" >r 2>e
is "$(flat local_leak <r)$(flat lib_static <r)" 1500014336 \
	"--binary: the saved binaries, under other names, are taken by build-id"
like "$(cat e)" "^heapprof: warning: '$T_DIR/app' has build-id $new_app, not the dump's $app_id: names come from 'saved/app\\.v1'\$" \
	"the warning names the file used"
"$BIN" report --show-bytes --binary "$T_DIR/app" "$d1" >r 2>e
is "$(flat local_leak <r)" 0 "--binary of the new program: its name is the mapping's, its build-id is not"
like "$(cat e)" "^heapprof: warning: '$T_DIR/app' has build-id $new_app, not the dump's $app_id: its frames are shown as app\\+0x<offset> \\(--binary '$T_DIR/app' has build-id $new_app\\)\$" \
	"and the warning says so"

# ---- moved away; installed again ------------------------------------------------
cp saved/libbid.so.v1 libbid.so && touch libbid.so && rm app
"$BIN" report --show-bytes "$d1" >r 2>e
is "$(flat lib_static <r)" 14336 "the old library installed again: its build-id is the dump's, its time does not matter"
is "$(cat e)" "heapprof: note: frames in '$T_DIR/app' are shown as app+0x<offset>: the file is gone, and no --binary or debug directory has its build-id $app_id" \
	"the program gone: one note, with the build-id to look for"
"$BIN" report --show-bytes --binary saved/app.v1 "$d1" >r 2>e
is "$(flat local_leak <r)" 15000 "--binary gives it back"
is "$(cat e)" "" "silently"
mkdir -p cache/"$app_id" && cp saved/app.v1 cache/"$app_id"/executable
"$BIN" report --show-bytes --debug-dir "$T_DIR/cache" "$d1" >r 2>e
is "$(flat local_leak <r)" 15000 "so does a debuginfod cache (<id>/executable) given as --debug-dir"
is "$(cat e)" "" "(silently)"

# ---- a non-PIE program, only its debug file left ----------------------------------
cc $CFLAGS_T -no-pie -fno-PIE -o nopie main.c -L. -lbid -Wl,-rpath,"$T_DIR" && debug nopie dbg
ok $? "built a non-PIE program, its debug file in the tree"
exact np "$T_DIR/nopie"
rm nopie
"$BIN" report --show-bytes --debug-dir "$T_DIR/dbg" "$(one_file 'np.*.f.*heap')" >r 2>e
is "$(flat local_leak <r)" 15000 "non-PIE, binary gone: the debug file names its frames"
is "$(cat e)" "" "(silently)"

# ---- an older dump: no build-ids -------------------------------------------------
"$BIN" report --show-bytes old.heap >r 2>e
is "$(flat local_leak <r)" 0 "an older dump, the program gone: offsets"
"$BIN" report --show-bytes --binary saved/app.v1 old.heap >r 2>e
is "$(flat local_leak <r)" 0 "--binary under another name is not taken without a build-id"
mkdir byname && cp saved/app.v1 byname/app
"$BIN" report --show-bytes --binary byname/app old.heap >r 2>e
is "$(flat local_leak <r)" 15000 "--binary of the mapping's file name is, newer than the dump or not"
is "$(grep "'$T_DIR/app'" e)" "" "(silently)"
cc $CFLAGS_T -o byname/app main2.c -L. -lbid -Wl,-rpath,"$T_DIR"
"$BIN" report --show-bytes --binary byname/app old.heap >r 2>e
is "$(flat local_leak <r)" 0 "but one of another build is refused"
like "$(cat e)" "^heapprof: note: frames in '$T_DIR/app' are shown as app\\+0x<offset>: its segments do not match the dump's mappings\$" \
	"by the dump's mappings"

# ---- replaced while it ran ---------------------------------------------------------
# The maps say "(deleted)" when the file was replaced after it was mapped;
# a file with the dump's build-id at the path is the binary all the same.
cp saved/app.v1 app
sed "s|$T_DIR/app\$|$T_DIR/app (deleted)|" "$d1" >del.heap
"$BIN" report --show-bytes del.heap >r 2>e
is "$(flat local_leak <r)" 15000 "'(deleted)' in the maps, the dump's build-id at the path: names"
is "$(cat e)" "" "(silently)"

# ---- usage -------------------------------------------------------------------------
"$BIN" report --binary nonexistent "$d1" >/dev/null 2>e
is $? 2 "--binary of a missing file is a usage error"
is "$(head -n 1 e)" "heapprof report: --binary: cannot read 'nonexistent': No such file or directory" \
	"that says so"
echo text >notelf
"$BIN" report --binary notelf "$d1" >/dev/null 2>e
is "$?:$(cat e)" "1:heapprof: --binary 'notelf': the file is not an ELF executable or library" \
	"--binary of a file that is not ELF is an error"
done_testing
