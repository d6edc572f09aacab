#!/bin/sh
# heapprof trend --suspects: a service (t/prog/leakysvc) that loses 1 MiB a
# "minute" on one request path and fills an 8 MiB LRU cache on another
# (full after four minutes, then turning over), ten minutes of 2 s each,
# one dump a second.  The leak must be the one suspect and the cache no
# suspect ("levelled off" in exact mode), in exact mode and sampled
# (lg_prof_sample:17 with prof_accum:true, two runs: about 80 samples of
# the leak in each), with the service's output unchanged.  Then the JSON, dumps that lack the evidence,
# and the usage errors.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 29

ARGS="10 2000 1024 8192"
"$TP/leakysvc" $ARGS 7 >want7 &
"$TP/leakysvc" $ARGS 8 >want8 &

run() {   # run NAME CONF SEED: the service under heapprof, dumps in NAME/
	mkdir "$1"
	prof "$2,dump_interval_s:1,prof_prefix:$1/svc" "$TP/leakysvc" $ARGS "$3" >"$1.out" 2>"$1.err"
	echo $? >"$1.st"
}
run exact lg_prof_sample:0 7 &
run s1 lg_prof_sample:17,prof_accum:true 7 &
run s2 lg_prof_sample:17,prof_accum:true 8 &
wait

for r in exact s1 s2; do
	seed=7
	[ $r = s2 ] && seed=8
	is "$(cat $r.st) $(cat $r.out)" "0 $(cat want$seed)" \
		"$r: the service's output and status are its own"
	n=$(ls $r/*.heap | wc -l)
	ok $([ "$n" -ge 15 ]; echo $?) "$r: a dump a second ($n)"
	"$BIN" trend --suspects $r/*.heap >$r.t 2>$r.e
	st=$?
	is "$st $(cat $r.e)" "0 " "$r: trend --suspects exits 0, nothing on stderr"
	like "$(sed -n 3p $r.t)" '^1 suspect among [0-9]+ growing stacks:$' "$r: one suspect"
	like "$(sed -n 5p $r.t)" '^1 +(>99\.99|99\.[0-9]+)% +\+[0-9.]+KiB/s +\+[0-9.]+KiB/s .*  lose_request <- main' \
		"$r: it is the leak, at 99% or more"
	if [ $r = exact ]; then
		like "$(sed -n '/^Grew, then levelled off/,$p' $r.t)" '  cache_request <- main' \
			"$r: the cache grew and levelled off"
	else
		# Sampled, the cache's later half can wander up by chance:
		# "levelled" or "not beyond the noise", never a suspect.  A
		# test at 99% calls a flat series a suspect once in a hundred
		# runs by construction (in 18 runs of s2's, the cache's later
		# half had 0 to 98.05%); this suite makes two such runs each
		# time, so the cache is held to 99.9%.  The leak, there, is a
		# suspect or growing at 99% or more: on its few dozen samples
		# its confidence varies from run to run, and read 99.69% to
		# >99.99% in 24 runs of s1's and s2's (12 of them beside two
		# busy loops), once below 99.9%, as in a whole suite's run
		# that failed.
		# The cache's samples may also show no growth at all (then it
		# is not among the growing stacks: seen once in a full
		# suite's run).
		"$BIN" trend --suspects --confidence 99.9 $r/*.heap >$r.t9 2>&1
		leak9=$(sed -n 's/^[0-9 ]* \(>*[0-9.]*\)% .*  lose_request <- main.*/\1/p' $r.t9 | tr -d '>')
		ok $(! grep -q '^[0-9].*cache_request' $r.t9 &&
		     awk -v c="$leak9" 'BEGIN { exit !(c != "" && c + 0 >= 99) }'
		     echo $?) "$r: the cache is no suspect (at 99.9%), the leak grows at 99% or more (${leak9:-none}%)"
	fi
done
diag "$(cat s1.t)"

# The JSON says the same.
"$BIN" trend --suspects --json s1/*.heap >j
python3 - j >jv <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["suspects"]
v = {k["label"].split(" ")[0]: k["verdict"] for k in j["ranked"]}
top = j["ranked"][0]
# Sampled, the cache's later half can wander up by chance: "levelled" or
# "weak", or its samples show no growth ("not-growing"), never "suspect"
# (as the text's test above).
cache = v.get("cache_request")
print(s["suspects"], s["cumulative_counts"], s["confidence_level"], v.get("lose_request"),
      "not-suspect" if cache in ("levelled", "weak", "not-growing") else cache, top["label"].split(" ")[0],
      top["confidence"] >= 0.99)
PYEOF
is "$(cat jv)" "1 True 0.99 suspect not-suspect lose_request True" \
	"--json: one suspect, the leak first with its verdict and confidence; the cache none"

# Without the time lines (names only), the test still runs.
mkdir noline
for f in s1/*.heap; do
	grep -v '^# heapprof time:' "$f" >"noline/$(basename "$f")"
done
"$BIN" trend --suspects noline/*.heap >nl
like "$(sed -n 5p nl)" 'lose_request <- main' "dumps without '# heapprof time:' lines: the leak still leads"

# The time line: read, and a garbled one named with its line.
like "$(grep '^# heapprof time:' "$(ls s1/*.heap | head -1)")" '^# heapprof time: [0-9]+\.[0-9]{9}$' \
	"dumps carry '# heapprof time: <seconds>.<nanoseconds>'"
f=$(ls s1/*.heap | head -1)
sed 's/^# heapprof time: .*/# heapprof time: 12x/' "$f" >bad.1.f.heap
"$BIN" report bad.1.f.heap >/dev/null 2>e
st=$?
like "$st $(cat e)" "^1 heapprof: cannot read 'bad\.1\.f\.heap': line 4: expected '# heapprof time: <seconds>\.<nanoseconds>'" \
	"a garbled time line: status 1, the file and line"

# Usage errors: status 2, one line, nothing written.
bad() {   # bad NAME ARGS...
	_name=$1
	shift
	"$BIN" trend "$@" >out 2>e
	st=$?
	ok $([ $st -eq 2 ] && [ ! -s out ] && grep -q "^heapprof trend: $_name" e; echo $?) \
		"trend $*: a usage error naming the problem"
}
set -- $(ls exact/*.heap | sort -t. -k3n | head -8)
bad "--suspects needs at least 6 dumps" --suspects "$1" "$2" "$3" "$4" "$5"
bad "--suspects judges live memory" --suspects --alloc-space "$@"
bad "--confidence takes a percentage" --suspects --confidence 40 "$@"
bad "--confidence takes a percentage" --suspects --confidence 100 "$@"
bad "--confidence takes a percentage" --suspects --confidence 9x "$@"
bad "--suspects is text or --json" --suspects --svg "$@"
"$BIN" trend --suspects --confidence 99.9% "$@" >c 2>e
is "$? $(sed -n 2p c | grep -o '99.9% confidence')" "0 99.9% confidence" "--confidence 99.9%: the level is said"
