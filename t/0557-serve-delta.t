#!/bin/sh
# heapprof serve's delta profiles, as Go's net/http/pprof makes them for
# /debug/pprof/heap?seconds=N (what go tool pprof -seconds N asks): a dump
# now and one N seconds later, the first subtracted from the second, with
# the profile's time and duration; N bounded, with a clear 400 past the
# bound; a process that ends during the wait is a 404.  And methods other
# than GET and HEAD, with a body or not: 405 with an Allow header.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 21

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
export PPROF_TMPDIR=$T_DIR/pprof
# A heap that grows by 64 KiB every 100 ms, until killed.
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/g LD_PRELOAD=$LIB "$TP/grower" 64 100 0 >g.out 2>g.err &
g=$!
wait_for g.out '^ready' 20
wait_for "run/$g" '^signal_control=' 20

start_serve 120
samples() { sed -n '/^Samples:/,/^Locations/p' "$1" | grep '^ *[0-9]' | sed 's/:.*//'; }

# ---- curl ------------------------------------------------------------------
sleep 1   # a heap before the window, which the delta must leave out
start=$(date +%s%N)
curl -s -D hdr -o delta.pb.gz "$url/debug/pprof/heap?pid=$g&seconds=2"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
like "$(head -n 1 hdr)" '^HTTP/1.1 200 OK' "?seconds=2: 200"
ok $([ $ms -ge 2000 ] && [ $ms -lt 20000 ]; echo $?) "after the 2 s of the window ($ms ms)"
like "$(cat hdr)" "^Content-Disposition: attachment; filename=\"heap\\.$g\\.delta\\.pb\\.gz\"" \
	"named as a delta"
base=$(sed -n 's/^X-Heapprof-Base: \(.*\)\r$/\1/p' hdr)
dump=$(sed -n 's/^X-Heapprof-Dump: \(.*\)\r$/\1/p' hdr)
like "$base $dump" "^$T_DIR/g\\.$g\\.0\\.s0\\.[0-9TZ]+\\.heap $T_DIR/g\\.$g\\.1\\.s1\\.[0-9TZ]+\\.heap\$" \
	"two fresh dumps, the base (X-Heapprof-Base) and the second (X-Heapprof-Dump)"
is "$(grep -c -e "^<heapprof>: dump $base (heapprof dump): " -e "^<heapprof>: dump $dump (heapprof dump): " g.err)" 2 \
	"the process logged both, asked for by heapprof"
"$BIN" report --pprof -o want.pb.gz --base "$base" "$dump"
go tool pprof -raw delta.pb.gz >delta.raw 2>/dev/null
go tool pprof -raw want.pb.gz >want.raw 2>/dev/null
ok $([ -n "$(samples want.raw)" ] && [ "$(samples delta.raw)" = "$(samples want.raw)" ]; echo $?) \
	"the samples of heapprof report --pprof --base BASE DUMP"
like "$(cat delta.raw)" '^Comment: the difference: 1 dump minus 1 base dump$' "saying it is a difference"
like "$(cat delta.raw)" '^Duration: 2\.[0-9]+' "with its duration, 2 s and a little"
"$BIN" report --pprof -o all.pb.gz "$dump"
go tool pprof -raw all.pb.gz >all.raw 2>/dev/null
set -- $(samples delta.raw) x x
d_objs=$1 d_bytes=$2
# (the whole heap also has stdio's buffer: grow's is the largest count)
a_objs=$(samples all.raw | awk '$1 > n { n = $1 } END { print n + 0 }')
ok $([ "$d_objs" -gt 0 ] && [ "$d_bytes" -eq $((d_objs * 65536)) ] && [ "$d_objs" -lt "$a_objs" ]; echo $?) \
	"what grew in the window ($d_objs blocks of 64 KiB), not the whole heap ($a_objs)"

# ---- go tool pprof -seconds --------------------------------------------------
timeout 60 go tool pprof -seconds 2 -raw "$url/debug/pprof/heap?pid=$g" >pp.raw 2>pp.err
is "$?|$(cat pp.err)" "0|Fetching profile over HTTP from $url/debug/pprof/heap?pid=$g&seconds=2
Please wait... (2s)
Saved profile in $(ls "$PPROF_TMPDIR"/* 2>/dev/null)" \
	"go tool pprof -seconds 2 -raw: status 0, having asked for ?seconds=2 and waited"
like "$(cat pp.raw)" '^Duration: 2\.[0-9]+' "the profile lasts 2 s"
set -- $(samples pp.raw) x x
ok $([ "$1" -gt 0 ] && [ "$1" -lt 60 ] && [ "$2" -eq $(($1 * 65536)) ]; echo $?) \
	"and holds what grew meanwhile ($1 blocks of 64 KiB)"
like "$(cat pp.raw)" ' grow .*t/prog/grower\.c:[0-9]+ s=' "in grow, symbolized"

# ---- bounds ----------------------------------------------------------------
ls g.*.heap >before
get() { curl -s -o body -w '%{http_code}' "$url$1"; }
for q in 601 99999999999999999999; do
	is "$(get "/debug/pprof/heap?pid=$g&seconds=$q")|$(cat body)" \
		"400|seconds: at most 600 for a delta profile; for longer, take two profiles and compare them with go tool pprof -diff_base" \
		"seconds=$q: 400, saying the bound and what to do instead"
done
bad=
for q in 0 -1 1.5 abc '' +5 0x10; do
	[ "$(get "/debug/pprof/heap?pid=$g&seconds=$q")|$(cat body)" = \
	  "400|seconds: want a whole number of seconds, more than 0, as in ?seconds=30" ] || bad="$bad '$q'"
done
is "$bad" "" "seconds=0, -1, 1.5, abc, empty, +5, 0x10: 400, saying what seconds is"
curl -s -I "$url/debug/pprof/heap?pid=$g&seconds=5" >head.hdr
ls g.*.heap >after
is "$(head -n 1 head.hdr | tr -d '\r')|$(comm -3 before after)" "HTTP/1.1 200 OK|" \
	"HEAD with seconds: 200 at once; none of these asked the process for a dump"

# ---- a process that ends during the window -----------------------------------
HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/e LD_PRELOAD=$LIB "$TP/grower" 64 100 10 >e.out 2>e.err &
e=$!
wait_for e.out '^ready' 20
wait_for "run/$e" '^signal_control=' 20
is "$(get "/debug/pprof/heap?pid=$e&seconds=5")|$(cat body)" \
	"404|process $e exited during the 5 s of the delta profile" "ended during the window: 404, saying so"
wait $e

# ---- methods -----------------------------------------------------------------
curl -s -D post.hdr -o post.body -X POST -d 'hello' "$url/debug/pprof/heap?pid=$g"
like "$(head -n 1 post.hdr)" '^HTTP/1.1 405 Method Not Allowed' "POST with a body: 405 (was 413)"
like "$(cat post.hdr)" '^Allow: GET, HEAD' "with Allow: GET, HEAD"
is "$(curl -s -o /dev/null -w '%{http_code}' -X PUT -d 'x' "$url/")" 405 "PUT with a body: 405"

kill -TERM $srv
wait $srv
kill -TERM $g
wait $g 2>/dev/null
done_testing
