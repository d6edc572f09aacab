#!/bin/sh
# heapprof leaks on redis-server (Debian's package), preloaded in exact
# mode, under redis-benchmark: a steady state without leaks, checked while
# the benchmark runs and confirmed over 3 checks after; jemalloc's
# background thread, which blocks every signal, named as not stopped;
# the benchmark's status and the server's exit status on SHUTDOWN as
# bare.  The pauses are printed (diag), not asserted.
. "$(dirname "$0")/driver.sh"

for p in redis-server redis-cli redis-benchmark; do
	command -v $p >/dev/null || { echo "Bail out! $p is missing: run make deps-real"; exit 1; }
done
export HEAPPROF_RUNTIME_DIR=$T_DIR/run
plan 7

port=$((20000 + $$ % 20000))
while redis-cli -p $port ping >/dev/null 2>&1; do port=$((port + 1)); done
cli() { timeout 10 redis-cli -p $port "$@" 2>&1; }

o=$REAL_OUT/redis-leaks
LD_PRELOAD=$LIB HEAPPROF_CONF=lg_prof_sample:0 timeout 900 redis-server --port $port --bind 127.0.0.1 \
	--save '' --appendonly no --dir "$T_DIR" --daemonize no >"$o.server.out" 2>"$o.server.err" </dev/null &
spid=$!
i=0
until [ "$(cli ping)" = PONG ] || [ $i -ge 200 ]; do sleep 0.1; i=$((i + 1)); done
rpid=$(cli info server | sed -n 's/^process_id:\([0-9]*\).*/\1/p')

timeout 900 redis-benchmark -p $port -n "${REAL_REDIS_REQUESTS:-200000}" -r 10000 -q --csv \
	-t set,get,incr,lpush,lpop,sadd,hset >"$o.bench.out" 2>"$o.bench.err" </dev/null &
bpid=$!
sleep 1
"$BIN" leaks "$rpid" >"$o.during" 2>&1
is $? 0 "a check while the benchmark runs: no leaks"
real_diag "$(sed -n 2p "$o.during")"
wait $bpid
is $? 0 "the benchmark's status"
"$BIN" leaks --confirm 3 --interval 1 "$rpid" >"$o.after" 2>&1
is $? 0 "confirmed over 3 checks after it: no leaks"
real_diag "$(sed -n 2p "$o.after")"
like "$(cat "$o.after")" "^note: thread [0-9]+ \\(jemalloc_bg_thd\\) did not stop for the scan" \
	"jemalloc's background thread, which blocks every signal, is named" 
like "$(cut -d, -f1 "$o.bench.out" | tr -d '"' | tr '\n' ' ')" 'SET GET INCR LPUSH LPOP SADD HSET' "every benchmark test ran"
is "$(cli ping)" PONG "PING after"
cli shutdown nosave >/dev/null
wait $spid
is $? 0 "the server's exit status on SHUTDOWN, as bare"

done_testing
