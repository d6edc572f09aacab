#!/bin/sh
# heapprof serve's command line and life: --help, usage errors (one line
# and a hint, status 2), an address in use (status 1), the forms of
# --listen, the warning for an address that is not loopback, --quiet;
# SIGTERM and SIGINT stop it with status 0, and a request in flight is
# withdrawn and answered 503.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 31

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
# serve NAME OPTION...: heapprof serve in the background; $srv, $url.
serve() {
	_name=$1
	shift
	timeout --foreground 60 "$BIN" serve "$@" >"$_name.out" 2>"$_name.err" &
	srv=$!
	wait_for "$_name.out" 'listening'
	url=$(sed -n 's|^heapprof serve: listening on \(http://.*\)/$|\1|p' "$_name.out")
}

# ---- the command line ----------------------------------------------------
"$BIN" serve --help >out 2>err
is $? 0 "--help: status 0"
like "$(head -n 1 out)" '^usage: heapprof serve \[--listen ADDRESS:PORT\] \[options\] \[PROGRAM\.\.\.\]$' "the usage first"
like "$(cat out)" '--all-users' "and the options"
# usage ERROR-LINE ARG...: status 2, the line and the hint.
usage() {
	_want=$1
	shift
	"$BIN" serve "$@" >out 2>err
	is "$?: $(cat err)" "2: $_want
try 'heapprof serve --help'" "serve $*: a usage error, one line and the hint"
}
usage "heapprof serve: unknown option '--bogus'" --bogus
usage "heapprof serve: option '--listen' needs a value" --listen
usage "heapprof serve: an empty program name" ''
usage "heapprof serve: --listen 'nowhere': want ADDRESS:PORT (127.0.0.1:6060, [::1]:6060) or PORT" --listen nowhere
usage "heapprof serve: --listen ':6060': want ADDRESS:PORT (127.0.0.1:6060, [::1]:6060) or PORT" --listen :6060
usage "heapprof serve: --listen '127.0.0.1:99999': want ADDRESS:PORT (127.0.0.1:6060, [::1]:6060) or PORT" --listen 127.0.0.1:99999
usage "heapprof serve: --timeout wants seconds, more than 0, not '0'" --timeout 0
usage "heapprof serve: --client-timeout wants seconds, more than 0, not 'soon'" --client-timeout soon

# ---- listening -----------------------------------------------------------
serve one --listen 127.0.0.1:0
port=${url##*:}
timeout --foreground 20 "$BIN" serve --listen 127.0.0.1:$port >out 2>err
is "$?: $(cat err)" "1: heapprof serve: cannot listen on 127.0.0.1:$port: Address already in use" \
	"an address in use: status 1 and why"
kill -TERM $srv
wait $srv

serve port --listen 0
like "$(cat port.out)" '^heapprof serve: listening on http://127\.0\.0\.1:[0-9]+/$' "--listen PORT: on 127.0.0.1"
kill -TERM $srv
wait $srv
serve lh --listen localhost:0
like "$(cat lh.out)" '^heapprof serve: listening on http://(127\.0\.0\.1|\[::1\]):[0-9]+/$' "--listen localhost:0"
is "$(cat lh.err)" "" "loopback: no warning"
kill -TERM $srv
wait $srv
if grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2>/dev/null; then
	serve v6 --listen '[::1]:0'
	like "$(cat v6.out)" '^heapprof serve: listening on http://\[::1\]:[0-9]+/$' "--listen [::1]:0: IPv6"
	is "$(curl -s -o /dev/null -w '%{http_code}' "$url/?format=json")" 200 "answering there"
	kill -TERM $srv
	wait $srv
else
	# A host without IPv6: said in one line.
	timeout --foreground 20 "$BIN" serve --listen '[::1]:0' >out 2>err
	is "$?" 1 "--listen [::1]:0 without IPv6: status 1"
	like "$(cat err)" '^heapprof serve: cannot listen on \[::1\]:0: ' "and why"
fi

serve any --listen 0.0.0.0:0
port=${url##*:}
is "$(cat any.err)" "heapprof serve: warning: 0.0.0.0:$port is not a loopback address and the endpoint has no authentication: whoever reaches it can read the heap profiles of your processes" \
	"another address: a one-line warning, no authentication"
is "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/?format=json")" 200 "and it serves"
kill -TERM $srv
wait $srv

# ---- --quiet -------------------------------------------------------------
serve q --quiet --listen 127.0.0.1:0
curl -s -o /dev/null "$url/"
curl -s -o /dev/null "$url/nothing"
kill -TERM $srv
wait $srv
is "$(cat q.err)" "" "--quiet: no line per request"
like "$(cat q.out)" '^heapprof serve: listening on ' "but the address still"

# ---- stopping ------------------------------------------------------------
serve t --listen 127.0.0.1:0
curl -s -o /dev/null "$url/"
kill -TERM $srv
wait $srv
is $? 0 "SIGTERM: status 0"
like "$(cat t.err)" '^heapprof serve: SIGTERM: shutting down$' "saying so"
curl -s -o /dev/null "$url/"
is $? 7 "and nothing listens any more"
serve i --listen 127.0.0.1:0
kill -INT $srv
wait $srv
is $? 0 "SIGINT: status 0"

# A request in flight: a stopped process, which cannot dump.
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/a LD_PRELOAD=$LIB "$TP/served" 60 >a.out 2>a.err &
a=$!
wait_for a.out '^ready'
wait_for "run/$a" '^signal_control='
kill -STOP $a
serve f --listen 127.0.0.1:0 --timeout 30
curl -s -o body -w '%{http_code}' "$url/debug/pprof/heap?pid=$a" >code &
client=$!
# The request is the dump bit (1 << 16) in the bell's word (src/bellpage.h:
# the fourth 32-bit word of run/bell.PID).
asked() { echo $(( $(od -An -tu4 -j12 -N4 "run/bell.$a" | tr -d ' ') >> 16 & 1 )); }
n=0
while [ "$(asked)" = 0 ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
is "$(asked)" 1 "a request in flight: the process was asked (its bell rung)"
start=$(date +%s)
kill -TERM $srv
wait $srv
st=$?
took=$(( $(date +%s) - start ))
wait $client
is "$st" 0 "SIGTERM with a request in flight: status 0"
ok "$([ $took -le 5 ]; echo $?)" "within 5 s (${took} s), not the 30 s of --timeout"
is "$(cat code): $(cat body)" "503: heapprof serve is shutting down" "the client is told: 503"
is "$(asked) $(ls run | grep -c "^ctl\\.$a\\.")" "0 0" "the request withdrawn: the bit cleared, no control file left"
kill -CONT $a
kill -TERM $a
wait $a
is $? 0 "the process was not disturbed"
done_testing
