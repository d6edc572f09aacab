#!/bin/sh
# make demo's walk (contrib/demo/demo.sh, here in a scratch directory): the
# leak summary, then the leak's own dump (only the leak), and one line that
# says what the final dump is.
. "$(dirname "$0")/lib.sh"
plan 7

[ -x "$HP_BUILD/demo/leaky" ] || { echo "Bail out! $HP_BUILD/demo/leaky is missing: make tprogs"; exit 1; }
sh "$SRC/contrib/demo/demo.sh" "$HP_BUILD" >out 2>err
is $? 0 "the demo runs"
like "$(cat err)" '^<heapprof>: SUMMARY: heapprof: 88576 byte\(s\) leaked in 346 allocation\(s\)\.$' \
	"the leak summary: 88,576 bytes"
like "$(cat out)" '^\$ heapprof report --leaks demo\.\*\.f\.\*\.heap$' "the demo reports the leak dump"
like "$(cat out)" '^Total: 86\.5KiB \(inuse_space, 1 dump\)$' "whose total is the leak's 88,576 bytes"
like "$(cat out)" '^ *86\.5KiB 100\.0% 100\.0% .* format_error$' "all of it format_error's"
unlike "$(cat out)" 'parse_request' "the cache (reachable, not leaked) is not in it"
final=$(ls demo.*.f.*.heap)
like "$(cat out)" "^\\($final, the final dump, is all the program still held at exit, leaked or still reachable" \
	"one line says what the final dump is"
