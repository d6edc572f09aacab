#!/bin/sh
# heapprof trend --suspects on a clean redis-server (Debian's package)
# under redis-benchmark load: a dump a second for REAL_SUSPECTS_SECS
# (default 25) seconds while the benchmark loops over SET, GET, INCR,
# SADD and HSET on a keyspace of 10000 keys, which fills in the first
# seconds and then holds; at the default rate with prof_accum:true and in
# exact mode.  redis must have no suspect: its heap fills and then holds.
# The series' ranking is printed (diag).
. "$(dirname "$0")/driver.sh"

for p in redis-server redis-cli redis-benchmark; do
	command -v $p >/dev/null || { echo "Bail out! $p is missing: run make deps-real"; exit 1; }
done
SECS=${REAL_SUSPECTS_SECS:-25}
plan 8

o=$REAL_OUT/redis-suspects
series() {   # series NAME CONF: redis under load with a dump a second into NAME/
	mkdir -p "$T_DIR/$1"
	port=$((20000 + ($$ + ${#1}) % 20000))
	while redis-cli -p $port ping >/dev/null 2>&1; do port=$((port + 1)); done
	timeout 300 env HEAPPROF_CONF="$2,dump_interval_s:1,prof_prefix:$T_DIR/$1/r,dump_keep:0" \
		LD_PRELOAD="$LIB" redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no \
		--dir "$T_DIR" --daemonize no >"$o.$1.server.out" 2>"$o.$1.server.err" </dev/null &
	spid=$!
	i=0
	until [ "$(redis-cli -p $port ping 2>/dev/null)" = PONG ] || [ $i -ge 200 ]; do
		sleep 0.1; i=$((i + 1))
	done
	timeout "$SECS" redis-benchmark -p $port -r 10000 -l -q -t set,get,incr,sadd,hset \
		>"$o.$1.bench.out" 2>&1 </dev/null
	redis-cli -p $port shutdown nosave >/dev/null 2>&1
	wait $spid
	echo $? >"$T_DIR/$1.st"
}

for m in default exact; do
	conf=prof_accum:true
	[ $m = exact ] && conf=lg_prof_sample:0
	series $m $conf
	is "$(cat "$T_DIR/$m.st")" 0 "$m: the server's exit status on SHUTDOWN, as bare"
	n=$(ls "$T_DIR/$m"/*.heap | wc -l)
	ok $([ "$n" -ge $((SECS - 5)) ]; echo $?) "$m: a dump a second ($n)"
	"$BIN" trend --suspects "$T_DIR/$m"/*.heap >"$o.$m.trend" 2>&1
	is $? 0 "$m: trend --suspects exits 0"
	like "$(sed -n 3p "$o.$m.trend")" '^No suspects among [0-9]+ growing stacks\.$' "$m: redis has no suspect"
	real_diag "$(cat "$o.$m.trend")"
done

done_testing
