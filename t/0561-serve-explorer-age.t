#!/bin/sh
# heapprof serve's explorer by age, in headless Chromium: t/prog/leakysvc
# in exact mode with prof_age:true (lose_request loses 256 KiB a "minute"
# of 500 ms; cache_request's entries live about 1.3 s, as in t/0512),
# dumped at about 6 s.  The age switch on, at the default warm-up and
# then at one typed as 2s: the top table gains each function's startup,
# long-lived and young bytes, the same as `heapprof report --age --json`'s;
# the flame graph is report --age --html's, lose_request reddened and
# cache_request grey.  A new
# dump with the first as its base turns the switch off, saying why, as
# does a process without ages (exact mode's default, t/prog/aged).  Then
# what the API refuses: ages with a base, of source lines, of another
# value, a bad warm-up, a dump without ages.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
[ -x /usr/bin/chromium ] || { echo "Bail out! chromium is missing: run make deps"; exit 1; }
plan 30
. "$SRC/t/browser.sh"

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
mkdir d
HEAPPROF_CONF=lg_prof_sample:0,prof_age:true,prof_prefix:$T_DIR/d/svc LD_PRELOAD=$LIB \
	"$TP/leakysvc" 240 500 256 512 >svc.out 2>svc.err &
svc=$!
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/d/aged LD_PRELOAD=$LIB \
	"$TP/aged" 64 100 120000 0 0 0 >aged.out 2>aged.err &
aged=$!
wait_for "run/$svc" '^signal_control='
wait_for "run/$aged" '^signal_control='
start_serve 150
# A dump of each at about 6 s of the service.
sleep 6
kill -USR1 $svc $aged
n=0
while [ "$(ls d | grep -c '\.heap$')" -lt 2 ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
dump=$(one_file "d/svc.$svc.*.heap")
adump=$(one_file "d/aged.$aged.*.heap")
ok $([ -n "$dump" ] && [ -n "$adump" ]; echo $?) "a dump of each process"
[ -n "$dump" ] && [ -n "$adump" ] ||
	diag "in d: $(ls d | tr '\n' ' '); the service's stderr: $(cat svc.err); aged's: $(cat aged.err)"

# The first view of a dump asks serve for one report, whose "ages" say
# whether the age switch can be offered (with its uptime and default
# warm-up): no second report only to ask.
views() { grep -c "GET /api/view?pid=$1&" serve.err; }
browse "$url/ui?pid=$svc" --size 1400x1000 --timeout 120 <<'EOF'
eval (window.until = (f, ms) => new Promise(r => { const t0 = Date.now(); (function g() { let v; try { v = f(); } catch (e) { v = undefined; } if (v || Date.now() - t0 > (ms || 40000)) r(v === undefined ? null : v); else setTimeout(g, 100); })(); }), until(() => document.querySelector('#toptab') && window.ageWhy === '' && !document.getElementById('age').disabled && document.getElementById('agenote').textContent))
EOF
like "$(at 1)" '^" \(uptime [0-9.]+ s; default [0-9.]+ s\)"$' "a first view: the age switch is on offer, with its default"
is "$(views $svc)" 1 "the first view cost one report"
[ "$(views $svc)" = 1 ] || diag "$(grep 'GET /api/view' serve.err)"
ages() { "$BIN" report "$@" | python3 -c 'import json, sys; a = json.load(sys.stdin); print(json.dumps(a.get("ages", "missing"), sort_keys=True))'; }
is "$(ages --json "$dump")" "$("$BIN" report --age --json "$dump" | python3 -c '
import json, sys
a = json.load(sys.stdin)
print(json.dumps({"uptime": a["uptime"], "warmup": a["warmup"]}, sort_keys=True))')" \
	"report --json's \"ages\": report --age's uptime and default warm-up"
is "$(ages --json "$adump")" null "report --json of a dump without ages: \"ages\": null"

# Each answer waits for what it looks for (until(), at most 40 s).
fill() { echo "eval until(() => { const f = document.querySelector('#out iframe'); const r = f && f.contentDocument && f.contentDocument.querySelector('#frames g[data-name=\"$1\"] rect'); return r && r.getAttribute('fill'); })"; }
browse "$url/ui?pid=$svc" --size 1400x1000 --timeout 240 <<EOF
eval (window.until = (f, ms) => new Promise(r => { const t0 = Date.now(); (function g() { let v; try { v = f(); } catch (e) { v = undefined; } if (v || Date.now() - t0 > (ms || 40000)) r(v === undefined ? null : v); else setTimeout(g, 100); })(); }), until(() => document.querySelector('#toptab') && window.ageWhy === '' && !document.getElementById('age').disabled))
eval document.getElementById('agenote').textContent
eval (() => { const a = document.getElementById('age'); a.click(); return a.checked; })()
eval until(() => { const p = document.getElementById('ageline'), r = [...document.querySelectorAll('#toptab tbody tr')].find(r => r.cells[r.cells.length - 1].textContent === 'lose_request'); return p && r && p.textContent + ' | ' + r.querySelector('td[data-key=long_lived]').dataset.bytes; })
eval (() => { const w = document.getElementById('warmup'); w.value = '2s'; w.dispatchEvent(new Event('change')); return w.value; })()
eval until(() => { const p = document.getElementById('ageline'); return p && p.textContent.includes('warm-up 2.0 s') && p.textContent; })
eval [...document.querySelectorAll('#toptab thead th')].map(t => t.textContent).join(' ')
eval ['lose_request', 'cache_request'].map(n => { const r = [...document.querySelectorAll('#toptab tbody tr')].find(r => r.cells[r.cells.length - 1].textContent === n); return n + ' ' + [...r.querySelectorAll('td.agecol')].map(td => td.dataset.bytes).join(' '); }).join('; ')
eval document.getElementById('value').disabled
click nav button[data-view=flame]
$(fill lose_request)
$(fill cache_request)
eval (() => { const l = document.querySelector('#out iframe').contentDocument.getElementById('legend'); return l.getClientRects().length > 0 && l.title; })()
click #dump
eval until(() => document.querySelectorAll('#dumptab input[name=view]').length === 2 && !document.querySelectorAll('#dumptab input[name=view]')[0].checked)
eval (() => { document.querySelectorAll('#dumptab input[name=base]')[1].click(); return 1; })()
eval until(() => window.ageWhy && document.getElementById('age').disabled && document.getElementById('agenote').textContent)
eval until(() => { const f = document.querySelector('#out iframe'); return f && !f.src.includes('age=1') && f.src.includes('base=') && f.contentDocument && f.contentDocument.querySelectorAll('#frames g').length > 1; })
EOF
is "$?" 0 "the page ran without an error"
[ -s berr ] && diag "$(cat berr)"
is "$(at 1)" true "a dump with ages: the age switch is on offer"
default=$("$BIN" report --age --json "$dump" | python3 -c 'import json, sys; print("%.1f" % json.load(sys.stdin)["warmup"])')
like "$(at 2)" "^\" \\(uptime [0-9.]+ s; default $default s\\)\"\$" "it states report --age's default warm-up ($default s)"
is "$(at 3)" true "the switch on"
ll=$("$BIN" report --age --json "$dump" | python3 -c '
import json, sys
print(sum(s["long_lived"] for s in json.load(sys.stdin)["stacks"] if s["frames"][0] == "lose_request"))')
like "$(at 4)" "^\"Ages: uptime [0-9.]+ s, warm-up $default s: .* \\| $ll\"\$" \
	"by default, report --age's warm-up and lose_request's long-lived bytes ($ll)"
is "$(at 5)" '"2s"' "a warm-up typed"
like "$(at 6)" '^"Ages: uptime [0-9.]+ s, warm-up 2\.0 s: startup [0-9.]+[KM]iB \([0-9.]+%\), long-lived ' \
	"the warm-up typed (2s) is the view's; the totals by age"
is "$(at 7)" '"flat flat% cum cum% startup long-lived young function"' "the table gains three columns"
want=$("$BIN" report --age --warmup 2 --json "$dump" | python3 -c '
import json, sys
d = json.load(sys.stdin)
out = []
for fn in ("lose_request", "cache_request"):
    t = [0, 0, 0]
    for s in d["stacks"]:
        if s["frames"][0] == fn:
            t = [t[0] + s["startup"], t[1] + s["long_lived"], t[2] + s["young"]]
    out.append(fn + " " + " ".join(map(str, t)))
print("; ".join(out))')
is "$(at 8)" "\"$want\"" "lose_request's and cache_request's columns are report --age --json's"
set -- $(echo "$want" | tr -d ';')
ok $([ "${3:-0}" -gt 0 ] && [ "${6:-1}" -eq 0 ] && [ "${7:-1}" -eq 0 ]; echo $?) \
	"lose_request has long-lived bytes (${3:-}), cache_request none (${7:-}) and no startup ones (${6:-})"
is "$(at 9)" true "the value is live bytes while the switch is on"
like "$(at 10)" '^"rgb\(2[0-3][0-9],(1[0-9]|[2-9])[0-9],[0-9]+\)"$' "Flame graph: lose_request is reddened ($(at 10))"
is "$(at 11)" '"rgb(238,238,238)"' "cache_request is grey: nothing long-lived"
like "$(at 12)" 'after the warm-up \(2\.0 s\) and older than it' "report --age --html's legend, shown, for the warm-up typed"
like "$(at 15)" '^": ages are of one dump.s moment: choose no base"$' "a base: the switch is off, and says why"
is "$(at 13)" true "Take a dump: the newest is viewed"
is "$(at 16)" true "the flame graph is the difference's, not by age"

before=$(views $aged)
browse "$url/ui?pid=$aged" --size 1400x1000 --timeout 120 <<'EOF'
eval (window.until = (f, ms) => new Promise(r => { const t0 = Date.now(); (function g() { let v; try { v = f(); } catch (e) { v = undefined; } if (v || Date.now() - t0 > (ms || 40000)) r(v === undefined ? null : v); else setTimeout(g, 100); })(); }), until(() => document.querySelector('#toptab') && window.ageWhy && document.getElementById('age').disabled && document.getElementById('agenote').textContent))
EOF
like "$(at 1)" '^": this dump has no ages \(dumps date blocks at a sampled rate, or with prof_age:true in exact mode\)"$' \
	"a dump without ages: the switch is off, and says why"
is "$(($(views $aged) - before))" 1 "and its first view cost one report too"

# ---- the API -------------------------------------------------------------
code() { curl -s -o body -w '%{http_code}' "$@"; }
v="$url/api/view?pid=$svc&dump=${dump#d/}"
is "$(code "$v&view=top&age=1&base=${dump#d/}") $(cat body)" \
	"400 age: not with a base (ages are of one dump's moment: its long-lived memory is what a diff shows growing and staying)" \
	"ages with a base: refused, as report --age --base is"
is "$(code "$v&view=list&fn=main&age=1") $(cat body)" "400 age: with view=top or flame, not list" "ages of source lines: refused"
is "$(code "$v&view=top&age=1&warmup=5m") $(cat body)" "400 warmup: want seconds, as 90 or 2.5, not '5m'" "a warm-up not in seconds: refused"
is "$(code "$v&view=top&warmup=2") $(cat body)" "400 warmup goes with age=1" "a warm-up without ages: refused"
is "$(code "$v&view=top&age=1&value=alloc_space") $(cat body)" "400 age shows live bytes: value=inuse_space, or no value" \
	"ages of another value: refused"
like "$(code "$url/api/view?pid=$aged&dump=${adump#d/}&view=top&age=1") $(cat body)" "^422 .*has no ages" \
	"ages of a dump without them: 422, the report's reason"

kill $svc $aged $srv 2>/dev/null
wait $svc $aged $srv 2>/dev/null
done_testing
