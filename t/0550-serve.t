#!/bin/sh
# heapprof serve: each profiled process as /debug/pprof/heap?pid=N, read by
# the real go tool pprof (the same functions, bytes and objects as
# heapprof report of a dump of the process), a fresh dump per request;
# the list page, its JSON, the targets for Prometheus-style service
# discovery (Parca's http_sd_configs) followed as Parca would; HEAD; the
# answers' headers; one log line per request.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 34

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
export PPROF_TMPDIR=$T_DIR/pprof
# served NAME: a profiled process dumping to NAME.*, its pid in $pid once
# its state file names its control signal.
served() {
	HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/$1 LD_PRELOAD=$LIB "$TP/served" 60 >"$1.out" 2>"$1.err" &
	pid=$!
	wait_for "$1.out" '^ready'
	wait_for "run/$pid" '^signal_control='
}
served a
a=$pid
served b
b=$pid

# --foreground (in every serve test): timeout(1) otherwise follows the
# signal it forwards with SIGCONT to the whole group, which, on a loaded
# machine, can land while LeakSanitizer (make check-asan) is stopping serve
# at exit with ptrace, and cancel that stop: serve then spins for ever.
timeout --foreground 60 "$BIN" serve --listen 127.0.0.1:0 >serve.out 2>serve.err &
srv=$!
wait_for serve.out 'listening'
like "$(cat serve.out)" '^heapprof serve: listening on http://127\.0\.0\.1:[0-9]+/$' \
	"start-up: one line with the address and the port picked"
url=$(sed -n 's|^heapprof serve: listening on \(http://.*\)/$|\1|p' serve.out)
port=${url##*:}
unlike "$(cat serve.err)" 'warning' "no warning on a loopback address"

# ---- go tool pprof -------------------------------------------------------
timeout 60 go tool pprof -top -unit=byte -nodefraction=0 "$url/debug/pprof/heap?pid=$a" >pp.top 2>pp.err
is $? 0 "go tool pprof fetches /debug/pprof/heap?pid=N"
like "$(cat pp.err)" "^Fetching profile over HTTP from $url/debug/pprof/heap\\?pid=$a\$" "over HTTP"
unlike "$(grep -v -e '^Fetching profile' -e '^Saved profile' pp.err)" '.' \
	"and has nothing else to say (no symbolization asked of the server)"
like "$(cat pp.top)" '^Type: inuse_space$' "inuse_space by default"

# The same process, dumped by heapprof dump and read by heapprof report.
dump=$(timeout 20 "$BIN" dump "$a")
"$BIN" report --text --show-bytes "$dump" >report.txt
total=$(sed -n 's/^Total: \([0-9]*\) B .*/\1/p' report.txt)
is "$total" 5084832 "the report of a dump: 5084832 bytes (4 MiB + 768 KiB + 100000 + stdio's 4096)"
like "$(cat pp.top)" "of ${total}B total\$" "go tool pprof: the same total"
awk 'NR > 2 && $1 > 0 { print $1, $6 }' report.txt >want
sed -n 's/^ *\([0-9][0-9]*\)B .*%  \(.*\)$/\1 \2/p' pp.top | grep -v '^[0-9]* \[' >got
head -n 3 got >got3
head -n 3 want >want3
is "$(cat got3)" "$(printf '4194304 hold_big\n786432 hold_mid\n100000 hold_small')" \
	"go tool pprof -top: hold_big, hold_mid, hold_small first, with their bytes"
is "$(cat got3)" "$(cat want3)" "the same top functions and bytes as heapprof report"
# __GI__IO_file_doallocate is glibc's name; pprof shows the symbol's.
is "$(awk '{ print $1 }' got | tr '\n' ' ')" "$(awk '{ print $1 }' want | tr '\n' ' ')" \
	"every function with bytes of its own, the same bytes"
objs=$(timeout 60 go tool pprof -top -sample_index=inuse_objects "$url/debug/pprof/heap?pid=$a" 2>/dev/null)
like "$objs" '^ *100 .* hold_small$' "inuse_objects: hold_small's 100 objects"

# -raw: the samples, against heapprof report --pprof of the dump.
timeout 60 go tool pprof -raw "$url/debug/pprof/heap?pid=$a" 2>/dev/null >served.raw
"$BIN" report --pprof -o dump.pb.gz "$dump"
go tool pprof -raw dump.pb.gz 2>/dev/null >dump.raw
samples() { sed -n '/^Samples:/,/^Locations/p' "$1" | grep '^ *[0-9]' | sed 's/:.*//' | sort; }
like "$(cat served.raw)" '^inuse_objects/count inuse_space/bytes\[dflt\]$' "-raw: the sample types"
is "$(samples served.raw)" "$(samples dump.raw)" "-raw: the same samples as report --pprof of the dump"
like "$(cat served.raw)" ': 0x[0-9a-f]+ M=[0-9]+ hold_big .*t/prog/served\.c:[0-9]+ s=[0-9]+$' \
	"symbolized: function, file and line"

# ---- the answer itself ---------------------------------------------------
ls a.*.heap >before 2>/dev/null
curl -s -D hdr -o body.pb.gz "$url/debug/pprof/heap?pid=$a"
like "$(head -n 1 hdr)" '^HTTP/1.1 200 OK' "curl: 200"
like "$(cat hdr)" '^Content-Type: application/octet-stream' "Content-Type: application/octet-stream"
is "$(sed -n 's/^Content-Length: \([0-9]*\).*/\1/p' hdr)" "$(wc -c <body.pb.gz | tr -d ' ')" \
	"Content-Length is the body's length"
is "$(od -An -tx1 -N2 body.pb.gz | tr -d ' ')" 1f8b "a gzipped profile"
got_dump=$(sed -n 's/^X-Heapprof-Dump: \(.*\)\r$/\1/p' hdr)
ls a.*.heap >after
is "$(comm -13 before after)" "$(basename "$got_dump")" "a fresh dump for the request, named in X-Heapprof-Dump"
curl -s -I "$url/debug/pprof/heap?pid=$a" >head.hdr
like "$(head -n 1 head.hdr)" '^HTTP/1.1 200 OK' "HEAD: 200 for a process that can be asked"
ls a.*.heap >after_head
is "$(comm -3 after after_head)" "" "without asking it for a dump"

# ---- the lists -----------------------------------------------------------
curl -s -D list.hdr -o list.html "$url/"
like "$(cat list.hdr)" '^Content-Type: text/html; charset=utf-8' "/: an HTML page"
ok "$(grep -q "<a href=\"/debug/pprof/heap?pid=$a\">" list.html && grep -q "<a href=\"/debug/pprof/heap?pid=$b\">" list.html && grep -Fq ">$TP/served<" list.html; echo $?)" \
	"listing both processes, their program, and links to their profiles"
# (other tests' processes may come and go, and their rows with them)
page() { curl -s "$1" | sed '/^<tr><td/d; /profiled process/d; /From a shell/d'; }
is "$(page "$url/debug/pprof/")" "$(page "$url/")" "/debug/pprof/ is the same page"
curl -s "$url/?format=json" >list.json
is "$(python3 -c '
import json, sys
d = json.load(open("list.json"))
p = {x["pid"]: x for x in d["processes"]}
a, b = int(sys.argv[1]), int(sys.argv[2])
print(p[a]["program"] == sys.argv[3], p[a]["sampling"], p[a]["profile"], type(p[a]["live_bytes"]) is int, b in p)
' "$a" "$b" "$TP/served" 2>&1)" "True active /debug/pprof/heap?pid=$a True True" \
	"?format=json: pid, program, sampling, the profile's path, live bytes (a number)"

# /targets, followed as Parca follows http_sd_configs: each target's
# address, with __param_pid as the query, at the memory profile's path.
curl -s -D t.hdr -o targets.json "$url/targets"
like "$(cat t.hdr)" '^Content-Type: application/json' "/targets: JSON, as Prometheus HTTP service discovery wants"
python3 -c '
import json, sys
for g in json.load(open("targets.json")):
    if g["labels"]["pid"] in sys.argv[1:]:
        print("http://%s/debug/pprof/heap?pid=%s" % (g["targets"][0], g["labels"]["__param_pid"]))
' "$a" "$b" | sort >scrape.urls
is "$(cat scrape.urls)" "$(printf '%s\n' "$url/debug/pprof/heap?pid=$a" "$url/debug/pprof/heap?pid=$b" | sort)" \
	"a target per process: this server's address and __param_pid"
good=0
for u in $(cat scrape.urls); do
	timeout 60 go tool pprof -top "$u" 2>/dev/null | grep -q ' hold_big$' && good=$((good + 1))
done
is "$good" 2 "each target scraped is a profile"

# contrib/parca/parca.yaml scrapes where the server answers.
is "$(sed -n 's|^ *- url: "http://127\.0\.0\.1:6060\(/.*\)"$|\1|p' "$SRC/contrib/parca/parca.yaml")" /targets \
	"contrib/parca/parca.yaml: its http_sd_configs at /targets"
is "$(sed -n 's|^ *path: \(/.*\)$|\1|p' "$SRC/contrib/parca/parca.yaml" | sort -u)" /debug/pprof/heap \
	"its memory profile at /debug/pprof/heap"

# ---- without a pid: several processes to choose from ---------------------
curl -s -D c.hdr -o choose.txt "$url/debug/pprof/heap"
like "$(head -n 1 c.hdr)" '^HTTP/1.1 300 Multiple Choices' "/debug/pprof/heap without a pid: 300, several processes"
ok "$(grep -q "^/debug/pprof/heap?pid=$a $TP/served\$" choose.txt && grep -q "^/debug/pprof/heap?pid=$b " choose.txt; echo $?)" \
	"and the choice, which go tool pprof prints"

# ---- the log -------------------------------------------------------------
like "$(cat serve.err)" "^heapprof serve: [0-9T:-]+Z 127\\.0\\.0\\.1:[0-9]+ \"GET /debug/pprof/heap\\?pid=$a HTTP/1\\.1\" 200 [0-9]+ [0-9.]+s: $T_DIR/a\\.$a\\." \
	"one log line per request: time, client, request, status, bytes, seconds, the dump"

kill -TERM $srv
wait $srv
kill -TERM $a $b
wait $a $b
done_testing
