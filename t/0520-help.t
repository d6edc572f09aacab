#!/bin/sh
# heapprof's help: every subcommand has a full --help on standard output
# (status 0), `heapprof help CMD` prints the same, `heapprof --help` names
# every subcommand, and each option a --help lists is accepted by the
# subcommand (no "unknown option") and documented in heapprof(1).
. "$(dirname "$0")/lib.sh"
cmds="run check ps dump toggle pause resume report trend serve"
plan 51

for c in $cmds; do
	"$BIN" "$c" --help >out 2>err
	is "$?:$(cat err)" "0:" "$c --help: status 0, nothing on stderr"
	like "$(sed -n 1p out)" "^usage: heapprof $c " "$c --help starts with its usage"
	# More than one usage line: what it does, and its options.
	ok $([ "$(wc -l <out)" -ge 8 ]; echo $?) "$c --help says what it does and lists its options ($(wc -l <out) lines)"
	"$BIN" help "$c" >help 2>&1
	cmp -s out help
	ok $? "heapprof help $c prints the same"
done
# toggle, pause and resume share one help, which names all three.
"$BIN" resume --help >out
is "$(sed -n 1,3p out | sed 's/ PID.*//')" "usage: heapprof resume
       heapprof toggle
       heapprof pause" "the help of resume names resume, toggle and pause"

"$BIN" --help >top 2>err
is "$?:$(cat err)" "0:" "heapprof --help: status 0"
missing=
for c in $cmds help; do grep -q "^  $c .*\|^  toggle .*$c" top || missing="$missing $c"; done
is "$missing" "" "heapprof --help lists every subcommand (pause and resume with toggle)"
"$BIN" help >help 2>&1
cmp -s top help
ok $? "heapprof help (no command) prints heapprof --help"
"$BIN" help help >help 2>&1
cmp -s top help
ok $? "heapprof help help too"

# Every option a --help lists is one the subcommand takes, and the man
# page documents it.  An option is accepted when using it does not give
# "unknown option" (it may want a value, or a dump).
unknown= undocumented=
for c in run check ps dump report trend serve; do
	# The option list: lines that start with an option.
	"$BIN" "$c" --help | grep -E '^ +-' | grep -oE '^ +(-[a-z], )?--[a-z][a-z-]+' |
		sed 's/.* //' | sort -u >opts
	while read -r o; do
		# (serve with a valid option serves: a second is enough to tell.)
		timeout --foreground 1 "$BIN" "$c" "$o" </dev/null >o.out 2>o.err
		grep -q "unknown option" o.err && unknown="$unknown $c:$o"
		grep -q -- "^\\.Fl -${o#--}\\b\\|Fl -${o#--}\\b" "$SRC/man/heapprof.1" || undocumented="$undocumented $c:$o"
	done <opts
done
is "$unknown" "" "every option a --help lists is accepted"
is "$undocumented" "" "and documented in heapprof(1)"
# heapprof help options: the library's options, exactly options.def's keys,
# each with its default as the library takes it.
"$BIN" help options >opts 2>err
is "$?:$(cat err)" "0:" "heapprof help options: status 0, nothing on stderr"
sed -n 's/^HP_OPT(\([a-z_0-9]*\),.*/\1/p' "$SRC/src/lib/conf/options.def" >want
awk 'NR > 4 { print $1 }' opts >got
is "$(cat got)" "$(cat want)" "it lists options.def's keys ($(wc -l <want)), in its order"
is "$(awk '$1 == "leak_check" { print $2, $3 }' opts)" "live|reachable reachable" \
	"an enumeration: its values and its default"
# Each default it states, given back to the library, is accepted.
conf=$(awk 'NR > 4 && $3 != "\"\"" { printf "%s%s:%s", sep, $1, $3; sep = "," }' opts)
MALLOC_CONF=$conf LD_PRELOAD=$LIB "$TP/tiny" >/dev/null 2>err
is "$(grep -c '<heapprof>' err)" 0 "every stated default is a value the library takes, without a word"
done_testing
