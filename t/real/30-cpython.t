#!/bin/sh
# CPython's own regression tests (Debian's libpython3.11-testsuite), run by
# Debian's /usr/bin/python3.11 (never a python3 found on PATH), one worker
# (-j1), bare, at the default rate and in exact mode.  Per test module, the
# preloaded runs must give the bare run's module outcome and, test case by
# test case, the same outcome (ok, failure, error, skipped) in the JUnit
# XML regrtest writes.  Tests that fail or skip bare on this machine (no
# network, running as root) are fine: the same ones must under the preload.
#
# test_socket's VSOCK tests are left out (-i '*VSOCK*'): where the kernel
# offers AF_VSOCK without a host side (virtual machines), their accept()
# waits forever, bare.
. "$(dirname "$0")/driver.sh"

PY=/usr/bin/python3.11
[ -x "$PY" ] && [ -d /usr/lib/python3.11/test/libregrtest ] ||
	{ echo "Bail out! $PY or its test suite is missing: run make deps-real"; exit 1; }

TESTS=${REAL_PY_TESTS:-"test_threading test_subprocess test_os test_signal test_socket
test_multiprocessing_fork test_dict test_json test_re test_pickle"}
# Per module; a module that hangs is stopped (regrtest's faulthandler
# timeout) and counts as crashed.
PER_TEST=${REAL_PY_TIMEOUT:-240}
nt=$(echo $TESTS | wc -w)
plan $((nt * 2 + 2))

# results XML STDOUT PREFIX: PREFIX.MODULE.res for each module (its
# outcome, then each case and its outcome, sorted), PREFIX.all.res (the
# modules' outcomes), PREFIX.times (module and seconds, from regrtest's
# elapsed times).
results() {
	env -u LD_PRELOAD "$PY" - "$@" $TESTS <<'EOF'
import re, sys, xml.etree.ElementTree as ET
xml, out, prefix, tests = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
cases = {t: [] for t in tests}
try:
    root = ET.parse(xml).getroot()
except (OSError, ET.ParseError) as e:
    root = ET.Element("none")
for tc in root.iter("testcase"):
    name = tc.get("name", "?")
    st = "ok"
    for ch in tc:
        if ch.tag in ("failure", "error", "skipped"):
            st = ch.tag
    mod = name.split(".")[1] if name.startswith("test.") else name.split(".")[0]
    cases.setdefault(mod, []).append("case %s %s" % (name, st))
outcome, secs, last = {}, {}, 0
line_re = re.compile(r"^(\d+):(\d\d):(\d\d) .*\] (test_\w+) (passed|failed|crashed|skipped"
                     r"|resource denied|interrupted|timed out|\w+)")
for line in open(out, errors="replace"):
    m = line_re.match(line)
    if m:
        t = int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])
        outcome[m[4]] = m[5]
        secs[m[4]] = t - last
        last = t
with open(prefix + ".all.res", "w") as f:
    for t in tests:
        f.write("module %s %s\n" % (t, outcome.get(t, "none")))
for t in tests:
    with open("%s.%s.res" % (prefix, t), "w") as f:
        f.write("module %s %s\n" % (t, outcome.get(t, "none")))
        for c in sorted(cases.get(t, [])):
            f.write(c + "\n")
with open(prefix + ".times", "w") as f:
    for t in tests:
        f.write("%s %d\n" % (t, secs.get(t, 0) * 1000))
EOF
}

mkdir -p "$T_DIR/py"
for m in $REAL_MODES; do
	cd "$T_DIR/py" || exit 1
	real_run cpython "$m" timeout 2400 env PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		"$PY" -m test -j1 --timeout "$PER_TEST" -i '*VSOCK*' \
		--junit-xml "$REAL_OUT/cpython.$m.xml" $TESTS
	results "$REAL_OUT/cpython.$m.xml" "$REAL_OUT/cpython.$m.out" "$REAL_OUT/r.$m"
	for t in $TESTS; do
		mv "$REAL_OUT/r.$m.$t.res" "$REAL_OUT/$t.$m.res"
	done
	mv "$REAL_OUT/r.$m.all.res" "$REAL_OUT/modules.$m.res"
	echo "status $(cat "$REAL_OUT/cpython.$m.rc")" >>"$REAL_OUT/modules.$m.res"
	cd "$T_DIR" && rm -rf "$T_DIR/py"/*
done

real_compare modules "every module's outcome and regrtest's status"
for t in $TESTS; do
	real_compare "$t" "the module's outcome, every case's outcome"
	real_time "$t" "$(awk -v t="$t" '$1 == t { print $2 }' "$REAL_OUT/r.bare.times")" \
		"$(awk -v t="$t" '$1 == t { print $2 }' "$REAL_OUT/r.default.times")" \
		"$(awk -v t="$t" '$1 == t { print $2 }' "$REAL_OUT/r.exact.times")"
done
b=$(cat "$REAL_OUT/cpython.bare.ms")
real_fact "whole invocation: bare $((b / 1000)) s;$(for m in default exact; do
	awk -v m="$m" -v b="$b" -v t="$(cat "$REAL_OUT/cpython.$m.ms")" \
		'BEGIN { printf " %s %d s (%.2fx);", m, t / 1000, t / b }'
done)"
for m in $REAL_MODES; do
	real_fact "$m: regrtest status $(cat "$REAL_OUT/cpython.$m.rc"); modules:$(awk '$1 == "module" { print $3 }' \
		"$REAL_OUT/modules.$m.res" | sort | uniq -c | awk '{ printf " %s %s", $2, $1 }');" \
		"cases:$(cat "$REAL_OUT"/test_*."$m".res | awk '$1 == "case" { n[$3]++; t++ }
			END { printf " %d (", t; for (k in n) printf " %s %d", k, n[k]; printf " )" }')"
done
real_summary
done_testing
