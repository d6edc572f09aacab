#!/bin/sh
# Usage errors: status 2 and two lines on standard error, the error
# ("heapprof CMD: ...") and where the help is ("try 'heapprof CMD
# --help'"), nothing on standard output: never the whole help (a usage
# error used to print all 30 lines of it).
. "$(dirname "$0")/lib.sh"
plan 28

printf 'heap profile: 1: 10 [0: 0] @ heap_v2/1\n1: 10 [0: 0] @ 0x1\n\nMAPPED_LIBRARIES:\n' >a.1.0.f.heap
cp a.1.0.f.heap a.1.1.f.heap

# usage WHO ARGS...: heapprof WHO ARGS... is a usage error of WHO ("" for
# the command itself).
usage() {
	_who=$1
	shift
	if [ -n "$_who" ]; then set -- "$_who" "$@"; fi
	"$BIN" "$@" >out 2>err
	_st=$?
	_want="try 'heapprof${_who:+ $_who} --help'"
	if [ $_st -eq 2 ] && [ ! -s out ] && [ "$(wc -l <err)" -eq 2 ] &&
	   grep -q "^heapprof${_who:+ $_who}: ." err && [ "$(sed -n 2p err)" = "$_want" ]; then
		ok 0 "heapprof $*: $(sed -n 1p err)"
	else
		ok 1 "heapprof $*: a usage error of two lines"
		diag "status $_st" "stdout:" "$(cat out)" "stderr:" "$(cat err)"
	fi
}

usage ""
usage "" frobnicate
usage "" --frobnicate
usage "" --version extra
usage "" help frobnicate
usage help run ps
usage run
usage run --bogus "$TP/seed"
usage run -c
usage run --programs
usage check
usage check --exit-code 0 true
usage check --bogus true
usage ps ""
usage ps --bogus
usage ps -q --json
usage dump
usage dump 12abc
usage dump 1 2
usage dump 1 --timeout
usage dump 1 --timeout -3
usage pause --bogus 1
usage report
usage report --bogus a.1.0.f.heap
usage report --text --svg a.1.0.f.heap
usage report --top 0 a.1.0.f.heap
usage trend a.1.0.f.heap
usage trend --svg --json a.1.0.f.heap a.1.1.f.heap
done_testing
