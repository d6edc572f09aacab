#!/bin/sh
# heapprof leaks on a real program nobody here wrote: python3 in a steady
# state (a bounded dict of JSON strings, rewritten in a loop) has no
# leaks, once and confirmed over 3 checks; then a C extension's leak
# (ctypes: malloc'd blocks whose pointers Python drops) is named.
# LeakSanitizer and valgrind only look at exit.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "Bail out! python3 is missing: run make deps"; exit 1; }
plan 7

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
mkdir -p run
cat >steady.py <<'P'
import ctypes, json, os, sys, time
libc = ctypes.CDLL(None)
# No Python object for what malloc returns: an int holding the address
# would, once freed, lie in pymalloc's arena (mapped memory the scan
# reads) until reused, and keep its block reachable.
libc.malloc.restype = None
cache = {}
def work():
    for i in range(20000):
        cache[i % 1000] = json.dumps({"k": i, "v": [i] * 5})
work()
open("pid", "w").write(str(os.getpid()))
while not os.path.exists("go"):
    time.sleep(0.01)
    work()
    if os.path.exists("lose") and not os.path.exists("lost"):
        for i in range(50):
            libc.malloc(4000)    # the pointer is dropped
        open("lost", "w").close()
print(len(cache), sorted(cache)[:3])
P
LD_PRELOAD=$LIB HEAPPROF_CONF=lg_prof_sample:0,helper_thread:start python3 steady.py >py.out 2>py.err &
n=0
while [ ! -s pid ] && [ $n -lt 3000 ]; do sleep 0.01; n=$((n + 1)); done
pid=$(cat pid)
"$BIN" leaks "$pid" >a.out 2>a.err
is $? 0 "python3 in a steady state: no leaks (exit 0)"
like "$(cat a.out)" "^no leaks: every block the program holds is reachable$" "and says so"
"$BIN" leaks --confirm 3 --interval 0.3 "$pid" >b.out 2>b.err
is $? 0 "confirmed over 3 checks, 0.3 s apart: none"
touch lose
n=0
while [ ! -e lost ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
"$BIN" leaks --confirm 2 --interval 0.3 "$pid" >c.out 2>c.err
is $? 23 "50 blocks malloc'd through ctypes and dropped: 23"
like "$(cat c.out)" "^Direct leak of 200000 byte\\(s\\) in 50 object\\(s\\) \\(confirmed\\) allocated from:$" \
	"exactly those, confirmed"
touch go
wait
is "$(cat py.out)" "1000 [0, 1, 2]" "python3's output is its own"
is "$(cat py.err)" "" "and nothing on its standard error"
done_testing
