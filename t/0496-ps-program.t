#!/bin/sh
# heapprof ps PROGRAM...: only the processes of those programs (by the
# executable's file name or its whole path), with every output form; no
# process of them exits 1, as pgrep does, so that a script learns whether
# it runs.
. "$(dirname "$0")/lib.sh"
plan 10

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
# Names no other test's process has.
a=psprog-a-$$
b=psprog-b-$$
cp "$TP/idle" "$a"
cp "$TP/idle" "$b"
start() {
	HEAPPROF_CONF=lg_prof_sample:0 LD_PRELOAD=$LIB "$T_DIR/$1" 30 1 >/dev/null 2>&1 &
	pid=$!
	n=0
	while [ ! -s "run/$pid" ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
}
start "$a"
pa=$pid
start "$b"
pb=$pid
trap 'kill $pa $pb 2>/dev/null; cd /; rm -rf "$T_DIR"' EXIT

is "$("$BIN" ps -q "$a")" "$pa" "ps -q NAME: that program's process only"
is "$("$BIN" ps -q "$b" "$a" | tr '\n' ' ')" "$(printf '%s\n' $pa $pb | sort -n | tr '\n' ' ')" "two names: both, by pid"
is "$("$BIN" ps -q "$T_DIR/$b")" "$pb" "a whole path names the program too"
out=$("$BIN" ps "$a")
is "$(echo "$out" | wc -l)" 2 "the table: a header and one line"
like "$out" "^$pa +active +0 +[0-9.]+ [KMG]?i?B +$T_DIR/$a " "the line of the process asked for"
json=$("$BIN" ps --json "$b")
is "$(echo "$json" | grep -c '"pid"')" 1 "--json NAME: one object"
like "$json" "\"pid\": $pb, \"program\": \"$T_DIR/$b\"" "the process asked for"
"$BIN" ps -q "nosuch-$$" >out 2>err
is "$?:$(cat out)$(cat err)" "1:" "no process of that program: nothing printed, exit 1"
"$BIN" ps -q >out 2>err
is "$?" 0 "without a name, exit 0 as before"
like "$(cat out)" "^$pa\$" "and every process listed, ours among them"
done_testing
