#!/bin/sh
# heapprof check neither passes silently nor floods the CI log.
# A command heapprof cannot enter (statically linked, set-user-ID) with
# nothing that counts checked fails the run (--exit-code) and is named,
# where the run used to exit 0 with a line that blamed --programs; a tree
# with nothing that counts says why, and that a program it
# cannot enter leaves no trace.  Leaking processes that do not count (the
# compiler, as, ld) fold into one line by program when there are more
# than 3; --verbose gives a line each; JSON and JUnit keep every process.
. "$(dirname "$0")/lib.sh"
plan 17

mkdir tmp
export TMPDIR=$T_DIR/tmp
G=$TP/gate

# ---- a command heapprof cannot enter ---------------------------------------
printf '#include <stdio.h>\nint main(void) { puts("static ran"); return 0; }\n' >static.c
if cc -static -o static-prog static.c 2>/dev/null; then
	"$BIN" check -- ./static-prog >out 2>err
	is "$?:$(cat out)" "23:static ran" "a static command that exits 0: it runs, and the run fails (23)"
	is "$(sed -n 2p err)" "heapprof check: not checked: ./static-prog is statically linked (LD_PRELOAD cannot enter it), and no process that counts was checked (0 processes checked): a leak there cannot be ruled out, so the run fails (--allow-missing passes it)" \
		"one line names it and says why the run fails"
	unlike "$(cat err)" 'programs or --all' "--programs is not blamed"
	"$BIN" check --exit-code 9 -- ./static-prog >out 2>err
	is $? 9 "--exit-code decides the status"
	"$BIN" check --allow-missing -- ./static-prog >out 2>err
	is "$?:$(sed -n 2p err | sed 's/.*: //')" "0:not checked (--allow-missing)" "--allow-missing: named, and passes"
	printf 'int main(void) { return 4; }\n' >four.c
	cc -static -o four four.c
	"$BIN" check -- ./four >out 2>err
	is $? 4 "a static command that fails: its own status"
	# A static command that runs a dynamic program that counts: that
	# one is checked, and decides.
	printf '#include <unistd.h>\nint main(int c, char **v) { execv(v[1], v + 1); return 127; }\n' >runner.c
	cc -static -o runner runner.c
	"$BIN" check -- ./runner "$G" leak >out 2>err
	is $? 23 "a static command whose dynamic child counts and leaks: 23 for the leak"
	unlike "$(cat err)" 'no process that counts was checked' "and no line says nothing was checked"
	"$BIN" check -- ./runner "$G" clean >out 2>err
	is $? 0 "its child clean: 0"
else
	for i in 1 2 3 4 5 6 7 8 9; do ok 0 "# SKIP no static libc to link with"; done
fi

# ---- processes ran with heapprof, none counts --------------------------------
"$BIN" check -- sh -c true >out 2>err
is "$?:$(cat err)" "0:heapprof check: none of the 1 process checked counts (all under /usr/, /bin/, /sbin/ or /lib*/; --programs, --all or leak_gate choose which count); a program heapprof cannot enter (statically linked, set-user-ID) leaves no trace: one that ran is not named here" \
	"a dynamic command of the system: 0, and the line says why, and what cannot be seen"
"$BIN" check --programs nothing -- "$G" clean >out 2>err
like "$(cat err)" '^heapprof check: none of the 1 process checked counts \(none matches --programs; ' \
	"with --programs: none matches"

# ---- folding the processes that do not count --------------------------------
cp "$G" gate2
tree="for i in 1 2 3 4; do '$G' leak; done; ./gate2 leak; ./gate2 leak"
"$BIN" check --programs nothing --json check.json --junit junit.xml -- sh -c "$tree" >out 2>err
is $? 0 "six leaking processes that do not count: 0"
is "$(grep -c 'not counted' err)" 1 "one 'not counted' line"
is "$(grep 'not counted' err)" "heapprof check: not counted: gate x4, gate2 x2: 1.2 KiB leaked in 6 processes (--verbose: a line each)" \
	"by program, in the order they leaked, with the bytes of all"
is "$(grep -c '"leaked_bytes": 200,' check.json)" 6 "the JSON still has each process"
"$BIN" check --verbose --programs nothing -- sh -c "$tree" >out 2>err
is "$(grep -c '^heapprof check: not counted: gate2\? (pid [0-9]*): 200 bytes leaked$' err)" 6 "--verbose: a line each"
"$BIN" check --programs nothing -- sh -c "'$G' leak; '$G' leak; ./gate2 leak" >out 2>err
is "$(grep -c '^heapprof check: not counted: gate2\? (pid [0-9]*): 200 bytes leaked$' err)" 3 "three: a line each"
