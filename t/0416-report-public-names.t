#!/bin/sh
# glibc calls its own functions through hidden aliases (__GI___strdup)
# that its debug information and full symbol table carry, and exports
# some twice (__strndup and strndup): every report format shows the
# public name (strdup, strndup), as does a dump's own symbol section
# (dump_symbols:true), and the library's leak report.  Needs glibc's debug information (libc6-dbg, make
# deps), where the aliases come from.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 16

libc=$(ldd "$TP/glibcnames" | awk '$1 ~ /^libc\.so/ { print $3 }')
id=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
[ -n "$id" ] && [ -f "$dbg" ] || { echo "Bail out! no debug information for $libc ($dbg): make deps installs libc6-dbg"; exit 1; }

prof lg_prof_sample:0,prof_final:true,prof_prefix:g "$TP/glibcnames" >/dev/null 2>&1
f=$(one_file 'g.*.f.*.heap')
# out FORMAT...: the report in that format, uncompressed.
out() { "$BIN" report "$@" -o rep "$f" 2>err && { gzip -dc rep 2>/dev/null || cat rep; }; }

out --text >text
like "$(cat text)" ' strdup$' "--text: strdup, the leaf of dup_strings' 100 blocks"
like "$(cat text)" ' strndup$' "--text: strndup (exported as __strndup too)"
unlike "$(cat text)" '__GI_|__strn?dup' "--text: no __GI___strdup, no __strndup"
bad=
for fmt in --tree --collapsed --json --svg --html --graph --pprof --peak; do
	n=$(out $fmt | grep -a -c '__GI_')
	[ "$n" = 0 ] || bad="$bad $fmt"
done
is "$bad" "" "no __GI_ name in --tree, --collapsed, --json, --svg, --html, --graph, --pprof, --peak"
like "$(out --collapsed)" ';dup_strings;strdup [0-9]+$' "--collapsed: dup_strings;strdup"
like "$(out --json)" '"strdup"' "--json: \"strdup\""
is "$(out --pprof | grep -a -c 'strdup')" 1 "--pprof: strdup in the string table"
"$BIN" report --list '^strdup$' "$f" >list 2>err
is "$?:$(cat err)" "0:" "--list '^strdup\$' finds it"
like "$(cat list)" 'ROUTINE =+ strdup' "and lists it under that name"
"$BIN" report --focus '^strndup$' --show-bytes "$f" >focus 2>err
like "$(cat focus)" '^Total: 900 B' "--focus '^strndup\$': its 100 blocks of 9 bytes"

# The library's symbol section: the public names too.
prof lg_prof_sample:0,prof_final:true,dump_symbols:true,prof_prefix:s "$TP/glibcnames" >/dev/null 2>&1
s=$(one_file 's.*.f.*.heap')
syms=$(sed -n '/^--- symbol/,/^---/p' "$s")
like "$syms" '^0x[0-9a-f]+ strndup$' "dump_symbols: the symbol section names strndup"
unlike "$syms" ' __strn?dup$' "not __strndup"
cp "$s" named.heap
"$BIN" report named.heap >out 2>err
like "$(cat out)" ' strndup$' "and the report of that dump says strndup"
unlike "$(cat out)" '__GI_|__strn?dup' "with no internal alias"

# The leak report at exit, which names frames from DWARF too.
prof lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_prefix:l "$TP/glibcnames" leak >/dev/null 2>err
like "$(cat err)" '^<heapprof>: +#0 0x[0-9a-f]+ in strdup .*strdup\.c:[0-9]+$' "the leak report: #0 in strdup, with its line"
unlike "$(cat err)" ' in (__GI_|__strn?dup)' "never __strdup nor __strndup"
done_testing
