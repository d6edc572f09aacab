#!/bin/sh
# Symbols stay local.  elfutils' standard search asks the debuginfod
# servers of DEBUGINFOD_URLS for an object whose debug file is not on the
# machine, and waits on one that does not answer (90 s a request by
# default): at a host's exit, the library's leak report did, and heapprof
# check, leaks and report did.  Neither the library nor the command opens
# a connection now, unless the command is given HEAPPROF_DEBUGINFOD=1; a
# separate debug file found through the object's .gnu_debuglink is taken
# only with the object's build ID.
. "$(dirname "$0")/lib.sh"
plan 18

# A debuginfod server that accepts and never answers; it counts the
# connections in ./conns.
cat >srv.py <<'PYEOF'
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
open("port.t", "w").write(str(s.getsockname()[1]))
__import__("os").rename("port.t", "port")
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    with open("conns", "a") as f:
        f.write("x\n")
PYEOF
python3 srv.py &
srv=$!
trap 'kill $srv 2>/dev/null; cd /; rm -rf "$T_DIR"' EXIT
wait_for port . 10 || diag "the server did not start"
export DEBUGINFOD_URLS="http://127.0.0.1:$(cat port)"
# A request waits 5 s at most, so that a regression fails in seconds.
export DEBUGINFOD_TIMEOUT=5
conns() { [ -e conns ] && grep -c . conns || echo 0; }

# A leaky program with a build ID and no debug information on the machine.
cat >leaky.c <<'CEOF'
#include <stdlib.h>
void *volatile keep;
__attribute__((noinline)) void lose(void) { keep = malloc(100); keep = 0; }
int main(void) { lose(); return 0; }
CEOF
cc -g -O1 -o leaky leaky.c && objcopy --only-keep-debug leaky leaky.dbg && strip -g leaky
ok $? "built a program and split its debug information off"
GATE=lg_prof_sample:0,leak_check:reachable,prof_leak:true

# ---- the library's report at the host's exit ---------------------------
s=$(date +%s)
prof $GATE ./leaky >out 2>err
st=$? e=$(($(date +%s) - s))
is "$st" 0 "the host's exit status is its own"
like "$(cat err)" "<heapprof>: +#0 0x[0-9a-f]+ in lose \(.*leaky\+0x" "the exit report names the frame, without a line"
ok "$([ $e -lt 5 ] && echo 0 || echo 1)" "and the host exits at once (${e} s)"
is "$(conns)" 0 "no connection to the debuginfod server"

# ---- heapprof check and report -----------------------------------------
s=$(date +%s)
"$BIN" check -- ./leaky >chk.out 2>&1
st=$? e=$(($(date +%s) - s))
is "$st" 23 "heapprof check: the leak fails the run"
ok "$([ $e -lt 5 ] && echo 0 || echo 1)" "in no time (${e} s)"
prof lg_prof_sample:0,prof_final:true,prof_prefix:d ./leaky 2>/dev/null
"$BIN" report --text d.*.heap >rep.out 2>rep.err
like "$(cat rep.out)" "lose" "heapprof report names the function"
is "$(conns)" 0 "neither asked the debuginfod server"

# A program nobody here wrote, whose debug information is not installed:
# perl, which loses its interpreter at exit (valgrind agrees, t/0622).
s=$(date +%s)
"$BIN" check --all -- perl -e 1 >perl.out 2>&1
st=$? e=$(($(date +%s) - s))
is "$st" 23 "heapprof check --all -- perl -e 1: perl's leaks fail the run"
like "$(cat perl.out)" "in perl_construct \\(/usr/bin/perl\\+0x" "its report names perl's frames"
ok "$([ $e -lt 5 ] && echo 0 || echo 1)" "in no time (${e} s), with no connection ($(conns))"
is "$(conns)" 0 "perl's report asked no server"

# ---- asked for: HEAPPROF_DEBUGINFOD=1 ----------------------------------
DEBUGINFOD_TIMEOUT=1 HEAPPROF_DEBUGINFOD=1 "$BIN" check -- ./leaky >chk2.out 2>&1
is "$?" 23 "with HEAPPROF_DEBUGINFOD=1 the verdict is the same"
ok "$([ "$(conns)" -gt 0 ] && echo 0 || echo 1)" "and the command asks the server ($(conns) connections)"

# ---- .gnu_debuglink, checked by build ID -------------------------------
rm -f conns
mkdir wrong && cc -g -O0 -o wrong/leaky leaky.c && objcopy --only-keep-debug wrong/leaky .debug.wrong
objcopy --add-gnu-debuglink=leaky.dbg leaky
mkdir .debug && mv .debug.wrong .debug/leaky.dbg
mv leaky.dbg right.dbg
prof $GATE ./leaky >out 2>err
unlike "$(cat err)" "leaky\.c:" "a debuglink file of another build is not taken (the library)"
mv right.dbg .debug/leaky.dbg
prof $GATE ./leaky >out 2>err
like "$(cat err)" "in lose .*leaky\.c:3" "the right one, in .debug/, gives the line (the library)"
"$BIN" check -- ./leaky >chk3.out 2>&1
like "$(cat chk3.out)" "in lose .*leaky\.c:3" "and heapprof check's report too ($(conns) connections)"
done_testing
