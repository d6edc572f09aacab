#!/bin/sh
# heapprof check fails closed: every process that ran with heapprof and
# left no verdict is named, in text, JSON and JUnit, with why, and a
# counted one fails the run (--exit-code, 23) unless --allow-missing; a
# process that dropped privileges, and so cannot write into check's
# directory, sends its verdict through check's socket instead.
# t/prog/vanish leaks 3000 bytes, then drops to nobody (setuid 65534) or
# abort()s.
. "$(dirname "$0")/lib.sh"
plan 35

mkdir tmp
export TMPDIR=$T_DIR/tmp
V=$TP/vanish

if [ "$(id -u)" != 0 ]; then
	for i in $(seq 35); do echo "ok $i # skip setuid needs root"; done
	exit 0
fi

# ---- a tree: sh runs both, and passes whatever they did -------------------
"$BIN" check --json out.json --junit out.xml -- sh -c "'$V' setuid; '$V' abort; exit 0" >out 2>err
is $? 23 "a privilege-dropping leaker and a killed child: the run fails (23)"
like "$(cat err)" "^heapprof check: $V \\(pid [0-9]+\\): $V setuid\$" \
	"the one that dropped privileges delivered its verdict (through check's socket)"
like "$(cat err)" '^Direct leak of 3000 byte\(s\) in 1 object\(s\) allocated from:$' "its 3000 bytes"
like "$(cat err)" "^    #0 0x[0-9a-f]+ in leak_some $SRC/t/prog/vanish.c:[0-9]+\$" "symbolized"
like "$(cat err)" "^heapprof check: not checked: vanish \\(pid [0-9]+\\): no leak verdict: it ended without writing one: a signal killed it" \
	"the killed one is named, with why"
like "$(cat err)" '^heapprof check: 1 counted process left no verdict: a leak there cannot be ruled out, so the run fails \(--allow-missing passes it\)$' \
	"one line says the run fails for it"
like "$(cat err)" '^heapprof check: 1 of 1 counted process leaked 3000 byte\(s\) in 1 allocation\(s\) \(2 processes checked\)$' \
	"the summary counts the missing one apart"
unlike "$(cat err)" '<heapprof>' "the processes themselves print nothing"
like "$(cat out.json)" "\"cmdline\": \"$V setuid\", \"status\": 0, \"counted\": true, \"checked\": true, \"missing\": false, \"error\": null," \
	"JSON: the setuid one, checked"
like "$(cat out.json)" "\"cmdline\": \"$V abort\", \"status\": null, \"counted\": true, \"checked\": false, \"missing\": true, \"error\": \"[^\"]+\"" \
	"JSON: the aborted one, missing, with why"
like "$(cat out.json)" '"summary": \{"processes": 3, "counted": 2, "leaking": 1, "missing": 1, "missing_allowed": false' \
	"JSON: the summary counts it"
like "$(cat out.xml)" '<testsuite name="heapprof check" tests="2" failures="1" errors="1" skipped="0">' \
	"JUnit: two test cases, a failure and an error"
like "$(cat out.xml)" '<error type="no-verdict" message="no leak verdict: it ended without writing one: ' "JUnit: the error says why"
like "$(cat out.xml)" "<testcase classname=\"vanish\" name=\"$V abort\">" "JUnit: the aborted one is a test case"
is "$(ls -A tmp)" "" "the run directory is removed"

# ---- --allow-missing: named, and the old pass -----------------------------
"$BIN" check --allow-missing --json out.json --junit out.xml -- sh -c "'$V' abort; exit 0" >out 2>err
is $? 0 "--allow-missing: the old pass"
like "$(cat err)" '^heapprof check: not checked: vanish \(pid [0-9]+\): no leak verdict: ' "still named"
like "$(cat err)" '^heapprof check: 1 counted process left no verdict: not checked \(--allow-missing\)$' "and said"
like "$(cat out.json)" '"missing": 1, "missing_allowed": true' "JSON: allowed"
like "$(cat out.xml)" 'tests="1" failures="0" errors="0" skipped="1"' "JUnit: skipped, not an error"
"$BIN" check -- sh -c "'$V' abort; exit 0" >out 2>err
is $? 23 "without it, the same tree fails"

# ---- a process check reaped: the exact reason ----------------------------
# The orphan check adopts (its parent is gone): killed by SIGABRT.
"$BIN" check -- sh -c "'$V' abort & exit 0" >out 2>err
is $? 23 "an adopted child killed by a signal fails the run"
like "$(cat err)" '^heapprof check: not checked: vanish \(pid [0-9]+\): no leak verdict: killed by signal 6 \(SIGABRT\)$' \
	"killed by signal 6 (SIGABRT)"

# ---- a long run directory: the socket's name is abstract, still delivered -
long=$T_DIR/$(printf '%0100d' 0)
mkdir "$long"
TMPDIR=$long "$BIN" check -- "$V" setuid >out 2>err
is $? 23 "a run directory past a socket path's length: still delivered"
like "$(cat err)" '^Direct leak of 3000 byte\(s\) in 1 object\(s\) allocated from:$' "its 3000 bytes"

# ---- no courier (another network namespace): fails closed -----------------
if unshare -n true 2>/dev/null; then
	"$BIN" check -- unshare -n "$V" setuid >out 2>err
	is $? 23 "a verdict that cannot be delivered fails the run"
	like "$(cat err)" '^heapprof check: not checked: vanish \(pid [0-9]+\): no leak verdict: exited with status 0 without writing one \(it exec'"'"'d a program heapprof cannot enter, or could not reach heapprof check\)$' \
		"exited with status 0 without writing one"
	"$BIN" check --allow-missing -- unshare -n "$V" setuid >out 2>err
	is $? 0 "--allow-missing: the old pass"
else
	for i in 1 2 3; do ok 0 "# skip unshare -n refused"; done
fi

# ---- a forged verdict is not filed -----------------------------------------
# A process outside the tree (it never registered) sends clean verdicts
# to the courier while the tree runs: one naming itself, and one naming
# the killed process (not the sender the kernel names).  Neither is
# filed.
cat >forge.py <<'EOF'
import os, re, socket, sys
prefix = re.search(r'prof_prefix:([^,]*)', open(sys.argv[1]).read().strip()).group(1)
name = (prefix + '.sock')[-100:]
for pid in (os.getpid(), int(open(sys.argv[2]).read())):
    fd = os.memfd_create('forged')
    os.write(fd, ('heapprof-verdict 1\npid=%d\nprogram=/forged\ncmdline=forged\nstatus=0\n'
                  'direct_bytes=0 direct_objects=0 indirect_bytes=0 indirect_objects=0\n'
                  'suppressed_bytes=0 suppressed_objects=0\nthreads=0 threads_stopped=0\n' % pid).encode())
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.connect('\0' + name)
    socket.send_fds(s, [b'v'], [fd])
print('forge: sent 2')
EOF
if python3 -c 'import socket; socket.send_fds' 2>/dev/null; then
	"$BIN" check --json out.json -- sh -c "'$V' abort & wait; echo \$! >kpid.tmp; mv kpid.tmp kpid;
		echo \"\$HEAPPROF_CONF\" >conf; while [ ! -e sent ]; do sleep 0.05; done; exit 0" >out 2>err &
	check=$!
	for i in $(seq 200); do [ -e kpid ] && [ -s conf ] && break; sleep 0.05; done
	env -u LD_PRELOAD python3 forge.py conf kpid >forge.out 2>&1
	touch sent
	wait $check
	is "$?:$(cat forge.out)" "23:forge: sent 2" "forged verdicts change nothing: the killed process still fails the run"
	like "$(cat err)" '^heapprof check: not checked: vanish \(pid [0-9]+\): no leak verdict: ' "and is named"
	unlike "$(cat out.json)" 'forged' "neither forged verdict is filed"
else
	for i in 1 2 3; do ok 0 "# skip python3 without socket.send_fds"; done
fi

# ---- a process not counted: named, fails nothing --------------------------
"$BIN" check --programs nothing -- sh -c "'$V' abort; exit 0" >out 2>err
is $? 0 "a process that does not count fails nothing"
like "$(cat err)" '^heapprof check: not counted: vanish \(pid [0-9]+\): no leak verdict: ' "but is named"

# ---- a clean tree leaves nothing behind ------------------------------------
"$BIN" check -- "$TP/gate" clean >out 2>err
like "$?:$(cat err)" '^0:heapprof check: no leaks in 1 counted process \(1 process checked\)$' \
	"a clean program: registered, replaced by its verdict, status 0"
is "$(ls -A tmp)" "" "nothing left in TMPDIR"
