#!/bin/sh
# redis-server (Debian's package) under redis-benchmark, bare, at the
# default rate and in exact mode.  Under the preload a storm of signals
# comes from outside while the benchmark runs: REAL_STORM_USR1 SIGUSR1
# (default 1000, a dump each) and REAL_STORM_USR2 SIGUSR2 (default 100,
# sampling off and on), one every REAL_STORM_GAP_MS milliseconds (default
# 2), with a PING and a heapprof dump PID (the control-file request) every
# 100 signals.  redis-server does not handle SIGUSR1
# or SIGUSR2 itself (bare, either kills it), so plain kill(2) reaches
# heapprof's handlers: no collision to avoid.
#
# Compared with the bare run: the benchmark's status and its list of
# tests, the data it leaves (the keys, a counter, a list), PING after it,
# the server's exit status on SHUTDOWN.  Under the preload, also: every
# PING and every heapprof dump during the storm answered, the server never restarted, at least one
# dump, one "<heapprof>: dump" line per dump file, and every dump read
# back by heapprof report: all of them in batches of 50 (heapprof report
# reads each file of a batch and fails naming a bad one), and a sample
# one by one (the first, every REAL_REPORT_EVERY-th (default 25), the last).
. "$(dirname "$0")/driver.sh"

for p in redis-server redis-cli redis-benchmark; do
	command -v $p >/dev/null || { echo "Bail out! $p is missing: run make deps-real"; exit 1; }
done
NUSR1=${REAL_STORM_USR1:-1000}
NUSR2=${REAL_STORM_USR2:-100}
GAP=${REAL_STORM_GAP_MS:-2}
NREQ=${REAL_REDIS_REQUESTS:-50000}
EVERY=${REAL_REPORT_EVERY:-25}
REAL_CONF_EXTRA=dump_keep:0
# redis-server writes its process title over its environment: heapprof
# dump must find the runtime directory without reading it (the bell in
# the process's memory map), which it did not ("publishes no state").
export HEAPPROF_RUNTIME_DIR=$T_DIR/run
plan 14

# A port nobody answers on.
port=$((20000 + $$ % 20000))
while redis-cli -p $port ping >/dev/null 2>&1; do port=$((port + 1)); done
cli() { timeout 10 redis-cli -p $port "$@" 2>&1; }

# storm PID: the signals, paced, and the pings; prints what it counted.
storm() {
	perl -MTime::HiRes=usleep -e '
		my ($pid, $n1, $n2, $gap, $port, $bin) = @ARGV;
		my ($s1, $s2, $pings, $pongs, $asks, $asked) = (0, 0, 0, 0, 0, 0);
		my $every = $n2 ? int($n1 / $n2) : 0;
		for my $i (1 .. $n1) {
			kill("USR1", $pid) or last;
			$s1++;
			usleep($gap * 1000);
			if ($every && $i % $every == 0 && $s2 < $n2) {
				kill("USR2", $pid) or last;
				$s2++;
				usleep($gap * 1000);
			}
			if ($i % 100 == 0) {
				$pings++;
				$pongs++ if `timeout 10 redis-cli -p $port ping 2>&1` =~ /^PONG$/m;
				$asks++;
				my $path = `"$bin" dump $pid --timeout 30 2>/dev/null`;
				chomp $path;
				$asked++ if $? == 0 && -f $path;
			}
		}
		print "usr1 $s1 usr2 $s2 pings $pings pongs $pongs asks $asks asked $asked\n";
	' "$1" "$NUSR1" "$NUSR2" "$GAP" "$port" "$BIN"
}

for m in $REAL_MODES; do
	d=$T_DIR/redis.$m
	mkdir -p "$d"
	cd "$d" || exit 1
	o=$REAL_OUT/redis.$m
	real_env "$m" timeout 600 redis-server --port $port --bind 127.0.0.1 --save '' \
		--appendonly no --dir "$d" --daemonize no >"$o.server.out" 2>"$o.server.err" </dev/null &
	spid=$!
	i=0
	until [ "$(cli ping)" = PONG ] || [ $i -ge 200 ]; do sleep 0.1; i=$((i + 1)); done
	rpid=$(cli info server | sed -n 's/^process_id:\([0-9]*\).*/\1/p')

	# The benchmark in the background; the storm meanwhile.
	t0=$(real_ms)
	timeout 600 redis-benchmark -p $port -n "$NREQ" -q --csv \
		-t set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,lrange_100 \
		>"$o.bench.out" 2>"$o.bench.err" </dev/null &
	bpid=$!
	if [ "$m" != bare ]; then
		sleep 0.3
		storm "$rpid" >"$o.storm"
		kill -0 $bpid 2>/dev/null && echo during >>"$o.storm" || echo after >>"$o.storm"
	fi
	wait $bpid
	echo $? >"$o.bench.rc"
	t1=$(real_ms)
	echo $((t1 - t0)) >"$o.bench.ms"

	{
		echo "benchmark status $(cat "$o.bench.rc")"
		echo "benchmark tests: $(cut -d, -f1 "$o.bench.out" | tr -d '"' | grep -v '^test$' | tr '\n' ' ')"
		echo "ping after: $(cli ping)"
		echo "same process: $([ "$(cli info server | sed -n 's/^process_id:\([0-9]*\).*/\1/p')" = "$rpid" ] && echo yes)"
		echo "dbsize: $(cli dbsize)"
		echo "counter: $(cli get 'counter:__rand_int__')"
		echo "mylist: $(cli llen mylist)"
		cli shutdown nosave >/dev/null
		wait $spid
		echo "server exit status $?"
	} >"$o.res"
	cp "$o.res" "$REAL_OUT/server.$m.res"
	cd "$T_DIR" || exit 1
done

real_compare server "benchmark status and tests, PING, data, exit status"
real_time redis-benchmark "$(cat "$REAL_OUT/redis.bare.bench.ms")" \
	"$(cat "$REAL_OUT/redis.default.bench.ms")" "$(cat "$REAL_OUT/redis.exact.bench.ms")"

# The storms and their dumps.
for m in default exact; do
	o=$REAL_OUT/redis.$m
	set -- $(head -n 1 "$o.storm")
	usr1=${2:-0} usr2=${4:-0} pings=${6:-0} pongs=${8:-0} asks=${10:-0} asked=${12:-0}
	is "$usr1 $usr2" "$NUSR1 $NUSR2" "$m: the storm sent every signal (the server lived)"
	is "$pongs" "$pings" "$m: every PING during the storm answered ($pongs of $pings)"
	is "$asked" "$asks" "$m: every heapprof dump PID during the storm gave a dump ($asked of $asks)"
	ls "$REAL_DUMPS/$m" | grep '\.heap$' | sort >"$o.dumps"
	n=$(wc -l <"$o.dumps")
	logged=$(grep -cE '^<heapprof>: dump .* \((signal|heapprof dump|signal, heapprof dump)\)' "$o.server.err")
	ok $([ "$n" -ge 1 ] && [ "$n" -eq "$logged" ]; echo $?) \
		"$m: $n dumps written, one '<heapprof>: dump' line each ($logged)"
	# Every dump through heapprof report's reader: in batches (it reads
	# every file and dies naming a bad one), a failed batch again dump by
	# dump; and each of a sample alone, the way a user would.
	(cd "$REAL_DUMPS/$m" && xargs -n 50 sh -c \
		'if timeout 300 "$0" report "$@" >/dev/null 2>&1; then echo "ok $#"; else
			for f; do timeout 60 "$0" report "$f" >/dev/null 2>&1 && echo "ok 1" || echo "failed $f"; done
		fi' "$BIN" <"$o.dumps") >"$o.reports"
	parsed=$(awk '$1 == "ok" { s += $2 } END { print s + 0 }' "$o.reports")
	is "$parsed" "$n" "$m: heapprof report reads every dump ($parsed of $n)"
	[ "$parsed" -eq "$n" ] || real_diag "$(grep failed "$o.reports" | head -n 5)"
	awk -v e="$EVERY" 'NR == 1 || NR % e == 0 { print } END { if (NR > 1 && NR % e) print }' "$o.dumps" >"$o.sample"
	alone=0 alone_ok=0
	while read -r f; do
		alone=$((alone + 1))
		(cd "$REAL_DUMPS/$m" && timeout 60 "$BIN" report "$f" >/dev/null 2>&1) && alone_ok=$((alone_ok + 1))
	done <"$o.sample"
	is "$alone_ok" "$alone" "$m: heapprof report DUMP exits 0 for each of $alone dumps (the first, every ${EVERY}th, the last)"
	real_fact "$m: signals sent: SIGUSR1 $usr1, SIGUSR2 $usr2 (every ${GAP} ms, storm ended $(sed -n 2p "$o.storm") the benchmark);" \
		"dumps written $n (of which $asked asked by heapprof dump), logged $logged, parsed $parsed" \
		"(alone: $alone_ok of $alone); pings answered $pongs/$pings"
done
real_fact "redis-benchmark: $NREQ requests per test, 12 tests"
for m in $REAL_MODES; do
	real_fact "$m: the server's heapprof lines other than dumps:$(grep '^<heapprof>: ' "$REAL_OUT/redis.$m.server.err" |
		grep -v '^<heapprof>: dump ' | sed 's/^<heapprof>: //' | sort | uniq -c | awk '{ $1 = $1; printf " [%s]", $0 }')"
done
real_summary
done_testing
