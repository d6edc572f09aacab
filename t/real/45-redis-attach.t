#!/bin/sh
# heapprof attach and detach on redis-server (Debian's package, started
# without heapprof) under redis-benchmark: REAL_ATTACH_CYCLES (default
# 100) cycles while the benchmark runs, a PING answered after each attach
# and a dump every tenth; then the benchmark's status, the data it left,
# PING, and the server's exit status on SHUTDOWN, as without heapprof
# (0).  The borrowed thread's pause is printed (diag), not asserted.
. "$(dirname "$0")/driver.sh"

for p in redis-server redis-cli redis-benchmark; do
	command -v $p >/dev/null || { echo "Bail out! $p is missing: run make deps-real"; exit 1; }
done
CYCLES=${REAL_ATTACH_CYCLES:-100}
export HEAPPROF_RUNTIME_DIR=$T_DIR/run
plan 9

port=$((20000 + $$ % 20000))
while redis-cli -p $port ping >/dev/null 2>&1; do port=$((port + 1)); done
cli() { timeout 10 redis-cli -p $port "$@" 2>&1; }

o=$REAL_OUT/redis-attach
timeout 900 redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no --dir "$T_DIR" \
	--daemonize no >"$o.server.out" 2>"$o.server.err" </dev/null &
spid=$!
i=0
until [ "$(cli ping)" = PONG ] || [ $i -ge 200 ]; do sleep 0.1; i=$((i + 1)); done
rpid=$(cli info server | sed -n 's/^process_id:\([0-9]*\).*/\1/p')

timeout 900 redis-benchmark -p $port -n "${REAL_REDIS_REQUESTS:-300000}" -q --csv -t set,get,incr,lpush,lpop,sadd,hset \
	>"$o.bench.out" 2>"$o.bench.err" </dev/null &
bpid=$!
sleep 0.5
fail=0 pongs=0 dumps=0 n=0
: >"$o.pauses"
while [ $n -lt "$CYCLES" ]; do
	n=$((n + 1))
	if "$BIN" attach "$rpid" -c prof_prefix:$T_DIR/d,dump_keep:5 >"$o.a" 2>&1; then
		sed -n 's/.* paused \([0-9.]*\) ms$/\1/p' "$o.a" >>"$o.pauses"
	else
		fail=$((fail + 1)); real_diag "attach $n: $(cat "$o.a")"
	fi
	[ "$(cli ping)" = PONG ] && pongs=$((pongs + 1))
	if [ $((n % 10)) -eq 0 ]; then
		f=$("$BIN" dump "$rpid" 2>/dev/null) && [ -f "$f" ] && dumps=$((dumps + 1))
	fi
	if "$BIN" detach "$rpid" >"$o.a" 2>&1; then
		sed -n 's/.* paused \([0-9.]*\) ms$/\1/p' "$o.a" >>"$o.pauses"
	else
		fail=$((fail + 1)); real_diag "detach $n: $(cat "$o.a")"
	fi
done
during=no
kill -0 $bpid 2>/dev/null && during=yes
is "$fail" 0 "$CYCLES attach and detach cycles, every one done"
is "$pongs" "$CYCLES" "a PING answered after every attach"
is "$dumps" $((CYCLES / 10)) "a dump every tenth cycle"
sort -n "$o.pauses" | awk '{ v[NR] = $1 } END { printf "# redis-server: pause of the borrowed thread over %d calls: median %.1f ms, 90th %.1f ms, max %.1f ms\n", NR, v[int((NR + 1) / 2)], v[int(NR * 0.9)], v[NR] }'
real_diag "the benchmark was still running at the end of the cycles: $during"
wait $bpid
is $? 0 "the benchmark's status"
like "$(cut -d, -f1 "$o.bench.out" | tr -d '"' | tr '\n' ' ')" 'SET GET INCR LPUSH LPOP SADD HSET' "every benchmark test ran"
is "$(cli ping)" PONG "PING after"
ok $([ "$(cli dbsize)" -gt 0 ]; echo $?) "the data is there"
is "$(cli info server | sed -n 's/^process_id:\([0-9]*\).*/\1/p')" "$rpid" "the same server process"
cli shutdown nosave >/dev/null
wait $spid
is $? 0 "the server's exit status on SHUTDOWN, as bare"

done_testing
