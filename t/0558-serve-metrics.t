#!/bin/sh
# heapprof serve's /metrics: each profiled process's figures in
# Prometheus' text format, valid for promtool check metrics; the live
# heap of an exact-mode process as it holds it (16 MiB, within the 1 MiB a
# thread the library's published figure may lag), a sampled one's within
# the sampling bound; RSS beside it; sampling, dumps and serve's own
# counts that follow heapprof pause and heapprof dump.  Then Debian's real
# Prometheus server scraping serve, its HTTP API returning the series with
# the process's labels, and contrib/prometheus checked and its alert rule
# unit-tested with promtool.
. "$(dirname "$0")/lib.sh"
for p in prometheus promtool curl; do
	command -v $p >/dev/null || { echo "Bail out! $p is missing: run make deps"; exit 1; }
done
plan 25

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
MiB=1048576
HEAPPROF_CONF=lg_prof_sample:0,helper_thread:start,prof_prefix:$T_DIR/x LD_PRELOAD=$LIB "$TP/idle" 120 16 >x.out 2>&1 &
x=$!
HEAPPROF_CONF=helper_thread:start,prof_prefix:$T_DIR/s LD_PRELOAD=$LIB "$TP/idle" 120 64 >s.out 2>&1 &
s=$!
wait_for x.out '^ready'
wait_for s.out '^ready'
wait_for "run/$x" '^signal_control='
wait_for "run/$s" '^signal_control='

start_serve 120 -q

metric() {   # metric FILE NAME PID: the value of NAME for PID
	sed -n "s/^$2{pid=\"$3\",program=\"idle\"} \\([0-9]*\\)\$/\\1/p" "$1"
}

curl -sS -D h "$url/metrics" >m1
is "$?" 0 "GET /metrics"
like "$(cat h)" '^Content-Type: text/plain; version=0\.0\.4' "Prometheus' text format 0.0.4"
promtool check metrics <m1 >pc 2>&1
is "$? $(cat pc)" "0 " "promtool check metrics: valid, nothing to say"

lx=$(metric m1 heapprof_live_bytes $x)
ok $([ -n "$lx" ] && [ "$lx" -ge $((16 * MiB)) ] && [ "$lx" -le $((17 * MiB + 65536)) ]; echo $?) \
	"exact mode: live bytes as held, 16 MiB (+ stdio's buffer, within 1 MiB): $lx"
ls=$(metric m1 heapprof_live_bytes $s)
# 64 blocks of 1 MiB at 512 KiB: each sampled with probability
# 1-exp(-2) and weighted by its inverse; sd = 1 MiB x sqrt(64 exp(-2)/(1-exp(-2))) = 3.1 MiB.
ok $([ -n "$ls" ] && [ "$ls" -ge $((64 * MiB - 16 * MiB)) ] && [ "$ls" -le $((64 * MiB + 16 * MiB)) ]; echo $?) \
	"sampled: live bytes within 5 sd of 64 MiB: $ls"
rx=$(metric m1 heapprof_rss_bytes $x)
vm=$(awk '/^VmRSS:/ { print $2 * 1024 }' /proc/$x/status)
d=$((rx - vm))
ok $([ -n "$rx" ] && [ "$rx" -gt 0 ] && [ ${d#-} -le $MiB ]; echo $?) \
	"RSS beside it, as /proc says (the blocks untouched: $rx against $vm)"
is "$(metric m1 heapprof_sample_period_bytes $x) $(metric m1 heapprof_sample_period_bytes $s)" "1 524288" \
	"the sample period: 1 in exact mode, 512 KiB by default"
is "$(metric m1 heapprof_sampling_active $s) $(metric m1 heapprof_dumps_total $s)" "1 0" \
	"sampling active, no dumps yet"
st=$(metric m1 heapprof_start_time_seconds $s)
now=$(date +%s)
ok $([ -n "$st" ] && [ "$st" -le "$now" ] && [ "$st" -ge $((now - 120)) ]; echo $?) \
	"the start time is the process's (Unix time)"
# The totals asked of each helper thread: exact in exact mode (16 blocks
# of 1 MiB and stdio's 4096-byte buffer, nothing freed), estimates and no
# peak at the default rate.
is "$(metric m1 heapprof_live_objects $x) $(metric m1 heapprof_allocated_objects_total $x)" "17 17" \
	"exact mode: live objects and allocations, 16 blocks and stdio's buffer"
is "$(metric m1 heapprof_allocated_bytes_total $x) $(metric m1 heapprof_peak_bytes $x)" \
	"$((16 * MiB + 4096)) $((16 * MiB + 4096))" "exact mode: bytes allocated and the exact peak"
# Bytes, not objects: stdio's 4 KiB buffer, sampled once in 128 runs,
# would count 128 objects but only 512 KiB.  sd as for live bytes: 3.1 MiB.
ab=$(metric m1 heapprof_allocated_bytes_total $s)
ok $([ -n "$ab" ] && [ "$ab" -ge $((48 * MiB)) ] && [ "$ab" -le $((80 * MiB)) ] &&
     [ -z "$(metric m1 heapprof_peak_bytes $s)" ]; echo $?) \
	"sampled: bytes allocated estimated (64 MiB within 5 sd: $ab), no peak figure"
n=$(sed -n 's/^heapprof_serve_processes \([0-9]*\)$/\1/p' m1)
ok $([ -n "$n" ] && [ "$n" -ge 2 ]; echo $?) "serve's own: the processes it sees (ours and the user's others: $n)"

timeout 20 "$BIN" pause "$s" >/dev/null 2>&1
timeout 20 "$BIN" dump "$s" >/dev/null 2>&1
curl -sS "$url/metrics" >m2
is "$(metric m2 heapprof_sampling_active $s) $(metric m2 heapprof_dumps_total $s)" "0 1" \
	"after heapprof pause and heapprof dump: sampling 0, dumps 1"
like "$(cat m2)" '^heapprof_serve_requests_total\{route="metrics"\} 2$' "serve counts its requests by route"
unlike "$(cat m2)" "^heapprof_leaked_bytes\\{pid=\"$x\"" "no leak figure before a leak check"
timeout 20 "$BIN" leaks "$x" >/dev/null 2>&1
curl -sS "$url/metrics" >m3
# idle keeps the last of its 16 blocks of 1 MiB: 15 are lost.
is "$(metric m3 heapprof_leaked_bytes $x) $(metric m3 heapprof_leaked_objects $x)" "15728640 15" \
	"after heapprof leaks: the last check's lost bytes and objects"
promtool check metrics <m3 >pc3 2>&1
is "$? $(cat pc3)" "0 " "still valid for promtool"

# ---- the real Prometheus server ---------------------------------------
pport=$((30000 + $$ % 20000))
host=${url#http://}
cat >prom.yml <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: heapprof
    static_configs:
      - targets: ['$host']
EOF
timeout --foreground 100 prometheus --config.file=prom.yml --storage.tsdb.path="$T_DIR/tsdb" \
	--web.listen-address=127.0.0.1:$pport >prom.log 2>&1 &
prom=$!
q() { curl -sS -G "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" 2>/dev/null; }
n=0
until q 'heapprof_live_bytes' | grep -q "\"pid\":\"$x\"" || [ $n -ge 600 ]; do sleep 0.1; n=$((n + 1)); done
q "heapprof_live_bytes{pid=\"$x\"}" >api.json
python3 - api.json "$x" >apiv <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
r = j["data"]["result"]
m = r[0]["metric"] if r else {}
print(j["status"], len(r), m.get("pid"), m.get("program"), m.get("job"), int(r[0]["value"][1]) if r else -1)
PYEOF
read pstatus pn ppid pprog pjob pval <apiv
is "$pstatus $pn $ppid $pprog $pjob" "success 1 $x idle heapprof" \
	"Prometheus scraped serve: its API returns the process's series with pid and program"
ok $([ "$pval" -ge $((16 * MiB)) ] && [ "$pval" -le $((17 * MiB + 65536)) ]; echo $?) \
	"with the live heap serve gives ($pval)"
is "$(q 'up{job="heapprof"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])')" 1 \
	"the target is up"
kill $prom 2>/dev/null
wait $prom 2>/dev/null

# ---- contrib/prometheus -------------------------------------------------
cd "$SRC/contrib/prometheus" || exit 1
promtool check config prometheus.yml >"$T_DIR/pc" 2>&1
is "$?" 0 "contrib/prometheus/prometheus.yml is a valid configuration (with its rule file)"
promtool test rules heapprof-rules.test.yml >"$T_DIR/pt" 2>&1
is "$?" 0 "HeapGrowsSteadily: fires for steady growth, not for a cache that filled nor in the warm-up"
like "$(cat "$T_DIR/pt")" 'SUCCESS' "(promtool test rules says so)"
cd "$T_DIR" || exit 1

kill $x $s $srv 2>/dev/null
wait $x $s $srv 2>/dev/null
is "$(grep -c 'heapprof' serve.err)" 0 "serve said nothing on stderr"
done_testing
