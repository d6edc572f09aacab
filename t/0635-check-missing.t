#!/bin/sh
# heapprof check fails closed: every process that ran with heapprof and
# left no verdict is named, in text, JSON and JUnit, with why, and a
# counted one fails the run (--exit-code, 23) unless --allow-missing.
# t/prog/vanish leaks 3000 bytes, then drops to nobody (setuid 65534: it
# can no longer write into check's 0700 directory) or abort()s.
. "$(dirname "$0")/lib.sh"
plan 27

mkdir tmp
export TMPDIR=$T_DIR/tmp
V=$TP/vanish

if [ "$(id -u)" != 0 ]; then
	for i in $(seq 27); do echo "ok $i # skip setuid needs root"; done
	exit 0
fi

# ---- a tree: sh runs both, and passes whatever they did -------------------
"$BIN" check --json out.json --junit out.xml -- sh -c "'$V' setuid; '$V' abort; exit 0" >out 2>err
is $? 23 "a privilege-dropping leaker and a killed child: the run fails (23)"
like "$(cat err)" "^heapprof check: not checked: vanish \\(pid [0-9]+\\): no leak verdict: .*dropped the privileges" \
	"the text names each, with why"
is "$(grep -c '^heapprof check: not checked: vanish (pid [0-9]*): no leak verdict: ' err)" 2 "both of them"
like "$(cat err)" '^heapprof check: 2 counted processes left no verdict: a leak there cannot be ruled out, so the run fails \(--allow-missing passes it\)$' \
	"one line says the run fails for them"
unlike "$(cat err)" 'none exited with heapprof loaded' "never 'none exited with heapprof loaded'"
unlike "$(cat err)" 'no leaks in' "never 'no leaks' for processes never checked"
is "$(grep -c '"missing": true' out.json)" 2 "JSON: both, missing"
like "$(cat out.json)" "\"cmdline\": \"$V setuid\", \"status\": null, \"counted\": true, \"checked\": false, \"missing\": true, \"error\": \"[^\"]+\"" \
	"JSON: the setuid one, with its reason"
like "$(cat out.json)" "\"cmdline\": \"$V abort\", \"status\": null, \"counted\": true, \"checked\": false, \"missing\": true" \
	"JSON: the aborted one"
like "$(cat out.json)" '"summary": \{"processes": 3, "counted": 2, "leaking": 0, "missing": 2, "missing_allowed": false' \
	"JSON: the summary counts them"
like "$(cat out.json)" '"exit_status": 23,' "JSON: check's status"
like "$(cat out.xml)" '<testsuite name="heapprof check" tests="2" failures="0" errors="2" skipped="0">' \
	"JUnit: two test cases, two errors"
is "$(grep -c '<error type="no-verdict" message="no leak verdict: ' out.xml)" 2 "JUnit: an error each, with why"
like "$(cat out.xml)" "<testcase classname=\"vanish\" name=\"$V abort\">" "JUnit: the aborted one is a test case"
is "$(ls tmp)" "" "the run directory is removed"

# ---- --allow-missing: named, and the old pass -----------------------------
"$BIN" check --allow-missing --json out.json --junit out.xml -- sh -c "'$V' setuid; '$V' abort; exit 0" >out 2>err
is $? 0 "--allow-missing: the old pass"
is "$(grep -c '^heapprof check: not checked: vanish (pid [0-9]*): no leak verdict: ' err)" 2 "still named"
like "$(cat err)" '^heapprof check: 2 counted processes left no verdict: not checked \(--allow-missing\)$' "and said"
like "$(cat out.json)" '"missing": 2, "missing_allowed": true' "JSON: allowed"
like "$(cat out.xml)" 'tests="2" failures="0" errors="0" skipped="2"' "JUnit: skipped, not errors"

# ---- a process check reaped: the exact reason ----------------------------
# The orphan check adopts (its parent is gone): killed by SIGABRT.
"$BIN" check -- sh -c "'$V' abort & exit 0" >out 2>err
is $? 23 "an adopted child killed by a signal fails the run"
like "$(cat err)" '^heapprof check: not checked: vanish \(pid [0-9]+\): no leak verdict: killed by signal 6 \(SIGABRT\)$' \
	"killed by signal 6 (SIGABRT)"
"$BIN" check -- "$V" setuid >out 2>err
is $? 23 "the command itself drops privileges: the run fails"
like "$(cat err)" '^heapprof check: not checked: vanish \(pid [0-9]+\): no leak verdict: exited with status 0 without writing one \(did it drop the privileges the run directory needs\?\)$' \
	"exited with status 0 without writing one"

# ---- a process not counted: named, fails nothing --------------------------
"$BIN" check --programs nothing -- sh -c "'$V' abort; exit 0" >out 2>err
is $? 0 "a process that does not count fails nothing"
like "$(cat err)" '^heapprof check: not counted: vanish \(pid [0-9]+\): no leak verdict: ' "but is named"

# ---- a clean tree leaves nothing behind ------------------------------------
"$BIN" check -- "$TP/gate" clean >out 2>err
like "$?:$(cat err)" '^0:heapprof check: no leaks in 1 counted process \(1 process checked\)$' \
	"a clean program: registered, replaced by its verdict, status 0"
