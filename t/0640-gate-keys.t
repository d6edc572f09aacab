#!/bin/sh
# A typo must not switch the leak gate off.  heapprof run -c checks its
# pairs against the library's table: an unknown key or a refused value is
# a usage error (exit 2) naming the key, with the closest known key.  In
# HEAPPROF_CONF, MALLOC_CONF and profiler.ini, a refused value of one of
# the gate's keys (prof_leak_error, leak_gate, leak_check,
# leak_suppressions, leak_exit_code), or an unknown key meant for one,
# fails the gate closed: leak_exit_code, leaks or none, with one line.
# Any other key keeps its warning and its default.  Under heapprof check,
# a refused leak_gate counts the process.
. "$(dirname "$0")/lib.sh"
plan 41

# heapprof run -c ---------------------------------------------------------

"$BIN" run -c prof_leak_eror:true -- true >out 2>err
is $? 2 "run -c prof_leak_eror:true: a usage error"
like "$(head -n 1 err)" "^heapprof run: -c: unknown key 'prof_leak_eror' \(did you mean 'prof_leak_error'\?\)$" \
	"one line names the key and the closest known key"
is "$(cat out)" "" "and nothing ran"

"$BIN" run -c prof_leak_error:ture -- true >/dev/null 2>err
is $? 2 "run -c prof_leak_error:ture: a usage error"
like "$(head -n 1 err)" "^heapprof run: -c: invalid value 'ture' for prof_leak_error \(expected true or false\)$" \
	"naming the value, the key and what it takes"

"$BIN" run -c lg_prof_sample:0,leak_check:reachble -- true >/dev/null 2>err
is $? 2 "a bad pair after a good one"
like "$(head -n 1 err)" "leak_check \(expected one of live,reachable\)" "an enum's choices"

"$BIN" run -c lg_prof_sample:41 -- true >/dev/null 2>err
is $? 2 "an out-of-range number, any key"
like "$(head -n 1 err)" "'41' for lg_prof_sample \(expected a number from 0 to 40\)" "with the table's bounds"

"$BIN" run -c zzzzzz:1 -- true >/dev/null 2>err
is $? 2 "a key nothing is near"
like "$(head -n 1 err)" "unknown key 'zzzzzz' \(heapprof help options lists them\)" "points at the list"

"$BIN" run -c prof_leak -- true >/dev/null 2>err
is $? 2 "a key without a value"

"$BIN" run -c lg_prof_sample:0,prof_leak_error:true,dump_at_bytes:10M,signal_dump:none,prof_prefix:x "$TP/gate" clean >/dev/null 2>err
is $? 0 "good pairs of every kind still run"
is "$(cat err)" "" "quietly"

# The environment and profiler.ini ------------------------------------------

gate() { prof "lg_prof_sample:0,$1" "$TP/gate" "$2"; }
line='The leak gate could not be configured'

gate prof_leak_error:ture leak >out 2>err
is $? 1 "HEAPPROF_CONF=prof_leak_error:ture on a leaking program fails"
like "$(cat err)" "^<heapprof>: $line: prof_leak_error:ture \(HEAPPROF_CONF; expected true or false\); exiting with status 1" \
	"with one line naming the setting"
is "$(cat out)" "gate: leak: buffered output" "the program's output is intact"

gate prof_leak_error:ture clean >out 2>err
is $? 1 "and on a clean program: the gate cannot say it is clean"
is "$(grep -c "$line" err)" 1 "one line"

prof prof_leak_error:ture "$TP/exits" _exit >/dev/null 2>err
is $? 1 "and before _exit, which skips exit handlers"

gate prof_leak_eror:true clean >/dev/null 2>err
is $? 1 "an unknown key meant for the gate (prof_leak_eror) fails too"
like "$(cat err)" "$line: unknown key prof_leak_eror \(HEAPPROF_CONF; did you mean prof_leak_error\?\)" "and says so"

gate prof_leak_error:true,leak_check:reachble clean >/dev/null 2>err
is $? 1 "prof_leak_error:true with leak_check:reachble fails"

gate prof_leak_error:true,leak_exit_code:42,leak_gate:maybe clean >/dev/null 2>&1
is $? 42 "with leak_exit_code when that was taken"
gate prof_leak_error:true,leak_exit_code:300 clean >/dev/null 2>&1
is $? 1 "1 when leak_exit_code itself is refused"

gate prof_leak_error:true,leak_suppressions:$T_DIR/none clean >/dev/null 2>err
is $? 1 "a leak_suppressions file that cannot be read fails"
like "$(cat err)" "$line: leak_suppressions:$T_DIR/none \(the file cannot be read\)" "naming it"

gate prof_leak_error:true,leak_check:x status >/dev/null 2>err
is $? 3 "a program that failed keeps its status"
like "$(cat err)" "$line: .*the exit status stays 3" "and the line says so"

gate prof_leak_error:true,leak_check:x,leak_gate:false clean >/dev/null 2>&1
is $? 0 "leak_gate:false takes the program out of the gate, refused keys and all"

MALLOC_CONF=prof_leak_error:ture gate prof_leak_error:true clean >/dev/null 2>err
is $? 0 "a later source that sets the key properly wins"

gate leak_check:reachble clean >/dev/null 2>err
is $? 0 "no gate asked for (prof_leak_error false): a refused gate key only warns"

gate prof_leak_error:true,lg_prof_interval:xx clean >/dev/null 2>err
is $? 0 "a refused key outside the gate keeps today's behaviour on a clean program"
like "$(cat err)" "Invalid conf value: lg_prof_interval:xx \(HEAPPROF_CONF\)" "one warning"
unlike "$(cat err)" "$line" "and no gate line"

printf '[heapprof]\nprof_leak_error = ture\n' >p.ini
HEAPPROF_CONFIG=p.ini gate "" clean >/dev/null 2>err
is $? 1 "profiler.ini: prof_leak_error = ture fails"
like "$(cat err)" "$line: prof_leak_error = ture \(p.ini:2; expected true or false\)" "naming the file and line"

printf '[heapprof]\nprof_leak_error = true\n[program:gate]\nleak_check = x\n' >q.ini
HEAPPROF_CONFIG=q.ini gate "" clean >/dev/null 2>&1
is $? 1 "profiler.ini: a refused gate key in the program's own section fails"
printf '[heapprof]\nprof_leak_error = true\n[program:other]\nleak_check = x\n' >r.ini
HEAPPROF_CONFIG=r.ini gate "" clean >/dev/null 2>&1
is $? 0 "in another program's section it is not ours"

# heapprof check: a refused leak_gate counts the process (never a pass on
# a typo that meant true).
printf '[program:gate]\nleak_gate = ture\n' >gates.ini
"$BIN" check --config "$T_DIR/gates.ini" --programs nothing -- "$TP/gate" leak >/dev/null 2>err
is $? 23 "check: leak_gate = ture in the program's section counts it, whatever --programs says"

# The documentation no longer gates a whole build through the library --------

hits=$(grep -rnE 'LD_PRELOAD=[^ ]*heapprof[^ ]* +make( |$)' "$SRC/man" "$SRC/README.md" "$SRC/conf" "$SRC/contrib" 2>/dev/null)
is "$hits" "" "no page gates make through LD_PRELOAD (gcc, as and ld really leak)"

done_testing
