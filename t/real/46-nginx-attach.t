#!/bin/sh
# heapprof attach and detach on nginx's workers (Debian's nginx-light,
# a master and two workers started without heapprof) while a client keeps
# requesting pages: REAL_ATTACH_CYCLES (default 20) cycles on each
# worker, a dump each time while attached (exact, prof_accum); the report
# of every dump of a worker that served in between names nginx's own
# functions (ngx_...), and that is most of them; every request answered
# 200; then nginx -s quit and the master's exit status, as without
# heapprof (0).
. "$(dirname "$0")/driver.sh"

command -v nginx >/dev/null || { echo "Bail out! nginx is missing: run make deps-real"; exit 1; }
command -v curl >/dev/null || { echo "Bail out! curl is missing: run make deps-real"; exit 1; }
CYCLES=${REAL_ATTACH_CYCLES:-20}
export HEAPPROF_RUNTIME_DIR=$T_DIR/run
plan 8

port=$((20000 + $$ % 20000))
while curl -s -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null; do port=$((port + 1)); done
mkdir -p "$T_DIR/www" "$T_DIR/logs"
i=0
while [ $i -lt 200 ]; do echo "line $i of a page nginx serves"; i=$((i + 1)); done >"$T_DIR/www/index.html"
cat >"$T_DIR/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes 2;
user root root;
pid $T_DIR/nginx.pid;
error_log $T_DIR/logs/error.log;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $T_DIR/body;
	proxy_temp_path $T_DIR/proxy;
	fastcgi_temp_path $T_DIR/fastcgi;
	uwsgi_temp_path $T_DIR/uwsgi;
	scgi_temp_path $T_DIR/scgi;
	server {
		listen 127.0.0.1:$port;
		location / { root $T_DIR/www; }
	}
}
CONF
o=$REAL_OUT/nginx-attach
timeout 900 nginx -p "$T_DIR" -c "$T_DIR/nginx.conf" >"$o.server.out" 2>"$o.server.err" </dev/null &
npid=$!
i=0
until curl -s -o /dev/null "http://127.0.0.1:$port/" || [ $i -ge 200 ]; do sleep 0.1; i=$((i + 1)); done
master=$(cat "$T_DIR/nginx.pid")
workers=$(pgrep -P "$master" | tr '\n' ' ')
is "$(echo $workers | wc -w)" 2 "nginx runs a master and two workers ($master: $workers)"

# The client: requests until told to stop, counting the answers that are
# not 200.
: >"$T_DIR/codes"
(
	while [ ! -e "$T_DIR/stop" ]; do
		curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$port/" >>"$T_DIR/codes"
	done
) &
client=$!

fail=0 dumps=0 busy=0 named=0 n=0
while [ $n -lt "$CYCLES" ]; do
	n=$((n + 1))
	for w in $workers; do
		if ! "$BIN" attach "$w" -c prof_prefix:$T_DIR/d,lg_prof_sample:0,prof_accum:true,dump_keep:0 >"$o.a" 2>&1; then
			fail=$((fail + 1)); real_diag "attach $w ($n): $(cat "$o.a")"; continue
		fi
		sleep 0.2
		if f=$("$BIN" dump "$w" 2>"$o.d") && [ -f "$f" ]; then
			dumps=$((dumps + 1))
			"$BIN" report --text --alloc-objects "$f" >"$o.r$dumps" 2>&1
			if ! grep -q '^Total: 0 ' "$o.r$dumps"; then
				busy=$((busy + 1))
				grep -q ' ngx_' "$o.r$dumps" && named=$((named + 1))
			fi
		else
			real_diag "dump $w ($n): $(cat "$o.d")"
		fi
		"$BIN" detach "$w" >"$o.a" 2>&1 || { fail=$((fail + 1)); real_diag "detach $w ($n): $(cat "$o.a")"; }
	done
done
touch "$T_DIR/stop"
wait $client
total=$(wc -l <"$T_DIR/codes")
is "$fail" 0 "$CYCLES attach and detach cycles on each worker, every one done"
is "$dumps" $((CYCLES * 2)) "a dump at each attach"
ok $([ "$busy" -ge "$CYCLES" ] && [ "$named" -eq "$busy" ]; echo $?) \
	"the $busy dumps of a worker that served since the attach (of $dumps) name nginx's functions ($named)"
ok $([ "$total" -gt 0 ]; echo $?) "the client made $total requests meanwhile"
is "$(grep -vc '^200$' "$T_DIR/codes")" 0 "every one answered 200"
is "$(pgrep -P "$master" | tr '\n' ' ')" "$workers" "the same workers serve at the end"
nginx -p "$T_DIR" -c "$T_DIR/nginx.conf" -s quit 2>>"$o.server.err"
wait $npid
is $? 0 "the master's exit status on quit, as bare"

done_testing
