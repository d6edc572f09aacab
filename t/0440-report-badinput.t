#!/bin/sh
# Bad input for heapprof report and trend: empty, binary, truncated and
# hostile dumps (huge numbers, absurd lines, thousands of frames, missing
# sections, garbage in MAPPED_LIBRARIES) each end with status 1 and one
# line naming the file and the line, nothing on stdout, within 10 seconds
# and 256 MiB of address space.  Hostile but well-formed input (saturating
# counts, bare '@', deep stacks, maps naming FIFOs and devices) is read.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 36

# run CMD...: the command under the time and memory bounds; sets st.
# Under make check-asan (HP_SANITIZE=asan) the command's shadow memory
# needs terabytes of address space: the bound is then ASan's on resident
# memory, three times as much for the sanitizer's own overhead.
run() {
	if [ "${HP_SANITIZE:-}" = asan ]; then
		(ASAN_OPTIONS=${ASAN_OPTIONS:-}:hard_rss_limit_mb=768 exec timeout 10 "$@") >out 2>err
	else
		(ulimit -v 262144; exec timeout 10 "$@") >out 2>err
	fi
	st=$?
}

# rejects FILE STDERR-REGEX NAME: heapprof report FILE fails as promised.
rejects() {
	run "$BIN" report "$1"
	n=$(wc -l <err | tr -d ' ')
	if [ "$st" -eq 1 ] && [ "$n" = 1 ] && [ ! -s out ] && grep -Eq -- "$2" err; then
		ok 0 "$3"
	else
		ok 1 "$3"
		diag "status $st, $n lines on stderr:" "$(head -c 300 err)"
	fi
}

maps='MAPPED_LIBRARIES:
55d000000000-55d000001000 r-xp 00001000 fe:00 123   /nonexistent/prog'
hdr='heap profile: 1: 10 [0: 0] @ heap_v2/1'
# frames N: N addresses on one line.
frames() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf " 0x%x", 4194304 + i }'; }

: >empty.heap
rejects empty.heap "^heapprof: cannot read 'empty.heap': empty file\$" "empty file"
head -c 4096 /dev/urandom >binary.heap
rejects binary.heap "^heapprof: cannot read 'binary.heap': line 1: " "random binary data"
printf '%s\n1: 10 [0: 0] @ 0x55d000000100\n' "$hdr" >trunc.heap
rejects trunc.heap "^heapprof: cannot read 'trunc.heap': line 3: end of file before MAPPED_LIBRARIES \\(truncated dump\\?\\)\$" \
	"truncated: no MAPPED_LIBRARIES"
printf '%s\n1: 1' "$hdr" >cut.heap
rejects cut.heap "^heapprof: cannot read 'cut.heap': line 2: expected '<objects>: <bytes> \\[<objects>: <bytes>\\] @ <addresses>'\$" \
	"truncated in the middle of a row"
printf '%s\n' "$hdr" >header.heap
rejects header.heap "'header.heap': line 2: end of file before MAPPED_LIBRARIES" "a header alone"
printf '%s\n18446744073709551616: 10 [0: 0] @ 0x1\n\n%s\n' "$hdr" "$maps" >huge.heap
rejects huge.heap "'huge.heap': line 2: number out of range\$" "a count past 2^64"
{ printf '%s\n1: 10 [0: 0] @' "$hdr"; head -c 2000000 /dev/zero | tr '\0' ' '; printf ' 0x1\n\n%s\n' "$maps"; } >long.heap
rejects long.heap "'long.heap': line 2: line longer than 1048576 bytes\$" "a 2 MiB line"
{ printf '%s\n1: 10 [0: 0] @' "$hdr"; frames 5000; printf '\n\n%s\n' "$maps"; } >frames.heap
rejects frames.heap "'frames.heap': line 2: more than 4096 frames in one stack\$" "5000 frames in one stack"
printf '@ 0x1\n' >nohdr.heap
rejects nohdr.heap "'nohdr.heap': line 1: not a heap profile \\(expected 'heap profile:' or 'heap_v2/'\\)\$" \
	"no header"
printf 'heap_v3/1\n' >v3.heap
rejects v3.heap "'v3.heap': line 1: not a heap profile" "an unknown header"
printf '%s\n1: 10 [0: 0] @ 0x1\n\nMAPPED_LIBRARIES:\nhello world\n' "$hdr" >gmaps.heap
rejects gmaps.heap "'gmaps.heap': line 5: MAPPED_LIBRARIES: expected 'start-end' addresses\$" \
	"garbage in MAPPED_LIBRARIES"
printf '%s\n1: 10 [0: 0] @ 0x1\n\nMAPPED_LIBRARIES:\n7f0000000000-7e0000000000 r-xp 00000000 fe:00 1 /x\n' "$hdr" >range.heap
rejects range.heap "'range.heap': line 5: MAPPED_LIBRARIES: mapping ends before it starts\$" \
	"a mapping that ends before it starts"
printf '%s\n1: 10 [0: 0] @ 0x1\n\nMAPPED_LIBRARIES:\n7f0000000000-7f0000001000 r-xq 00000000 fe:00 1 /x\n' "$hdr" >perm.heap
rejects perm.heap "'perm.heap': line 5: MAPPED_LIBRARIES: expected permissions like 'r-xp'\$" \
	"bad permissions in MAPPED_LIBRARIES"
printf '%s\n1: 10 [0: 0] @ 0xZZ\n\n%s\n' "$hdr" "$maps" >addr.heap
rejects addr.heap "'addr.heap': line 2: expected a hexadecimal address like 0x4005d0\$" "a bad address"
printf '%s\n1: 10 [0: 0] @ 0x12345678901234567\n\n%s\n' "$hdr" "$maps" >addr17.heap
rejects addr17.heap "'addr17.heap': line 2: expected a hexadecimal address" "an address of 17 digits"
printf '%s\n1: 10 [0: 0] 0x1\n\n%s\n' "$hdr" "$maps" >noat.heap
rejects noat.heap "'noat.heap': line 2: expected " "a row without '@'"
printf 'heap_v2/1\n  t*: 1: 10 [0: 0]\n@ 0x1\n  t*: x\n\n%s\n' "$maps" >thr.heap
rejects thr.heap "'thr.heap': line 4: expected '<objects>: <bytes> \\[<objects>: <bytes>\\]' after the thread\$" \
	"jemalloc layout: a bad t* row"
printf 'heap_v2/0\n  t*: 1: 10 [0: 0]\n\n%s\n' "$maps" >rate0.heap
rejects rate0.heap "'rate0.heap': line 1: sampling rate 0\$" "sampling rate 0"
printf -- '--- symbol\n0x1 foo\n' >sym.heap
rejects sym.heap "'sym.heap': line 3: end of file in the symbol section\$" "an unfinished symbol section"
printf '%s\n1: 10 [0: 0] @ 0x1\0\n\n%s\n' "$hdr" "$maps" >nul.heap
rejects nul.heap "'nul.heap': line 2: binary data \\(NUL byte\\) in a text dump\$" "a NUL byte in a line"
mkdir adir
rejects adir "^heapprof: cannot read 'adir': is a directory\$" "a directory"
rejects missing.heap "^heapprof: cannot read 'missing.heap': No such file or directory\$" "a missing file"

# A bad dump after good ones: no output at all, not even a file.
prof lg_prof_sample:0,prof_final:true,prof_prefix:good "$TP/seed" >/dev/null
good=$(one_file 'good.*.f.*heap')
run "$BIN" report -o rep.txt "$good" trunc.heap
is "$st" 1 "a good dump, then a bad one: status 1"
ok $([ ! -e rep.txt ]; echo $?) "and no half-written output file"

# Hostile but well-formed.
printf '%s\n18446744073709551615: 18446744073709551615 [0: 0] @ 0x1\n1: 18446744073709551615 [0: 0] @ 0x2\n\n%s\n' \
	"$hdr" "$maps" >sat.heap
run "$BIN" report --show-bytes sat.heap
is "$st" 0 "counts of 2^64-1 are read"
like "$(sed -n 1p out)" '^Total: 9223372036854775807 B ' "sums saturate instead of wrapping"
sed 's/$/\r/' "$good" >crlf.heap
run "$BIN" report --show-bytes crlf.heap
like "$(cat out)" ' 3235840 .* do_something$' "CRLF line ends are read, as jeprof reads them"
printf 'heap_v2/1\n  t*: 1: 10 [0: 0]\n@\n  t*: 1: 10 [0: 0]\n\n%s\n' "$maps" >bare.heap
run "$BIN" report --show-bytes bare.heap
is "$st" 0 "a bare '@' (jemalloc's empty stack) is read"
like "$(cat out)" ' 10 .* \[no frames\]$' "as a stack with no frames, not merged into another"
{ printf '%s\n1: 10 [0: 0] @' "$hdr"; frames 4000; printf '\n\n%s\n' "$maps"; } >deep.heap
run "$BIN" report --tree deep.heap
is "$st" 0 "4000 frames: --tree works"
run "$BIN" report --svg deep.heap
is "$st" 0 "4000 frames: --svg works"
mkfifo fifo
printf '%s\n1: 10 [0: 0] @ 0x7f0000000010\n\nMAPPED_LIBRARIES:\n7f0000000000-7f0000100000 r-xp 00000000 00:00 1 %s/fifo\n' \
	"$hdr" "$T_DIR" >fifo.heap
run "$BIN" report fifo.heap
is "$st" 0 "maps naming a FIFO: no hang"
like "$(cat err)" 'fifo\+0x<offset>: not a regular file$' "its frames are offsets"
printf '%s\n1: 10 [0: 0] @ 0x7f0000000010\n\nMAPPED_LIBRARIES:\n7f0000000000-7f0000100000 r-xp 00000000 00:00 1 /dev/zero\n' \
	"$hdr" >zero.heap
run "$BIN" report zero.heap
is "$st" 0 "maps naming /dev/zero: read, not followed"

# trend has the same reader.
run "$BIN" trend "$good" trunc.heap
is "$st" 1 "trend: a bad dump in the series exits 1"
like "$(cat err)" "^heapprof: cannot read 'trunc.heap': line 3: " "with the same one-line error"
done_testing
