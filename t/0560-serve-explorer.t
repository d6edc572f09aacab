#!/bin/sh
# heapprof serve's explorer, /ui?pid=N, driven in headless Chromium as a
# user would: the live timeline of a running service (t/prog/leakysvc,
# exact mode, a dump every 2 s), "Take a dump" (a new row), the top table
# (sorted by a click on a column), a function's callers and callees, its
# source lines, the flame graph, another value, the difference from an
# older dump, "Pause sampling" and "Check for leaks".  Then the API as a client sees it:
# what it refuses (another host name, an action without its header or by
# GET, a name that is not one of the process's dumps).
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
[ -x /usr/bin/chromium ] || { echo "Bail out! chromium is missing: run make deps"; exit 1; }
plan 25
. "$SRC/t/browser.sh"

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
mkdir d
HEAPPROF_CONF=lg_prof_sample:0,prof_accum:true,dump_interval_s:2,prof_prefix:$T_DIR/d/svc LD_PRELOAD=$LIB \
	"$TP/leakysvc" 60 2000 1024 8192 >svc.out 2>svc.err &
svc=$!
wait_for "run/$svc" '^signal_control='
start_serve 120 -q
# Two timed dumps before the page opens.
n=0
while [ "$(ls d | wc -l)" -lt 2 ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done

# Each answer waits for what it looks for (until(), at most 40 s): on a
# loaded machine the page's requests take their time.  What the buttons
# did is read where the page keeps it (window.lastDump, lastToggle): the
# status line may by then say something else (a poll that timed out).
browse "$url/ui?pid=$svc" --size 1400x1000 --timeout 240 <<'EOF'
eval (window.until = (f, ms) => new Promise(r => { const t0 = Date.now(); (function g() { let v; try { v = f(); } catch (e) { v = undefined; } if (v || Date.now() - t0 > (ms || 40000)) r(v === undefined ? null : v); else setTimeout(g, 100); })(); }), until(() => document.getElementById('prog').textContent !== '…' && document.getElementById('prog').textContent))
eval until(() => { const p = document.querySelector('#chart polyline.livel'); return p && p.getAttribute('points').split(' ').length >= 3; })
eval until(() => { const n = document.querySelectorAll('#dumptab input[name=view]').length; return n >= 2 && (window.n0 = n); })
click #dump
eval until(() => window.lastDump && 'wrote ' + window.lastDump)
eval until(() => { const n = document.querySelectorAll('#dumptab input[name=view]').length; return n > window.n0 && n; })
eval document.querySelector('#dumptab input[name=view]:checked').value
eval until(() => { const r = [...document.querySelectorAll('#toptab tbody tr')]; return r.length >= 2 && r.map(r => r.cells[4].textContent).slice(0, 2).join(' '); })
click #toptab th[data-key=name]
eval until(() => { const s = [...document.querySelectorAll('#toptab tbody tr')].map(r => r.cells[4].textContent).join(' '); return s.startsWith('__libc') && s; })
eval until(() => [...document.querySelectorAll('#toptab tbody tr td.fn')].some(td => td.textContent === 'lose_request'))
eval (() => { [...document.querySelectorAll('#toptab tbody tr td.fn')].find(td => td.textContent === 'lose_request').click(); return 1; })()
eval until(() => document.querySelector('#callertab tr') && document.querySelector('#calleetab tr') && [...document.querySelectorAll('#callertab tr')].map(r => r.cells[2].textContent).join(' ') + ' / ' + [...document.querySelectorAll('#calleetab tr')].map(r => r.cells[2].textContent).join(' '))
click nav button[data-view=source]
eval until(() => { const p = document.querySelector('#out pre'); return p && p.textContent.includes('ROUTINE ======================== lose_request'); })
click nav button[data-view=flame]
eval until(() => { const f = document.querySelector('#out iframe'); return f && f.contentDocument && f.contentDocument.querySelectorAll('#frames g').length > 3; })
click nav button[data-view=top]
eval (() => { const s = document.getElementById('value'); s.value = 'inuse_objects'; s.dispatchEvent(new Event('change')); return s.value; })()
eval until(() => { const p = document.querySelector('#out p'); return !!(p && p.textContent.startsWith('Total ') && !p.textContent.includes('B;') && document.querySelector('#toptab')); })
eval (() => { document.querySelectorAll('#dumptab input[name=base]')[1].click(); return document.querySelector('#dumptab input[name=base]:checked').value; })()
eval until(() => { const p = document.querySelector('#out p'); return p && p.textContent.includes('(minus the base)') && p.textContent; })
click #toggle
eval until(() => window.lastToggle)
click #leaks
eval until(() => { const t = document.getElementById('leakout').textContent; return t.includes('Direct leak of') && [t.includes('Direct leak of'), /in lose_request /.test(t), /in cache_request /.test(t)].join(' '); })
EOF
is "$?" 0 "the page ran without an error"
[ -s berr ] && diag "$(cat berr)"
is "$(at 1)" "\"$TP/leakysvc\"" "the header names the program"
is "$(at 2)" true "the timeline draws the live heap as it is polled"
ok $([ "$(at 3)" -ge 2 ]; echo $?) "the dumps are listed ($(at 3))"
like "$(at 4)" '^"wrote svc\.[0-9]+\.[0-9]+\.s0\.[0-9TZ]+\.heap"$' "Take a dump: a new dump"
ok $([ "$(at 5)" -gt "$(at 3)" ]; echo $?) "and a new row ($(at 5))"
like "$(at 6)" '^"svc\.' "the newest dump is viewed"
like "$(at 7)" '^"(cache_request lose_request|lose_request cache_request)' "Top: the two request paths lead, by flat value"
like "$(at 8)" '^"__libc_start_call_main __libc_start_main_impl _start cache_request lose_request main' \
	"a click on 'function' sorts by name"
is "$(at 9)" true "lose_request is in the table"
is "$(at 11)" '"main / (itself)"' "its caller is main; it holds what it allocates itself"
is "$(at 12)" true "Source: its annotated lines"
is "$(at 13)" true "Flame graph: the report's explorer, frames drawn"
is "$(at 14)" '"inuse_objects"' "the value switches to live objects"
is "$(at 15)" true "objects are counted, not sized"
like "$(at 16)" '^"svc\.[0-9]+\.0\.' "a base: the oldest dump"
like "$(at 17)" '^"Total [0-9]+ \(minus the base\)' "the view shows what changed since"
is "$(at 18)" '"sampling paused"' "Pause sampling"
like "$(sed -n 's/^active=//p' "run/$svc")" '^0$' "and the process's sampling is paused"
is "$(at 19)" '"true true false"' "Check for leaks: the lost records, not the cache"

# ---- the API, as another client sees it --------------------------------
code() { curl -s -o body -w '%{http_code}' "$@"; }
host=${url#http://}
is "$(code -H 'Host: attacker.example' "$url/api/state?pid=$svc") $(cat body)" \
	"403 Host 'attacker.example' is not this server's address ($host): the explorer answers its own address only" \
	"another host name (DNS rebinding): refused"
is "$(code -X POST "$url/api/dump?pid=$svc") $(cat body)" "403 /api/dump needs the header X-Heapprof: 1" \
	"an action without X-Heapprof (a page elsewhere cannot send it): refused"
is "$(code "$url/api/dump?pid=$svc")" 405 "an action by GET: 405"
is "$(code "$url/api/view?pid=$svc&dump=..%2F..%2Fetc%2Fpasswd&view=top") $(cat body)" \
	"404 ../../etc/passwd: not a dump of process $svc" "a name that is not one of its dumps: 404"
is "$(code -X POST -d x "$url/") " "405 " "POST elsewhere is still 405"

kill $svc $srv 2>/dev/null
wait $svc $srv 2>/dev/null
done_testing
