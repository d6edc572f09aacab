#!/bin/sh
# screenshots.sh -- makes man/flame.png and man/diff.png, the pictures of
# heapprof report --html that README.md shows: a python3 program that
# keeps parsed JSON documents, profiled in exact mode and dumped by
# SIGUSR1, as a flame graph searched for list_resize; and the diff of two
# runs of the test program views (t/prog/views.c: grows() grew, shrinks()
# shrank).  Taken by Debian's Chromium (headless, through t/browser.py).
# Not run by the test suite.
#
# usage: make all tprogs && sh man/screenshots.sh
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${HP_BUILD:-$ROOT/build}
W=$(mktemp -d "${TMPDIR:-/tmp}/heapprof-shots.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"

cat >app.py <<'EOF'
import json, os, signal, time
keep = []
def parse(n):
    return json.loads('{"a": [%s]}' % ",".join(str(i) for i in range(n)))
def handle(i):
    keep.append(parse(200))
    return len("x" * 1000)
for i in range(3000):
    handle(i)
os.kill(os.getpid(), signal.SIGUSR1)
time.sleep(0.5)
EOF
# The interpreter itself, not a shim that runs it in a child.
PY=$(python3 -c 'import sys; print(sys.executable)')
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:app LD_PRELOAD=$B/libheapprof.so "$PY" app.py
for n in 1 4; do
	HEAPPROF_CONF=lg_prof_sample:0,prof_final:true,prof_prefix:views$n \
		LD_PRELOAD=$B/libheapprof.so "$B/t/views" $n
done

"$B/heapprof" report --html -o flame.html app.*.s*.heap
"$B/heapprof" report --html --base views1.*.heap -o diff.html views4.*.heap
# Through t/browser.py (Chromium's DevTools protocol, as the tests drive
# it): the page is searched and hovered as a user would.
shot() {
	python3 "$ROOT/t/browser.py" --size "$3" "$2" >/dev/null
	echo "man/$1: $(wc -c <"$ROOT/man/$1") bytes"
}
shot flame.png flame.html 1000x480 <<EOF
press /
type ^list_resize\$
press Enter
hover #frames g[data-name="_parse_object_unicode"]
shot $ROOT/man/flame.png
EOF
shot diff.png diff.html 1000x250 <<EOF
hover #frames g[data-name="shrinks"]
shot $ROOT/man/diff.png
EOF

# heapprof serve's explorer on t/prog/leakysvc (exact, a dump every 3 s):
# the top table, then lose_request's callers and callees.
export HEAPPROF_RUNTIME_DIR="$W/run"
HEAPPROF_CONF=lg_prof_sample:0,prof_accum:true,dump_interval_s:3,prof_prefix:$W/svc \
	LD_PRELOAD="$B/libheapprof.so" "$B/t/leakysvc" 60 2000 1024 8192 >/dev/null &
svc=$!
"$B/heapprof" serve --listen 127.0.0.1:0 -q >"$W/serve.out" 2>/dev/null &
srv=$!
sleep 12
url=$(sed -n 's|^heapprof serve: listening on \(http://.*\)/$|\1|p' "$W/serve.out")
shot explorer.png "$url/ui?pid=$svc" 1200x900 <<EOF
wait 9000
click nav button[data-view=top]
wait 2000
shot $ROOT/man/explorer.png
eval (() => { [...document.querySelectorAll('#toptab tbody tr td.fn')].find(td => td.textContent === 'lose_request').click(); return 1; })()
wait 1500
shot $ROOT/man/explorer-callers.png
EOF
kill $svc $srv
