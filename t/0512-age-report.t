#!/bin/sh
# heapprof report --age: a service's leak is long-lived memory allocated
# after the warm-up, its cache's turnover young; python3's request memory
# young and its start-up's old; the usage errors.
#
# t/prog/leakysvc, 14 "minutes" of 500 ms: lose_request loses 256 KiB a
# minute, evenly; cache_request keeps an LRU cache of 512 KiB, about 200
# KiB a minute going through it, so its entries live about 1.3 s.  A dump
# at about 6 s, with a warm-up of 2 s: the leak's blocks are of every
# age from 0 to 6 s, 2/6 of them allocated in the warm-up, 2/6 younger
# than it, 2/6 long-lived; the cache's are all younger than 2 s.
. "$(dirname "$0")/lib.sh"
. "$SRC/t/browser.sh"
plan 21

# shares DUMP FUNCTION: "long-lived% young%" of FUNCTION's stack, and
# "first" when it is the first row (the most long-lived bytes).
shares() {
	"$BIN" report --age --warmup 2s --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for i, s in enumerate(d["stacks"]):
    if sys.argv[1] in s["frames"][:2]:
        print("%d %d%s" % (100 * s["long_lived"] // s["live"], 100 * s["young"] // s["live"],
                           " first" if i == 0 else ""))' "$2"
}

# service CONF PREFIX: leakysvc under CONF, dumped by SIGUSR1 at about 6 s.
service() {
	HEAPPROF_CONF="$1,prof_prefix:$2" LD_PRELOAD=$LIB "$TP/leakysvc" 14 500 256 512 >svc.out 2>svc.err &
	pid=$!
	sleep 6
	kill -USR1 $pid
	wait $pid
	one_file "$2.*.s*.heap"
}

dump=$(service lg_prof_sample:0,prof_age:true ex)
like "$(cat svc.out)" '^served [0-9]+ requests' "exact mode: the service runs"
set -- $(shares "$dump" lose_request) - - -
ok "$([ "$3" = first ] && [ "$1" -ge 20 ] 2>/dev/null; echo $?)" "lose_request comes first, $1% long-lived (truth about 33%)"
set -- $(shares "$dump" cache_request) - - -
ok "$([ "$1" -le 5 ] && [ "$2" -ge 95 ] 2>/dev/null; echo $?)" "cache_request: $1% long-lived, $2% young"
"$BIN" report --age --warmup 2s "$dump" >out
like "$(sed -n 1p out)" '^Ages: [0-9.]+[KM]iB live in [0-9]+ stacks; uptime [0-9.]+ s, warm-up 2\.0 s \(1 dump\)$' \
	"the text's headline"
like "$(sed -n 2,4p out | awk '{ print $1 }' | tr '\n' ' ')" '^startup long-lived young $' "then the three shares"
like "$(sed -n 6p out)" ' lose_request$' "the first row is lose_request"
like "$(cat out)" 'ages: (<1s|1-2s) [0-9.]+[KM]iB, ' "each row with its ages"

# --html: frames coloured by their long-lived share, grey to red, in
# headless Chromium.
"$BIN" report --age --warmup 2s --html -o age.html "$dump"
fill() { echo "eval document.querySelector('#frames g[data-name=\"$1\"] rect').getAttribute('fill')"; }
browse age.html <<EOF
eval document.getElementById('legend').textContent
$(fill lose_request)
$(fill cache_request)
EOF
is "$(at 1)" '"young  long-lived"' "--age --html: the legend runs from young to long-lived"
like "$(at 2)" '^"rgb\(2[0-3][0-9],[0-9]+,[0-9]+\)"$' "lose_request is reddened ($(at 2))"
is "$(at 3)" '"rgb(238,238,238)"' "cache_request is grey: nothing long-lived"

# At a sampled rate (one sample per 16 KiB on average), the same shapes.
for run in 1 2; do
	rm -f sa.*.heap
	dump=$(service lg_prof_sample:14 sa)
	set -- $(shares "$dump" lose_request) - - -
	ok "$([ "$3" = first ] && [ "$1" -ge 15 ] 2>/dev/null; echo $?)" "sampled, run $run: lose_request first, $1% long-lived"
	set -- $(shares "$dump" cache_request) - - -
	ok "$([ "$1" -le 10 ] 2>/dev/null; echo $?)" "sampled, run $run: cache_request $1% long-lived"
done

# python3 at the default rate: what it allocated starting is old, a
# request's bytearrays young.  Its start-up keeps 20 MB of bytes (about 38
# samples at the default rate): the interpreter's own start-up memory, a
# MB or two, has no sample at all in about one run of twelve.
prof prof_prefix:py python3 -c '
import os, signal, time
boot = [bytes(4000) for _ in range(5000)]
time.sleep(2.5)
keep = [bytearray(4000) for _ in range(10000)]
os.kill(os.getpid(), signal.SIGUSR1)
time.sleep(0.5)
'
dump=$(one_file 'py.*.s*.heap')
"$BIN" report --age --warmup 1s --json "$dump" | python3 -c '
import json, sys
d = json.load(sys.stdin)
def share(frame, part):
    st = [s for s in d["stacks"] if frame in s["frames"]]
    return "%d %d" % (len(st), sum(s[part] for s in st) * 100 // max(1, sum(s["live"] for s in st)))
print(share("PyByteArray_Resize", "young"), share("_PyBytes_FromSize", "startup"))' >py
read n young nboot startup <py
ok "$([ "$n" -ge 1 ] && [ "$young" -ge 95 ]; echo $?)" "python3: the bytearrays are young ($young%)"
ok "$([ "$nboot" -ge 1 ] && [ "$startup" -ge 95 ]; echo $?)" "python3: the bytes of its start-up are old ($startup% startup)"

# Usage errors: one line each, status 2.
err() {
	"$BIN" report "$@" "$dump" >/dev/null 2>e
	echo "$?:$(sed -n 1p e)"
}
is "$(err --age --warmup soon)" "2:heapprof report: --warmup wants a duration such as 90, 90s, 5m or 2h, not 'soon'" "a bad duration"
is "$(err --warmup 5m)" "2:heapprof report: --warmup goes with --age" "--warmup alone"
is "$(err --age --base "$dump")" "2:heapprof report: --age does not go with --base (ages are of one dump's moment: its long-lived memory is what a diff shows growing and staying)" "--age and --base"
is "$(err --age --pprof)" "2:heapprof report: --age writes --text, --json or --html" "--age and --pprof"
is "$(err --age --inuse-objects)" "2:heapprof report: --age shows live bytes: it takes no --inuse-* or --alloc-* value" "--age and a value"
done_testing
