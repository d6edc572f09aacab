#!/bin/sh
# heapprof serve --push URL: each profiled process's heap profile sent to
# Pyroscope's ingestion API as published (POST URL/ingest, the name with
# its labels, from and until, format=pprof, a multipart body with the
# profile and its sample types), checked by a loopback receiver that
# plays Pyroscope: the request line, the query, the parts, and the
# profile decoded by the real go tool pprof.  Served by program name
# (serve idle), another program's process is neither pushed nor dumped,
# listed or answered.  Then a receiver that fails
# (one line each time, serve goes on) and the usage errors.  No Pyroscope
# server can run here: contrib/pyroscope says how to point serve at one.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
command -v go >/dev/null || { echo "Bail out! go is missing: run make deps"; exit 1; }
plan 21

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
export PPROF_TMPDIR=$T_DIR/pprof

# The receiver: answers STATUS to every request and files each one as
# req.N (request line, headers) and its parts as req.N.<part name>.
cat >recv.py <<'RECV'
import http.server, sys, os, email.parser, email.policy
status = int(sys.argv[1])
class H(http.server.BaseHTTPRequestHandler):
    n = 0
    def do_POST(self):
        H.n += 1
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        base = "req.%d" % H.n
        with open(base + ".tmp", "w") as f:
            f.write(self.requestline + "\n")
            for k, v in self.headers.items():
                f.write("%s: %s\n" % (k, v))
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + self.headers["Content-Type"].encode() + b"\r\n\r\n" + body)
        for p in msg.iter_parts() if msg.is_multipart() else []:
            name = p.get_param("name", header="content-disposition")
            with open("%s.%s" % (base, name), "wb") as f:
                f.write(p.get_payload(decode=True))
        os.rename(base + ".tmp", base)
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        out = b"ok\n" if status == 200 else b"ingestion refused: the test says so\n"
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print("port %d" % s.server_address[1], flush=True)
s.serve_forever()
RECV
mkdir ok bad
(cd ok && exec python3 ../recv.py 200 >port) &
rok=$!
(cd bad && exec python3 ../recv.py 500 >port) &
rbad=$!
wait_for ok/port '^port' 20
wait_for bad/port '^port' 20
pok=$(sed -n 's/^port //p' ok/port)
pbad=$(sed -n 's/^port //p' bad/port)

HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/x LD_PRELOAD=$LIB "$TP/idle" 120 8 >x.out 2>&1 &
x=$!
wait_for x.out '^ready' 20
wait_for "run/$x" '^signal_control=' 20
# Another program, which serve idle does not serve.
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/other LD_PRELOAD=$LIB "$TP/aged" 64 100 120000 0 0 0 >other.out 2>&1 &
other=$!
wait_for "run/$other" '^signal_control=' 20

timeout --foreground 120 "$BIN" serve --listen 127.0.0.1:0 --push "http://127.0.0.1:$pok/pyro/" \
	--push-interval 1 --push-label env=test idle >serve.out 2>serve.err &
srv=$!
wait_for serve.out 'pushing' 20
like "$(sed -n 2p serve.out)" "^heapprof serve: pushing each served process's heap profile to http://127\\.0\\.0\\.1:$pok/pyro/ingest every 1 s\$" \
	"start-up says where and how often"
# Two pushes of our process.
n=0
while [ "$(grep -l "pid%3D$x%2C" ok/req.[0-9]* 2>/dev/null | wc -l)" -lt 2 ] && [ $n -lt 200 ]; do
	sleep 0.1; n=$((n + 1))
done
set -- $(grep -l "pid%3D$x%2C" ok/req.[0-9]* | sort -t. -k2n)
ok $([ $# -ge 2 ]; echo $?) "two pushes of the process, a second apart ($# in ${n}00 ms)"
r1=$1 r2=$2
line=$(sed -n 1p "$r1")
like "$line" '^POST /pyro/ingest\?name=[^ &]+&from=[0-9]+&until=[0-9]+&format=pprof&spyName=heapprof&sampleRate=100 HTTP/1\.1$' \
	"POST URL/ingest with name, from, until and format=pprof"
q() {   # q FILE KEY: the query parameter, decoded
	sed -n 1p "$1" | python3 -c 'import sys, urllib.parse; u = urllib.parse.urlsplit(sys.stdin.read().split()[1]); print(urllib.parse.parse_qs(u.query)[sys.argv[1]][0])' "$2"
}
is "$(q "$r1" name)" "idle{pid=$x,hostname=$(hostname | tr -c 'A-Za-z0-9_.\n-' _),env=test}" \
	"the name: the program, with pid, hostname and --push-label"
now=$(date +%s)
f1=$(q "$r1" from) u1=$(q "$r1" until) f2=$(q "$r2" from) u2=$(q "$r2" until)
ok $([ "$f1" -le "$u1" ] && [ "$u1" -le "$now" ] && [ "$u1" -ge $((now - 30)) ]; echo $?) \
	"from <= until, until now (Unix seconds): $f1 $u1"
is "$f2" "$u1" "the next push's range starts where the last ended"
like "$(cat "$r1")" '^Content-Type: multipart/form-data; boundary=[A-Za-z0-9-]+$' "a multipart body"
ok $([ -s "$r1.profile" ] && [ -s "$r1.sample_type_config" ]; echo $?) "its parts: profile and sample_type_config"
python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); print(c["inuse_space"]["units"], c["inuse_space"]["aggregation"], c["alloc_space"]["cumulative"])' \
	"$r1.sample_type_config" >stc
is "$(cat stc)" "bytes average True" "sample_type_config: live values averaged, allocated ones cumulative"
cp "$r1.profile" p.pb.gz
go tool pprof -top -unit=byte -sample_index=inuse_space p.pb.gz >top 2>top.err
is "$?" 0 "go tool pprof reads the profile pushed"
like "$(cat top)" '^ *8388608B +[0-9.]+% .* leak_some$' "and finds the process's 8 MiB in leak_some"
unlike "$(cat serve.err)" 'failed' "no push failed"
url=$(sed -n 's|^heapprof serve: listening on \(http://.*\)/$|\1|p' serve.out)
is "$(grep -l "pid%3D$other%2C" ok/req.[0-9]* 2>/dev/null | wc -l) $(ls other.*.heap 2>/dev/null | wc -l)" "0 0" \
	"serve idle: the other program's process is never pushed nor dumped"
curl -sS "$url/?format=json" | python3 -c 'import json, sys; print(" ".join(str(p["pid"]) for p in json.load(sys.stdin)["processes"]))' >listed
is "$(cat listed)" "$x" "and only idle is listed"
curl -sS -D h -o b "$url/debug/pprof/heap?pid=$other"
is "$(sed -n '1s/\r$//p' h) $(cat b)" "HTTP/1.1 403 Forbidden process $other ($TP/aged) is not one of the programs this server serves (idle)" \
	"the other's profile is refused, saying why"

# A receiver that refuses: one line a push, serve goes on answering.
kill $srv
wait $srv 2>/dev/null
timeout --foreground 120 "$BIN" serve --listen 127.0.0.1:0 --push "http://127.0.0.1:$pbad" \
	--push-interval 0.5 -q "$TP/idle" >serve2.out 2>serve2.err &
srv=$!
wait_for serve2.out 'pushing' 20
wait_for serve2.err "push of pid $x " 20
like "$(cat serve2.err)" "^heapprof serve: push of pid $x \\(idle\\) to http://127\\.0\\.0\\.1:$pbad/ingest failed: HTTP 500: ingestion refused: the test says so\$" \
	"a refused push: one line with the status and the receiver's reason"
url=$(sed -n 's|^heapprof serve: listening on \(http://.*\)/$|\1|p' serve2.out)
like "$(curl -sS "$url/metrics")" "^heapprof_live_bytes\\{pid=\"$x\"" "serve still answers"
kill $srv
wait $srv 2>/dev/null
ok $(! pgrep -f "heapprof serve --listen 127.0.0.1:0 --push http://127.0.0.1:$pbad" >/dev/null; echo $?) \
	"the pusher ends with serve"

# Usage errors: status 2, one line, nothing served.
bad() {   # bad WANT ARGS...
	_want=$1
	shift
	timeout 10 "$BIN" serve --listen 127.0.0.1:0 "$@" >o 2>e
	st=$?
	ok $([ $st -eq 2 ] && [ ! -s o ] && grep -q "^heapprof serve: $_want" e; echo $?) "serve $*: a usage error"
}
bad "--push: 'https://x/': serve speaks plain http only" --push https://x/

bad "--push-label: 'bad label' is not KEY=VALUE" --push http://127.0.0.1:1 --push-label 'bad label'
bad "--push-interval, --push-app and --push-label go with --push URL" --push-interval 5

kill $x $other $rok $rbad 2>/dev/null
wait $x $other $rok $rbad 2>/dev/null
done_testing
