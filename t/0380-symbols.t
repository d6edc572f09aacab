#!/bin/sh
# dump_symbols: dumps that name their own functions, so that jeprof needs
# no binary (containers often have none on the analysis host).
. "$(dirname "$0")/lib.sh"
plan 7

cp "$TP/cxx" ./cxxprog
cp "$TP/seed" ./seedprog
HEAPPROF_CONF=lg_prof_sample:0,prof_final:true,dump_symbols:true,prof_prefix:c LD_PRELOAD=$LIB ./cxxprog >/dev/null 2>&1
HEAPPROF_CONF=lg_prof_sample:0,prof_final:true,dump_symbols:true,dump_format:jemalloc,prof_prefix:s \
	LD_PRELOAD=$LIB ./seedprog >/dev/null 2>&1
rm cxxprog seedprog   # the binaries are gone
c=$(one_file 'c.*.f.*heap')
s=$(one_file 's.*.f.*heap')
is "$(sed -n 1p "$c")" "--- symbol" "the dump starts with a symbol section"
is "$(sed -n 2p "$c")" "binary=$T_DIR/cxxprog" "naming the program"
like "$(cat "$c")" '^0x[0-9a-f]+ make_widget\(\)$' "C++ names are demangled"
text=$(jeprof --text --show_bytes "$c" 2>/dev/null)
like "$text" '^ *24000 .* make_widget$' "jeprof without the binary: make_widget 24000 bytes"
like "$text" '^ *10000 .* make_buffer$' "and make_buffer 10000 bytes"
text=$(jeprof --text --show_bytes "$s" 2>/dev/null)
like "$text" '^ *3235840 .* do_something$' "a C program in the jemalloc layout: do_something 3235840 bytes"
like "$text" '^ *3194880 .* do_something_else$' "do_something_else 3194880 bytes"
done_testing
