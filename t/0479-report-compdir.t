#!/bin/sh
# A relative compilation directory (what -fdebug-prefix-map=$PWD=. leaves,
# as in Debian's glibc: DW_AT_comp_dir "./libio") is put in front of a
# source name once, not twice: elfutils has already joined it to the names
# of the line table's directory 0.  addr2line doubles it
# ("./sub/./sub/seed.c"); heapprof report --lines did ("./sub/sub/seed.c"),
# and --list then could not find the file.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 5

mkdir -p b/sub
cp "$SRC/t/prog/seed.c" b/sub/
(cd b/sub && cc -g -O1 -fno-omit-frame-pointer -fdebug-prefix-map="$T_DIR/b=." \
	-o ../../seedrel seed.c) || { echo "Bail out! cannot compile seed.c"; exit 1; }
cd b
prof lg_prof_sample:0,prof_final:true,prof_prefix:r ../seedrel >/dev/null 2>&1
dump=$(one_file 'r.*.f.*heap')
diag "addr2line gives $(addr2line -e ../seedrel "$(nm ../seedrel | awk '/ do_something$/ { print $1 }')")"

"$BIN" report --lines --show-bytes "$dump" >out
like "$(cat out)" ' do_something \./sub/seed\.c:15$' "--lines: ./sub/seed.c, the directory once"
unlike "$(cat out)" 'sub/sub|sub/\./sub' "never twice"
"$BIN" report --json "$dump" >j
like "$(cat j)" '"file": "\./sub/seed\.c"' "--json too"
"$BIN" report --list '^do_something$' --show-bytes "$dump" >out
like "$(cat out)" '^ROUTINE =+ do_something in \./sub/seed\.c$' "--list names the file"
like "$(cat out)" '^ +3235840 +3235840 +15:	sink = malloc\(\(size_t\)i \* 1024\);$' \
	"and reads it, from the directory the dump is read in"
done_testing
