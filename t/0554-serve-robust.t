#!/bin/sh
# heapprof serve against bad and slow clients and processes: malformed,
# oversized and unsupported requests get their HTTP status with one line
# of text; a slowloris client holds up no one and is dropped (408) after
# --client-timeout; more idle connections than slots hold up no one
# either; a stopped process gets 504 after --timeout with its request
# withdrawn, and is served again once it runs; a zombie is said to be
# one; concurrent requests are all answered.  The server lives through
# all of it.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 53

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/a LD_PRELOAD=$LIB "$TP/served" 60 >a.out 2>a.err &
a=$!
# One that writes no dumps: an empty prof_prefix.
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix: LD_PRELOAD=$LIB "$TP/served" 60 >n.out 2>n.err &
n=$!
wait_for a.out '^ready'
wait_for n.out '^ready'
wait_for "run/$a" '^signal_control='
wait_for "run/$n" '^signal_control='
sleep 60 &
bare=$!
# A profiled zombie: its parent (sleep) never waits.
sh -c 'HEAPPROF_CONF=prof_prefix: LD_PRELOAD=$1 "$2/served" 0 >/dev/null 2>&1 & echo $! >zombie; exec sleep 60' \
	sh "$LIB" "$TP" &
zparent=$!
_n=0
while [ "$(cut -d' ' -f3 "/proc/$(cat zombie 2>/dev/null)/stat" 2>/dev/null)" != Z ] && [ $_n -lt 500 ]; do
	sleep 0.01
	_n=$((_n + 1))
done
zombie=$(cat zombie)

start_serve 120 --timeout 2 --client-timeout 2
port=${url##*:}
raw() { timeout 30 python3 "$SRC/t/rawhttp.py" "$@"; }
# answer EXPR: the status code and the one line of text an HTTP request
# made of EXPR's bytes gets.
answer() {
	raw -v "$port" "$1" >raw.out
	printf '%s %s\n' "$(head -n 1 raw.out | cut -d' ' -f2)" "$(tail -n 1 raw.out)"
}
get() { curl -s -o body -w '%{http_code}' "$url$1"; }

# ---- malformed, oversized, unsupported -----------------------------------
is "$(answer "b'GET / HTTP/1.1\\r\\nHost: x\\r\\nX-Big: ' + b'a' * 9000 + b'\\r\\n\\r\\n'")" \
	"431 the request's headers are longer than 8192 bytes" "huge headers: 431"
is "$(answer "b'GET / HTTP/1.1\\r\\nHost: x\\r\\n' + b'X-Many: a\\r\\n' * 2000 + b'\\r\\n'")" \
	"431 the request's headers are longer than 8192 bytes" "many headers: 431"
is "$(answer "b'GET /' + b'a' * 9000 + b' HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'")" \
	"414 the request line is longer than 8192 bytes" "a huge request line: 414"
is "$(answer "b'POST / HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 0\\r\\n\\r\\n'")" \
	"405 POST: heapprof serve answers GET and HEAD" "POST: 405"
like "$(cat raw.out)" '^Allow: GET, HEAD' "with Allow: GET, HEAD"
is "$(answer "b'GET / HTTP/2.0\\r\\nHost: x\\r\\n\\r\\n'")" \
	"505 heapprof serve speaks HTTP/1.0 and HTTP/1.1" "HTTP/2.0: 505"
is "$(answer "b'GET / HTTP/1.1\\r\\n\\r\\n'")" "400 no Host header" "HTTP/1.1 without Host: 400"
is "$(answer "b'GET / HTTP/1.1\\r\\nHost: x\\r\\nHost: y\\r\\n\\r\\n'")" "400 more than one Host header" \
	"two Host headers: 400"
is "$(answer "b'hello\\r\\n\\r\\n'")" "400 a malformed request line" "garbage: 400"
is "$(answer "b'\\x16\\x03\\x01\\x02\\x00\\x01\\x00\\x01\\xfc\\x03\\x03'")" "400 heapprof serve speaks HTTP, not HTTPS" \
	"a TLS client hello: 400 at once"
is "$(answer "b'GET / HTTP/1.1\\r\\nHost: x\\r\\n folded\\r\\n\\r\\n'")" "400 a folded header line" "a folded header: 400"
is "$(answer "b'GET /\\x01 HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'")" "400 a malformed request target" \
	"a control character in the target: 400"
is "$(answer "b'GET / HTTP/1.1\\r\\nHost: x\\x00\\r\\n\\r\\n'")" "400 a NUL byte in the request" "a NUL byte: 400"
is "$(answer "b'GET / HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 5\\r\\n\\r\\nhello'")" \
	"413 heapprof serve takes no request body" "a GET with a body: 413"
is "$(answer "b'POST / HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 5\\r\\n\\r\\nhello'")" \
	"405 POST: heapprof serve answers GET and HEAD" "a POST with a body: 405 (not 413)"
like "$(cat raw.out)" '^Allow: GET, HEAD' "with Allow: GET, HEAD"
is "$(answer "b'GET /?format=json HTTP/1.0\\r\\n\\r\\n'" | cut -c1-3)" 200 "HTTP/1.0 without Host: 200"
is "$(answer "b'\\r\\nGET /?format=json HTTP/1.1\\nHost: x\\n\\n'" | cut -c1-3)" 200 \
	"bare line feeds, and an empty line before the request: 200"

for q in pid=abc pid=-1 pid=0 pid=99999999999 pid=12x pid= pid=%zz pid=1%00 'pid=+1'; do
	is "$(get "/debug/pprof/heap?$q")" 400 "?$q: 400"
done
is "$(cat body)" "pid: want a process ID, as in ?pid=4242" "saying what a pid is"
is "$(get "/debug/pprof/heap?pid=$a&seconds=601")" 400 "seconds=601 (a delta profile past its bound): 400"
is "$(get "/debug/pprof/heap?pid=$a&debug=1")" 400 "debug=1 (text): 400"
is "$(get "/?format=xml")" 400 "format=xml: 400"
is "$(get "/debug/pprof/heap?pid=999999999")" 404 "no such process: 404"
is "$(cat body)" "no process 999999999" "saying so"
is "$(get "/debug/pprof/heap?pid=$bare")" 404 "a process without heapprof: 404"
like "$(cat body)" "^process $bare \\(.*sleep\\) is not profiled: heapprof is not loaded into it\$" "saying so"
is "$(get "/debug/pprof/heap?pid=$zombie")|$(cat body)" \
	"404|process $zombie (served) is a zombie: it has exited, and its parent ($zparent) has not reaped it; there is nothing to ask" \
	"a zombie: 404, saying it is one"
is "$(get "/debug/pprof/heap?pid=$n")" 409 "a process that writes no dumps: 409"
is "$(cat body)" "process $n has an empty prof_prefix: it writes no dumps" "saying so"
is "$(get /debug/pprof/goroutine)" 404 "another profile: 404"
is "$(get /favicon.ico)" 404 "anything else: 404"

# ---- slow and idle clients -----------------------------------------------
# A slowloris client: a request line and no end; then 70 connections that
# sent nothing whole, more than the server's 64 slots.
raw --timeout 10 "$port" "b'GET / HTTP/1.1\\r\\nHost: x\\r\\n'" >slow.out &
slow=$!
sleep 0.3
start=$(date +%s%N)
is "$(get '/?format=json')" 200 "another client is answered meanwhile"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok "$([ $ms -lt 1500 ]; echo $?)" "at once (${ms} ms, less than the 2 s the slow one may take)"
wait $slow
like "$(cat slow.out)" '^HTTP/1.1 408 Request Timeout (1\.9|2\.[0-9])' \
	"the slow client gets 408 after the 2 s of --client-timeout"
raw --conns 70 --timeout 10 "$port" "b'GET'" >idle.out &
idle=$!
sleep 0.5
start=$(date +%s%N)
is "$(get '/?format=json')" 200 "with 70 idle connections open, a client is answered"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok "$([ $ms -lt 1500 ]; echo $?)" "at once (${ms} ms): the oldest idle connections gave way"
wait $idle
is "$(grep -c -e '^HTTP/1.1 408 ' -e '^closed ' idle.out)" 70 "every idle connection was dropped, with 408 or closed"

# ---- a process that does not answer --------------------------------------
kill -STOP $a
is "$(get "/debug/pprof/heap?pid=$a")" 504 "a stopped process: 504 after --timeout"
is "$(cat body)" "no dump from process $a within 2 s" "saying so"
is "$(ls run | grep -c "^ctl\\.$a\\.")" 0 "its request withdrawn: no control file left"
kill -CONT $a
is "$(get "/debug/pprof/heap?pid=$a")" 200 "running again, it is served"

# ---- concurrent requests -------------------------------------------------
for i in 1 2 3 4 5 6; do
	curl -s -o "c$i.pb.gz" -w '%{http_code}\n' "$url/debug/pprof/heap?pid=$a" >"c$i.code" &
done
wait_n=0
while [ "$(cat c?.code 2>/dev/null | wc -l)" -lt 6 ] && [ $wait_n -lt 3000 ]; do sleep 0.01; wait_n=$((wait_n + 1)); done
is "$(cat c?.code | sort | uniq -c | tr -s ' ')" " 6 200" "six requests at once for one process: six profiles"

ok "$(kill -0 $srv; echo $?)" "the server is still running"
kill -TERM $srv
wait $srv
is $? 0 "and stops with status 0"
kill -TERM $a $n $bare $zparent
wait $a $n $bare $zparent 2>/dev/null
done_testing
