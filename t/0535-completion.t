#!/bin/sh
# contrib/bash-completion/heapprof, sourced in bash and called as bash
# calls it (COMP_WORDS, COMP_CWORD): subcommands, each subcommand's
# options (exactly those its --help lists), process IDs of the processes
# that have heapprof loaded for dump and toggle, dump files for report and
# trend, commands for run.
. "$(dirname "$0")/lib.sh"
plan 24

COMP=$SRC/contrib/bash-completion/heapprof
mkdir -p bin sub
ln -s "$BIN" bin/heapprof
# complete WORD...: the candidates bash would offer for the last word
# (the line is "heapprof WORD..."), one per line, sorted.
complete_words() {
	PATH=$T_DIR/bin:$PATH bash -c '
		. "$1"; shift
		COMP_WORDS=(heapprof "$@"); COMP_CWORD=$#
		_heapprof
		printf "%s\n" "${COMPREPLY[@]}" | sort' bash "$COMP" "$@"
}

bash -n "$COMP"
ok $? "the script is valid bash"
is "$(bash -c '. "$1"; complete -p heapprof' bash "$COMP")" "complete -F _heapprof heapprof" \
	"it registers _heapprof for heapprof"
is "$(complete_words '' | tr '\n' ' ')" "--help --version attach check detach dump help leaks pause ps report resume run serve toggle trend " \
	"the subcommands"
is "$(complete_words re | tr '\n' ' ')" "report resume " "subcommands by prefix"
is "$(complete_words help tr)" "trend" "help completes a subcommand"
is "$(complete_words report --me)" "--merge" "report's options"
is "$(complete_words trend --j)" "--json" "trend's"
is "$(complete_words run --o)" "--only-top" "run's"
# Each subcommand's options are those its --help lists.
diff=
for c in run check leaks ps dump toggle report trend serve attach detach; do
	"$BIN" "$c" --help | grep -E '^ +-' | grep -oE '^ +(-[a-z], )?--[a-z][a-z-]+' | tr -d ' ' | tr ',' '\n' |
		grep . | sort -u >want
	complete_words "$c" - | sort -u >got
	cmp -s want got || diff="$diff $c"
done
is "$diff" "" "every subcommand's options are exactly those of its --help"

# Dumps for report, trend and --base: *.heap files and directories.
touch a.1.0.f.heap a.1.1.f.heap notes.txt
is "$(complete_words report a | tr '\n' ' ')" "a.1.0.f.heap a.1.1.f.heap " "report: dump files"
is "$(complete_words report '' | tr '\n' ' ')" "a.1.0.f.heap a.1.1.f.heap bin/ sub/ " "dumps and directories, not other files"
is "$(complete_words report --base a.1.1 | tr '\n' ' ')" "a.1.1.f.heap " "--base: a dump"
is "$(complete_words run -c prof_leak:true heapp | sort -u)" "heapprof" "run: the command, from PATH"
is "$(complete_words run --config no)" "notes.txt" "--config: a file"
# -c: the library's keys (heapprof help options), then a bool's or an
# enumeration's values; after a comma, the next key.
is "$(complete_words run -c prof_leak | tr '\n' ' ')" "prof_leak: prof_leak_error: " "-c: keys, with their colon"
is "$(complete_words run -c leak_check: | tr '\n' ' ')" "leak_check:live leak_check:reachable " \
	"-c KEY:: an enumeration's values"
is "$(complete_words run --conf lg_prof_sample:0,prof_final_s)" "lg_prof_sample:0,prof_final_signals:" "after a comma: the next key"
is "$(complete_words run -c prof_final:t)" "prof_final:true" "a bool's value"

# Process IDs for dump, toggle, pause and resume.
export HEAPPROF_RUNTIME_DIR=$T_DIR/run
"$BIN" run "$TP/idle" 30 >/dev/null 2>&1 &
pid=$!
n=0
while [ ! -s "run/$pid" ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
complete_words dump '' >pids
ok $(grep -qx "$pid" pids && ! grep -qv '^[0-9]*$' pids; echo $?) "dump: the pids heapprof ps -q lists ($pid among them)"
is "$(complete_words pause "$pid" '')" "" "one pid: nothing after it"
complete_words leaks '' >pids
ok $(grep -qx "$pid" pids && ! grep -qv '^[0-9]*$' pids; echo $?) "leaks: the pids heapprof ps -q lists"
is "$(complete_words leaks --confirm 3 "$pid" '')" "" "leaks: after --confirm's value and a pid, nothing"
complete_words attach '' >pids
ok $(grep -qx "$$" pids && grep -qx "$pid" pids && ! grep -qv '^[0-9]*$' pids; echo $?) \
	"attach: any process's pid (this shell's among them)"
is "$(complete_words attach -c lg_prof_sam)" "lg_prof_sample:" "attach -c: the library's keys"
kill -TERM $pid
wait $pid 2>/dev/null
done_testing
