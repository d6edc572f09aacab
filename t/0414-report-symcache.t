#!/bin/sh
# The report's symbol cache (src/report/symcache.h): the answers of a
# module with a build ID are kept on disk by (build ID, debug file), so
# that the next report, explorer view or leaky heapprof check does not
# open its DWARF again (libdw decompresses every debug section first:
# libc's, about 40 ms).  Reports with and without it are the same, byte
# for byte; a debug file installed or removed makes another key; a
# damaged file is ignored and replaced; a link planted in its place is
# not followed; a directory others may write is not used; HEAPPROF_CACHE=
# turns it off; by default it lives in $XDG_CACHE_HOME/heapprof or
# ~/.cache/heapprof.
. "$(dirname "$0")/lib.sh"
plan 30
for c in strace perl; do
	command -v $c >/dev/null || { echo "Bail out! $c is missing: run make deps"; exit 1; }
done
[ -n "$(ls /usr/lib/debug/.build-id 2>/dev/null)" ] ||
	{ echo "Bail out! libc6-dbg is missing: run make deps"; exit 1; }

cat >cached.c <<'CEOF'
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) void *lose(size_t n) { void *p = malloc(n); memset(p, 1, n); return p; }
__attribute__((noinline)) void *keep(size_t n) { return lose(n); }
int main(void) { for (int i = 0; i < 5; i++) keep(100 + i); return 0; }
CEOF
cc -g -O1 -fno-omit-frame-pointer -Wl,--build-id -o cached cached.c &&
	objcopy --only-keep-debug cached cached.dbg && strip -g cached &&
	objcopy --add-gnu-debuglink=cached.dbg cached && mv cached.dbg hidden.dbg
ok $? "a program with a build ID, its debug information apart (not installed yet)"
prof lg_prof_sample:0,prof_final:true,prof_prefix:d ./cached 2>/dev/null
dump=$(one_file "d.*.f.*.heap")
ok $([ -n "$dump" ]; echo $?) "its dump"

# report CACHE-DIR OUT: report --lines of the dump; strace's openat calls
# in OUT.opens.  (LeakSanitizer, in make check-asan's command, cannot
# run under strace: its check at exit is off for these runs.)
traced() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=openat "$@"; }
report() {
	HEAPPROF_CACHE=$1 traced -o "$2.opens" "$BIN" report --lines "$dump" >"$2" 2>/dev/null
}
libc_debug=$(ldd ./cached | sed -n 's|.*=> \(/[^ ]*libc\.so\.6\).*|\1|p')
libc_id=$(readelf -n "$libc_debug" | sed -n 's/.*Build ID: //p')
libc_dbg=/usr/lib/debug/.build-id/$(echo "$libc_id" | cut -c1-2)/$(echo "$libc_id" | cut -c3-).debug
opens() { grep -c "\"$2\"" "$1.opens"; }

HEAPPROF_CACHE= "$BIN" report --lines "$dump" >plain 2>/dev/null
report c r1
report c r2
is "$(cat r2)" "$(cat plain)" "with the cache, the second report is the report without it, byte for byte"
is "$(cat r1)" "$(cat plain)" "and so is the first"
like "$(cat plain)" "__libc_start_call_main .*libc_start_call_main\.h:[0-9]" "libc's frames have their lines (libc6-dbg)"
is "$(opens r1 "$libc_dbg") $(opens r2 "$libc_dbg")" "1 0" "libc's debug file: opened by the first report only"
is "$(stat -c %a c/symbols) $(ls c/symbols | wc -l)" "700 2" "the cache: a private directory, a file per module (the program, libc)"
is "$(stat -c %a c/symbols/* | sort -u)" 600 "its files are the user's only"
ls c/symbols | grep -q "^$libc_id-[0-9a-f]\{16\}\.sym\$"
ok $? "named by the module's build ID and its debug file"
[ -z "$(ls c/symbols | grep -v '\.sym$')" ]
ok $? "no temporary left behind"

# A debug file installed, then removed: each a key of its own.
unlike "$(cat r1)" "cached\.c:" "the program's debug file not installed: no line of it"
mkdir .debug && cp hidden.dbg .debug/cached.dbg
report c r3
like "$(cat r3)" "lose .*cached\.c:3" "installed (.debug/): the next report has its lines, not the cached answers"
is "$(ls c/symbols | wc -l)" 3 "under a key of its own"
rm -r .debug
report c r4
is "$(cat r4)" "$(cat r1)" "removed again: as before"

# A damaged file, a planted link, a directory others may write.
for f in c/symbols/*; do printf 'heapprof-symcache 1\n@zz 1\n' >"$f"; done
report c r5
is "$(cat r5)" "$(cat plain)" "damaged files: ignored"
is "$(head -1 c/symbols/$libc_id-* | sort -u)" "heapprof-symcache 1" "and replaced"
ok $([ "$(grep -c '^@' "$(ls c/symbols/$libc_id-* | head -1)")" -gt 1 ]; echo $?) "by whole ones"
lf=$(ls c/symbols/$libc_id-* | head -1)
echo "the victim's own" >victim
rm "$lf" && ln -s "$T_DIR/victim" "$lf"
report c r6
is "$(cat r6) $(cat victim)" "$(cat plain) the victim's own" "a link in a file's place: neither read nor written through"
mkdir -p open/symbols && chmod 777 open/symbols
report open r7
is "$(cat r7) $(ls open/symbols | wc -l)" "$(cat plain) 0" "a cache directory others may write: not used"
report "" r8
is "$(cat r8) $(opens r8 "$libc_dbg")" "$(cat plain) 1" "HEAPPROF_CACHE= (empty): no cache"

# Kept to the 1,000 files most recently used; a dead run's temporary goes.
mkdir -p full/symbols && chmod 700 full/symbols
(cd full/symbols && for i in $(seq 1 1005); do echo x >"old$i.sym"; done &&
	touch -d '2 days ago' old*.sym && touch -d '3 days ago' old1.sym && touch old1005.sym &&
	echo x >dead.sym.1.1.tmp && touch -d '2 hours ago' dead.sym.1.1.tmp && echo x >live.sym.2.2.tmp)
report full r9
is "$(ls full/symbols | grep -c '\.sym$')" 1000 "a full cache: the 1,000 files most recently used are kept"
ls full/symbols | grep -q "^$libc_id-" && [ -e full/symbols/old1005.sym ] && [ ! -e full/symbols/old1.sym ]
ok $? "the new ones and the last touched among them, not the oldest"
is "$(ls full/symbols | grep '\.tmp$')" "live.sym.2.2.tmp" "an hour-old temporary is removed, a fresh one (a run writing) kept"

# The default place: $XDG_CACHE_HOME/heapprof, else ~/.cache/heapprof.
(unset HEAPPROF_CACHE; XDG_CACHE_HOME=$T_DIR/xdg "$BIN" report --lines "$dump" >/dev/null 2>&1)
is "$(ls xdg/heapprof/symbols | wc -l)" 2 "by default under \$XDG_CACHE_HOME/heapprof/symbols"
mkdir home
(unset HEAPPROF_CACHE XDG_CACHE_HOME; HOME=$T_DIR/home "$BIN" report --lines "$dump" >/dev/null 2>&1)
is "$(ls home/.cache/heapprof/symbols | wc -l)" 2 "else under ~/.cache/heapprof/symbols"

# heapprof check's report of the leaks: the same cache.
check() {
	HEAPPROF_CACHE=$1 traced -o "$2.opens" "$BIN" check -- ./cached >"$2" 2>&1
	echo $? >"$2.st"
}
check "" k0
check k k1
check k k2
is "$(cat k0.st) $(cat k2.st)" "23 23" "heapprof check, leaks found: 23 with the cache and without"
noaddr() { grep -v '^heapprof check: ' "$1" | sed 's/0x[0-9a-f]*//g'; }
is "$(noaddr k2)" "$(noaddr k0)" "heapprof check's report: the same with the cache (but for addresses: ASLR)"
is "$(opens k1 "$libc_dbg") $(opens k2 "$libc_dbg")" "1 0" "libc's debug file: opened by the first check only"

# perl, whose frames come from perl's symbol table and libc's DWARF.
prof lg_prof_sample:0,prof_final:true,prof_prefix:p perl -e 'my %h; $h{$_} = "x" x 20 for 1..3000' 2>/dev/null
pdump=$(one_file "p.*.f.*.heap")
HEAPPROF_CACHE= "$BIN" report --lines "$pdump" >pplain 2>/dev/null
"$BIN" report --lines "$pdump" >p1 2>/dev/null
"$BIN" report --lines "$pdump" >p2 2>/dev/null
is "$(cat p2)" "$(cat pplain)" "perl's dump: the cached report is the plain one"
like "$(cat pplain)" "Perl_[a-z_]+" "with perl's functions named"
done_testing
