#!/bin/sh
# The USDT probes of OpenTelemetry's memory-profiling contract,
# otel_memory:alloc and otel_memory:free (pointer, size, weighted bytes):
# in the library's notes with their semaphores, never in malloc's or
# free's fast path; and read by Debian's bpftrace on a running program
# (t/prog/sampler, default rate): the weighted bytes of the allocations
# it saw, less those of the frees, are the live heap of the program's
# final dump (to its rounding), and it saw both kinds.  bpftrace needs
# root and BPF: without them the test says why it cannot run.
. "$(dirname "$0")/lib.sh"
for p in bpftrace readelf nm; do
	command -v $p >/dev/null || { echo "Bail out! $p is missing: run make deps"; exit 1; }
done
if [ "$(id -u)" != 0 ] || ! timeout 20 bpftrace -e 'BEGIN { exit(); }' >bpf.err 2>&1; then
	echo "1..0 # SKIP bpftrace cannot run here (needs root and BPF): $(id -un), $(tail -n 1 bpf.err)"
	exit 0
fi
plan 8

# ---- the notes ------------------------------------------------------------
readelf -n "$LIB" >notes
is "$(sed -n 's/^ *Provider: //p' notes | sort -u)" otel_memory "the provider: otel_memory"
is "$(sed -n 's/^ *Name: //p' notes | sort -u | tr '\n' ' ')" "alloc free " "the probes: alloc and free"
like "$(grep -A2 'Name: alloc' notes | sed -n 's/^ *Arguments: //p' | sort -u | head -n 1)" '^8@[^ ]+ 8@[^ ]+ 8@[^ ]+$' \
	"three 64-bit arguments: pointer, size, weighted bytes"
ok $(sed -n 's/.*Semaphore: //p' notes | grep -qv '^0x0*$'; echo $?) "behind semaphores"
# No probe site in malloc's or free's own code: the fast paths are untouched.
in_fast=$(nm -D --defined-only -S "$LIB" | awk '$4 == "malloc" || $4 == "free" { print $1, $2 }' |
	while read start size; do
		sed -n 's/^ *Location: 0x\([0-9a-f]*\),.*/\1/p' notes | while read loc; do
			awk -v l=$((0x$loc)) -v s=$((0x$start)) -v n=$((0x$size)) 'BEGIN { if (l >= s && l < s + n) print l }'
		done
	done)
is "$in_fast" "" "no probe in malloc's or free's fast path"

# ---- bpftrace on a running program --------------------------------------
cat >t.bt <<EOF
usdt:$LIB:otel_memory:alloc { @n = count(); @w = sum(arg2); }
usdt:$LIB:otel_memory:free { @f = count(); @fw = sum(arg2); }
EOF
mkfifo go
HEAPPROF_CONF=prof_prefix:$T_DIR/g,prof_final:true LD_PRELOAD=$LIB "$TP/sampler" 200000 <go >s.out 2>s.err &
prog=$!
exec 7>go
n=0
while ! grep -q '^ready' s.out && [ $n -lt 500 ]; do sleep 0.01; n=$((n + 1)); done
timeout 90 bpftrace t.bt -p $prog >bt.out 2>bt.err &
bt=$!
# Attached when it says so.
n=0
while ! grep -q '^Attaching' bt.out && [ $n -lt 2000 ]; do sleep 0.01; n=$((n + 1)); done
sleep 1
echo go >&7
exec 7>&-
wait $prog
st=$?
wait $bt
is "$st" 0 "the program ran as without the tracer"
val() { sed -n "s/^@$1: //p" bt.out; }
n=$(val n) w=$(val w) f=$(val f) fw=$(val fw)
ok $([ -n "$n" ] && [ "$n" -gt 100 ] && [ -n "$f" ] && [ "$f" -gt 50 ]; echo $?) \
	"bpftrace saw sampled allocations ($n) and sampled frees ($f)"
total=$("$BIN" report --show-bytes g.*.f.*.heap | sed -n 's/^Total: \([0-9]*\) B .*/\1/p')
live=$((w - fw))
d=$((live - total))
ok $([ -n "$total" ] && [ "${d#-}" -le $((total / 1000)) ]; echo $?) \
	"alloc's weighted bytes less free's ($live) are the final dump's live heap ($total), within 0.1%"
diag "bpftrace: $n allocations ($w weighted bytes), $f frees ($fw)"
done_testing
