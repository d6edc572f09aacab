#!/bin/sh
# heapprof report --base with --html and --svg: a diff flame graph, frames
# as wide as what changed under them, red where memory grew and blue
# where it shrank, deeper for larger changes, with the scale in a legend;
# in Chromium (t/browser.py) and, for the SVG, xmllint.
#
# views 1 then views 4: grows() keeps 1 then 4 MiB (+3145728 bytes, the
# largest change: full red); shrinks() 2.5 then 1 MiB (-1572864, half of
# it: half-way to blue); the rest does not change.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 29
. "$SRC/t/browser.sh"

# color DELTA MAX: flame.c's diff colour, "R,G,B".
color() {
	awk -v d="$1" -v m="$2" 'BEGIN {
		split("238 238 238", n); if (d < 0) split("38 88 215", to); else split("215 38 38", to)
		t = (d < 0 ? -d : d) / m; if (t > 1) t = 1
		for (i = 1; i <= 3; i++) c[i] = int(n[i] + (to[i] - n[i]) * t + 0.5)
		printf "%d,%d,%d\n", c[1], c[2], c[3] }'
}

prof lg_prof_sample:0,prof_final:true,prof_prefix:old "$TP/views" 1
prof lg_prof_sample:0,prof_final:true,prof_prefix:new "$TP/views" 4
old=$(one_file 'old.*.f.*heap')
new=$(one_file 'new.*.f.*heap')
red=$(color 3145728 3145728)
blue=$(color -1572864 3145728)
is "$red" "215,38,38" "grows() is the largest change: full red"
is "$blue" "138,163,227" "shrinks() half as large the other way: half blue"

# ---- the page ------------------------------------------------------------
"$BIN" report --html --base "$old" -o diff.html "$new"
is $? 0 "--html --base writes a page"
G='#frames g[data-name="grows"]'
S='#frames g[data-name="shrinks"]'
A='#frames g[data-name="all"]'
fill() { echo "eval getComputedStyle(document.querySelector('$1 rect')).fill"; }
w() { echo "eval document.querySelector('$1 rect').getBoundingClientRect().width"; }
widths() { echo "eval (s => { s.value = '$1'; s.dispatchEvent(new Event('change')); return s.value; })(document.getElementById('widths'))"; }
browse diff.html --size 1200x800 <<EOF
eval document.querySelector('h1').textContent
$(fill "$G")
$(fill "$S")
$(w "$A")
$(w "$G")
eval document.querySelectorAll('#frames g[data-name="steady"]').length
hover $S
eval document.getElementById('tip').innerText.replace(/\n/g, ' | ')
eval [document.getElementById('shrank').textContent, document.getElementById('grew').textContent, getComputedStyle(document.getElementById('legend')).display !== 'none'].join(' ')
press /
type ^shrinks\$
press Enter
eval document.getElementById('match').textContent
press Escape
$(widths now)
$(fill '#frames g[data-name="steady"]')
$(w "$A")
$(w "$G")
$(widths base)
$(w "$A")
$(w "$S")
eval location.hash
EOF
like "$(at 1)" '^"heapprof diff flame graph: inuse_space.*\+1\.5MiB net in 1 dump minus 1 base dump"$' \
	"titled a diff, with the net change"
is "$(at 2)" "\"rgb($(echo $red | sed 's/,/, /g'))\"" "grows() is red"
is "$(at 3)" "\"rgb($(echo $blue | sed 's/,/, /g'))\"" "shrinks() is blue, lighter: a smaller change"
near "$(at 5)" "$(awk -v a="$(at 4)" 'BEGIN { print a * 3145728 / (3145728 + 1572864) }')"
ok $? "widths are the changes: grows() is 3145728 of the 4718592 bytes that changed"
is "$(at 6)" 0 "steady() did not change: no width"
is "$(at 7)" '"shrinks | change -1.5MiB (-60.0%) | base 2.5MiB, 40 objects | now 1.0MiB, 16 objects | grew 0B and shrank -1.5MiB in the paths under it"' \
	"the tooltip gives both sides and the change"
is "$(at 8)" '"shrank -3.0MiB grew +3.0MiB true"' "a legend gives the colour scale's ends"
is "$(at 9)" '"matched 1 frame: 1.5MiB, 33.3% of the changes (net -1.5MiB)"' \
	"a search sums the changes it matches"
is "$(at 10)" '"now"' "widths can be the dumps' values instead"
is "$(at 11)" '"rgb(238, 238, 238)"' "then steady() shows, grey: unchanged"
near "$(at 13)" "$(awk -v a="$(at 12)" -v t="$("$BIN" report --show-bytes "$new" | sed -n 's/^Total: \([0-9]*\) B .*/\1/p')" \
	'BEGIN { print a * 4194304 / t }')"
ok $? "and grows() is as wide as its 4 MiB now"
is "$(at 14)" '"base"' "or the base's"
near "$(at 16)" "$(awk -v a="$(at 15)" -v t="$("$BIN" report --show-bytes "$old" | sed -n 's/^Total: \([0-9]*\) B .*/\1/p')" \
	'BEGIN { print a * 2621440 / t }')"
ok $? "then shrinks() is as wide as its 2.5 MiB in the base"
is "$(at 17)" '"#w=base"' "the address remembers it"

# ---- the SVG -------------------------------------------------------------
"$BIN" report --svg --base "$old" -o diff.svg "$new"
is $? 0 "--svg --base writes an image"
xmllint --noout diff.svg 2>err
ok $? "valid XML"
svg=$(cat diff.svg)
like "$svg" '>heapprof diff flame graph: inuse_space<' "titled a diff"
like "$svg" "<title>grows \\(\\+3\\.0MiB: 1\\.0MiB -&gt; 4\\.0MiB\\)</title><rect [^>]*fill=\"rgb\\($red\\)\"" \
	"grows() red, its tooltip with both sides"
like "$svg" "<title>shrinks \\(-1\\.5MiB: 2\\.5MiB -&gt; 1\\.0MiB\\)</title><rect [^>]*fill=\"rgb\\($blue\\)\"" \
	"shrinks() blue"
like "$svg" '<linearGradient id="scale">' "a legend with the colour scale"
like "$svg" '>shrank -3\.0MiB<.*|>grew \+3\.0MiB<' "and its ends"
unlike "$svg" '<title>steady ' "what did not change is not drawn"
unlike "$svg" '<script|href=' "still no script and no link"
browse diff.svg --size 1200x400 <<EOF
eval [...document.querySelectorAll('g')].filter(g => g.getBoundingClientRect().width > 0).map(g => g.querySelector('title').textContent.split(' ')[0]).join(' ')
EOF
is "$(at 1)" '"all _start __libc_start_main_impl __libc_start_call_main main grows shrinks"' \
	"Chromium draws it"

# ---- static icicle -------------------------------------------------------
"$BIN" report --svg --icicle -o ice.svg "$new"
y() { sed -n "s/.*<title>$1 ([^)]*)<\/title><rect x=\"[0-9.]*\" y=\"\([0-9.]*\)\".*/\1/p" ice.svg; }
ok $(awk -v a="$(y all)" -v b="$(y grows)" 'BEGIN { exit !(a < b) }'; echo $?) \
	"--svg --icicle: the root on top"
xmllint --noout ice.svg 2>/dev/null
ok $? "valid XML"
done_testing
