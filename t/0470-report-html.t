#!/bin/sh
# heapprof report --html, the flame graph explorer, as a user sees it in
# Debian's Chromium (headless, driven by t/browser.py with real mouse and
# key events): self-contained, frames sized by the profile's numbers, a
# tooltip with bytes, objects and shares, click to zoom, Escape and Reset,
# a regex search that highlights and sums its matches as the text report
# does, flame and icicle, a width that follows the window, long names cut
# inside their frames, a tall graph opened where the memory is, and the
# view kept in the address.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 45
. "$SRC/t/browser.sh"

# pct PART WHOLE: "50.3%", as the reports print it.
pct() { awk -v p="$1" -v w="$2" 'BEGIN { printf "%.1f%%\n", 100 * p / w }'; }

prof lg_prof_sample:0,prof_final:true,prof_prefix:s "$TP/seed" >/dev/null
seed=$(one_file 's.*.f.*heap')
total=$("$BIN" report --show-bytes "$seed" | sed -n 's/^Total: \([0-9]*\) B .*/\1/p')

# ---- the file ------------------------------------------------------------
"$BIN" report --html -o seed.html "$seed"
is $? 0 "--html -o writes a file"
like "$(head -n 1 seed.html)" '^<!DOCTYPE html>$' "an HTML page"
# Self-contained: the only address in it is the SVG namespace.
is "$(grep -o 'https\{0,1\}://[^"]*' seed.html | grep -v '^http://www.w3.org/2000/svg$')" "" \
	"no address but the SVG namespace"
unlike "$(cat seed.html)" '<link|<img|<iframe| src=| href=|@import|url\(' \
	"nothing loaded from elsewhere: no link, image, frame, src, href or url()"
like "$(cat seed.html)" '<script>' "its script is inline"

# ---- drawn, tooltip, zoom, reset -----------------------------------------
F='#frames g[data-name="do_something"]'
E='#frames g[data-name="do_something_else"]'
A='#frames g[data-name="all"]'
w() { echo "eval document.querySelector('$1 rect').getBoundingClientRect().width"; }
browse seed.html --size 1200x800 <<EOF
eval document.title
$(w "$A")
$(w "$F")
$(w "$E")
hover $F
eval document.getElementById('tip').innerText.replace(/\n/g, ' | ')
eval document.getElementById('details').textContent
click $F
$(w "$F")
eval document.querySelectorAll('$E').length
eval [...document.querySelectorAll('#frames g.anc')].map(g => g.dataset.name).join(' ')
eval document.getElementById('reset').disabled
eval location.hash
press Escape
eval document.querySelectorAll('$E').length
eval document.getElementById('reset').disabled
EOF
is "$(at 1)" '"heapprof flame graph: inuse_space"' "Chromium opens it without an error"
all=$(at 2)
like "$all" '^1180' "the root is the window's width less the margins"
near "$(at 3)" "$(awk -v a="$all" -v t="$total" 'BEGIN { print a * 3235840 / t }')"
ok $? "do_something's width is its share of the total: 3235840 of $total bytes"
near "$(at 4)" "$(awk -v a="$all" -v t="$total" 'BEGIN { print a * 3194880 / t }')"
ok $? "do_something_else's too: 3194880 bytes"
like "$(at 5)" '^"do_something \| 3\.1MiB \(3235840 bytes\), 80 objects \| 50\.3% of the total, 50\.3% of its caller"$' \
	"hovering do_something: a tooltip with its function, bytes, objects and shares"
like "$(at 6)" '^"do_something: 3\.1MiB, 50\.3% of the total"$' "and the status line says it too"
is "$(at 7)" "$all" "a click zooms do_something to the full width"
is "$(at 8)" 0 "its sibling is gone"
is "$(at 9)" '"main __libc_start_call_main __libc_start_main_impl _start all"' \
	"its callers stay, dimmed, as full-width rows"
is "$(at 10)" false "Reset zoom is offered"
like "$(at 11)" '^"#z=[0-9]+"$' "the address remembers the zoom"
is "$(at 12)" 1 "Escape zooms back out: the sibling is back"
is "$(at 13)" true "and Reset zoom has nothing left to do"

# ---- search --------------------------------------------------------------
both=$(pct $((3235840 + 3194880)) "$total")
browse seed.html <<EOF
press /
type ^do_something\$
press Enter
eval document.getElementById('match').textContent
eval [...document.querySelectorAll('#frames g.hit')].map(g => g.dataset.name).join(' ')
eval getComputedStyle(document.querySelector('$F rect')).fill
eval document.activeElement.id
press Escape
type do_some
press Enter
eval document.getElementById('match').textContent
eval document.querySelectorAll('#frames g.hit').length
click $E
eval document.getElementById('match').textContent
press Escape
press Escape
press /
type (
press Enter
eval document.getElementById('search').className + ': ' + document.getElementById('match').textContent
EOF
is "$(at 1)" '"matched 1 frame: 3.1MiB, 50.3% of the total"' \
	"/ then a regex: the match's bytes and share, as --text gives do_something"
is "$(at 2)" '"do_something"' "exactly that frame is highlighted"
is "$(at 3)" '"rgb(230, 0, 230)"' "in magenta"
is "$(at 4)" '"search"' "/ went to the search field"
like "$(at 5)" "^\"matched 2 frames: 6\\.1MiB, $(echo "$both" | sed 's/\./\\./')" \
	"two matches sum to $both of the total ($((3235840 + 3194880)) of $total bytes)"
is "$(at 6)" 2 "both highlighted"
like "$(at 7)" ', 100\.0% of the zoomed frame"$' "zoomed into one, the share of the zoomed frame"
like "$(at 8)" '^"bad: not a regular expression' "a bad expression says so and marks the field"

# ---- flame and icicle ----------------------------------------------------
y() { echo "eval Math.round(document.querySelector('$1 rect').getBoundingClientRect().top)"; }
browse seed.html <<EOF
$(y "$A")
$(y "$F")
click #orient
$(y "$A")
$(y "$F")
eval document.getElementById('orient').textContent
EOF
ok $([ "$(at 1)" -gt "$(at 2)" ]; echo $?) "a flame graph by default: the root below its callees"
ok $([ "$(at 3)" -lt "$(at 4)" ]; echo $?) "the toggle turns it into an icicle: the root on top"
like "$(at 5)" '^"Flame' "and offers the flame graph back"
"$BIN" report --html --icicle -o ice.html "$seed"
browse ice.html <<EOF
$(y "$A")
$(y "$F")
EOF
ok $([ "$(at 1)" -lt "$(at 2)" ]; echo $?) "--icicle opens it as an icicle"

# ---- the window's width --------------------------------------------------
browse seed.html --size 1200x800 <<EOF
size 700 500
wait 300
$(w "$A")
eval document.documentElement.scrollWidth
EOF
is "$(at 1)" 680 "in a narrower window the graph is narrower"
is "$(at 2)" 700 "and nothing sticks out"

# ---- a tall graph, a long name -------------------------------------------
# views: grows() keeps 4 MiB of 5.5 MiB; deep() is a 121-frame tower.
prof lg_prof_sample:0,prof_final:true,prof_prefix:v "$TP/views" 4
views=$(one_file 'v.*.f.*heap')
"$BIN" report --html -o views.html "$views"
G='#frames g[data-name="grows"]'
L='#frames g[data-name^="this_function_has"]'
browse views.html --size 1200x700 <<EOF
eval [document.getElementById('graph').scrollHeight, window.innerHeight].join(' ')
eval (() => { const r = document.querySelector('$G rect').getBoundingClientRect(); return r.top >= document.querySelector('header').getBoundingClientRect().bottom && r.bottom <= document.getElementById('details').getBoundingClientRect().top; })()
eval (() => { const r = document.querySelector('$A rect').getBoundingClientRect(); return r.bottom <= innerHeight; })()
eval document.querySelector('$L text').textContent
eval (() => { const g = document.querySelector('$L'); return g.querySelector('text').getBBox().width + 6 <= g.querySelector('rect').getBBox().width; })()
click #frames g[data-name="deep"]
eval document.querySelectorAll('#frames g[data-name="deep"]').length
eval (() => { const r = document.querySelector('#frames g[data-name="deep"]:not(.anc) rect').getBoundingClientRect(); return Math.round(r.width); })()
EOF
set -- $(at 1 | tr -d '"')
ok $([ "$1" -gt $(($2 * 2)) ]; echo $?) "deep() makes a graph taller than two windows ($1 px)"
is "$(at 2)" true "yet it opens with grows(), the bar that matters, in view"
is "$(at 3)" true "and the root at the bottom of the window"
like "$(at 4)" '^"this_f.*…"$' "a long name is cut, with an ellipsis"
is "$(at 5)" true "inside its frame"
is "$(at 6)" 121 "zoomed into the tower: all 121 frames of deep() drawn"
is "$(at 7)" 1180 "full width"

# ---- the view in the address; names that are not HTML ---------------------
browse "file://$T_DIR/views.html#s=^grows%24&o=icicle" <<EOF
eval document.getElementById('match').textContent
eval document.getElementById('search').value
$(y "$A")
$(y "$G")
EOF
vtotal=$("$BIN" report --show-bytes "$views" | sed -n 's/^Total: \([0-9]*\) B .*/\1/p')
is "$(at 1)" "\"matched 1 frame: 4.0MiB, $(pct 4194304 "$vtotal") of the total\"" \
	"an address with #s=... opens with that search"
is "$(at 2)" '"^grows$"' "in the search field"
ok $([ "$(at 3)" -lt "$(at 4)" ]; echo $?) "and #o=icicle as an icicle"

prof lg_prof_sample:0,prof_final:true,prof_prefix:cx "$TP/rep_cxx"
"$BIN" report --html --full-names -o cx.html "$(one_file 'cx.*.f.*heap')"
perl -0777 -ne 'print $1 if m{id="hp-data">(.*?)</script>}s' cx.html >data
like "$(cat data)" 'store::Pool\\u003cstore::Item\\u003e::make' "the page's data has the C++ names"
unlike "$(cat data)" '<' \
	"C++ names cannot close the data's <script>: < is escaped in it"
browse cx.html <<'EOF'
eval [...document.querySelectorAll('#frames g.f')].map(g => g.dataset.name).filter(n => n.includes('Pool')).join(' ')
EOF
is "$(at 1)" '"store::Pool<store::Item>::make(int)"' "and they show as they are"
done_testing
