#!/bin/sh
# demo.sh BUILD -- what `make demo` shows: contrib/demo/leaky (BUILD/demo/leaky)
# run under BUILD/libheapprof.so in exact mode with the leak check, then the
# leak's own dump, and one line on what the final dump is.  It writes
# demo.*.heap and demo.*.verdict into the current directory (make demo: BUILD/demo);
# t/0012-demo.t runs it in a scratch directory.
set -e
b=$(cd "$1" && pwd)
conf=prof_leak:true,lg_prof_sample:0,prof_prefix:demo
rm -f demo.*.heap demo.*.verdict
echo "\$ HEAPPROF_CONF=$conf LD_PRELOAD=$b/libheapprof.so $b/demo/leaky"
HEAPPROF_CONF=$conf LD_PRELOAD=$b/libheapprof.so "$b/demo/leaky"
echo
# The leaks alone: the l dump the summary names, found from the final dump.
echo '$ heapprof report --leaks demo.*.f.*.heap'
"$b/heapprof" report --leaks demo.*.f.*.heap | head -n 8
final=$(ls demo.*.f.*.heap)
echo
echo "($final, the final dump, is all the program still held at exit, leaked or" \
	"still reachable like its cache of records: heapprof report $final)"
