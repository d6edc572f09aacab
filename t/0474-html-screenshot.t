#!/bin/sh
# heapprof report --html captured headless (chromium --screenshot), as a CI
# job or a newcomer does it: a graph taller than the window must not come
# out blank.  The page opens scrolled to where the memory is; a screenshot
# of it must show frames, not an empty background.  Printed (to PDF), the
# whole graph is on the pages, not one window's worth.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 4

prof lg_prof_sample:0,prof_final:true,prof_prefix:v "$TP/views" 4 >/dev/null
views=$(one_file 'v.*.f.*heap')
"$BIN" report --html -o views.html "$views"
is $? 0 "--html writes the page of a 121-frame tower"
timeout 60 chromium --headless --no-sandbox --hide-scrollbars \
	--screenshot="$PWD/shot.png" --window-size=1280,1000 \
	"file://$PWD/views.html" >/dev/null 2>&1
ok $([ -s shot.png ]; echo $?) "chromium --screenshot writes a PNG"
# Colours in the lower half: the background alone is one colour.
n=$(python3 -c '
import sys; sys.path.insert(0, sys.argv[1])
import png
w, h, d, t, ch, rows = png.decode(sys.argv[2])
seen = set()
for y in range(h // 2, h, 4):
    r = rows[y]
    for x in range(0, w * ch, ch * 4):
        seen.add(bytes(r[x:x + 3]))
print(len(seen))' "$SRC/t/real" shot.png)
ok $([ "${n:-0}" -gt 3 ]; echo $?) "the lower half of the screenshot has frames ($n colours)"
timeout 60 chromium --headless --no-sandbox --print-to-pdf="$PWD/views.pdf" \
	"file://$PWD/views.html" >/dev/null 2>&1
pages=$(grep -ac '/Type /Page\b' views.pdf 2>/dev/null)
ok $([ "${pages:-0}" -ge 3 ]; echo $?) "printed to PDF, the 121-frame tower takes ${pages:-no} pages"
