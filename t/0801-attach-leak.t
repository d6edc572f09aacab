#!/bin/sh
# The leak check of an attached process counts only what heapprof saw:
# blocks whose only pointer lies in a block allocated before the attach
# (unknown to heapprof, so a root for the scan) are not leaks; a block
# allocated after the attach and dropped is.
. "$(dirname "$0")/lib.sh"
plan 11

export HEAPPROF_RUNTIME_DIR=$T_DIR/run

# attached SUFFIX ARGS...: attachleak ARGS in the background (its output
# in outSUFFIX, errSUFFIX, statusSUFFIX), attached once ready (the
# attach's status in $att), let go, and waited for.
attached() {
	_s=$1
	shift
	rm -f go
	("$TP/attachleak" "$@" >out$_s 2>err$_s; echo $? >status$_s.t; mv status$_s.t status$_s) &
	"$BIN" attach "$(ready_pid out$_s)" -c prof_leak:true,lg_prof_sample:0,prof_prefix:$T_DIR/d >/dev/null
	att=$?
	touch go
	while [ ! -e status$_s ]; do sleep 0.05; done
}

attached "" go 10
is $att 0 "attach"
is "$(cat status)" 0 "the program's exit status is its own (prof_leak reports, no gate)"
like "$(cat err)" "^<heapprof>: Direct leak of ~777 byte\\(s\\) in ~1 object\\(s\\) allocated from:" \
	"the block dropped after the attach is a leak"
like "$(cat err)" "^<heapprof>: Leak approximation summary: ~777 bytes, ~1 object," \
	"and the only one: the 10 blocks held by the block from before the attach are not"
unlike "$(cat err)" "held_block" "held_block is named nowhere in the leak report"

# An object the program loads after the attach is routed too.
attached 2 go 10 "$TP/libleak.so"
is "$(cat status2)" 0 "loading a library after the attach: exit status 0"
like "$(cat err2)" "^<heapprof>: Direct leak of ~555 byte\\(s\\) in ~1 object\\(s\\) allocated from:" \
	"the leak from the library loaded after the attach is seen: its malloc calls were routed"
like "$(cat err2)" "#0 0x[0-9a-f]+ in libleak_make " "and named"
like "$(cat err2)" "^<heapprof>: Leak approximation summary: ~1332 bytes, ~2 objects," "with the other one, nothing else"

# Loaded, unloaded and loaded again (most likely at the same address,
# its GOT relocated afresh): routed again.
attached 3 go 0 "$TP/libleak.so" reload
is "$(cat status3)" 0 "a library unloaded and loaded again: exit status 0"
like "$(cat err3)" "^<heapprof>: Leak approximation summary: ~1332 bytes, ~2 objects," \
	"its leak is seen: its new GOT entries were routed too"

done_testing
