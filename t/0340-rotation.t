#!/bin/sh
# Retention: dump_keep keeps the newest N dumps of each kind of each
# process under the prefix, and the first of the kind (the base of the
# series' diffs); dump_keep_bytes caps their size (t/0342: kinds apart); another process's dumps (its
# final dump above all) are never deleted, nor those of an earlier process
# with the same pid; only files named like this prefix's dumps are ever
# deleted.  A full disk fails a dump cleanly.
. "$(dirname "$0")/lib.sh"
plan 19

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
run() { prof "lg_prof_sample:0,prof_final:true,prof_prefix:$1,$2" "$TP/seed" >/dev/null 2>>err; }
# start PREFIX CONF: a process that dumps on SIGUSR1, in $pid once it runs.
start() {
	rm -f idle.out
	HEAPPROF_CONF="lg_prof_sample:0,prof_prefix:$1,$2" LD_PRELOAD=$LIB "$TP/idle" 30 1 >idle.out 2>>err &
	pid=$!
	while ! grep -q ready idle.out 2>/dev/null; do sleep 0.01; done
}
# signal_dumps PREFIX N: $pid writes N more dumps, one after the other.
signal_dumps() {
	for _i in $(seq "$2"); do
		_want=$(( $(grep -c "^<heapprof>: dump $1\.$pid\." err) + 1 ))
		kill -USR1 $pid
		_n=0
		while [ "$(grep -c "^<heapprof>: dump $1\.$pid\." err)" -lt $_want ] && [ $_n -lt 1000 ]; do
			sleep 0.01
			_n=$((_n + 1))
		done
	done
}
stop() { kill -TERM $pid; wait $pid 2>/dev/null; }

# Count, within a process: five dumps, keep three, the newest, and the
# first.
start k dump_keep:3
signal_dumps k 5
stop
is "$(ls k.$pid.*.heap | sed 's/.*\.\(s[0-9]*\)\..*/\1/' | sort | tr '\n' ' ')" "s0 s2 s3 s4 " \
	"dump_keep:3 keeps a process's newest three dumps of five, and its first"

# Across processes: each keeps its own.  A tree of 121 processes (the
# issue's test tree) at the default dump_keep of 100 kept only 100 final
# dumps: every process's final dump is kept now.
prof "lg_prof_sample:0,prof_final:true,prof_prefix:t" "$TP/kidstorm" 120 -1 2>>err
is $? 0 "a tree of 121 processes"
is "$(ls t.*.f.*.heap | wc -l)" 121 "keeps its 121 final dumps (dump_keep:100 counts per process)"
for i in 1 2 3 4 5; do run f dump_keep:1; done
is "$(ls f.*.f.*.heap | wc -l)" 5 "dump_keep:1: five processes, five final dumps"
start f dump_keep:1
signal_dumps f 3
stop
is "$(ls f.*.heap | wc -l)" 7 "a sixth process that dumped thrice keeps its first and newest, and the others' five"

# Bytes, within a process: a cap of two and a half dumps' worth keeps two
# (the first and the newest).
start b dump_keep:0
signal_dumps b 1
stop
first=$(ls b.*.heap)
size=$(stat -c %s "$first")
start b "dump_keep:0,dump_keep_bytes:$((size * 2 + size / 2))"
signal_dumps b 4
stop
is "$(ls b.$pid.*.heap | wc -l)" 2 "dump_keep_bytes keeps what fits (two of four)"
ok $([ -f "$first" ]; echo $?) "and another process's dump, older, stays"
start b dump_keep:0,dump_keep_bytes:1
signal_dumps b 3
stop
is "$(ls b.$pid.*.heap | sed 's/.*\.\(s[0-9]*\)\..*/\1/' | sort | tr '\n' ' ')" "s0 s2 " \
	"the first and the newest dump are kept even when they alone exceed the cap"

# %p in the prefix: the process's own files are matched.
start "r-%p" dump_keep:2
signal_dumps "r-$pid" 5
stop
is "$(ls r-*.heap | wc -l)" 3 "with %p in the prefix, dump_keep applies (the first and the newest two of five)"

# Only our dumps are ever deleted: not look-alikes, and not the dumps of
# an earlier process that had this pid.
mkdir z.1.0.f.20200101T000000Z.heap
ln -s /etc/passwd z.2.0.f.20200101T000000Z.heap
alike="z.txt z.heap z.1.0.f.heap z.abc.0.f.20200101T000000Z.heap z.1.0.f.20201301T000000Z.heap
	zz.1.0.f.20200101T000000Z.heap other.1.0.f.20200101T000000Z.heap .z.1.0.f.20200101T000000Z.heap.1.0.tmp
	z.1.0.f.20200101T000000Z.heap.gz z.1.0.F.20200101T000000Z.heap"
for f in $alike; do echo keep >"$f"; done
touch -d 2001-01-01 $alike
start z dump_keep:1
earlier="z.$pid.0.f.20200101T000000Z.heap z.$pid.3.s2.$(date -u +%Y%m%dT%H%M%SZ).heap"
for f in $earlier; do echo keep >"$f"; done
touch -d '1 minute ago' $earlier
signal_dumps z 3
stop
gone=
for f in $alike; do [ -f "$f" ] || gone="$gone $f"; done
is "$gone" "" "ten look-alike files are left alone (old, but not named like this prefix's dumps)"
ok $([ -L z.2.0.f.20200101T000000Z.heap ] && [ -d z.1.0.f.20200101T000000Z.heap ]; echo $?) \
	"the symlink and the directory named like dumps survive"
gone=
for f in $earlier; do [ -f "$f" ] || gone="$gone $f"; done
is "$gone" "" "dumps of an earlier process with the same pid survive"
is "$(ls z.$pid.*.heap | wc -l)" 4 "of the process's three dumps, the first and the newest are kept (and the earlier process's two)"

# A dump an earlier program of this pid named in the first ms of a second,
# when this process's first dump comes in those same ms: its birth by the
# coarse clock may still read the second before, and the earlier dump
# then passed for this process's first, which was deleted (kept 2, not 3;
# in 30 tries timed so, 14 before the fix).  Six tries, each timed to the
# start of a second; each waits for the retention of its third dump,
# which runs after the dump's line: the second dump's deletion, whichever
# first dump is kept.
bad=
for try in 1 2 3 4 5 6; do
	start y$try dump_keep:1
	while ms=$(date +%3N | sed 's/^0*//'); [ "${ms:-0}" -gt 1 ]; do :; done
	e="y$try.$pid.3.s2.$(date -u +%Y%m%dT%H%M%SZ).heap"
	echo keep >"$e"
	touch -d '1 minute ago' "$e"
	signal_dumps y$try 3
	_n=0
	while ls y$try.$pid.1.s1.*.heap >/dev/null 2>&1 && [ $_n -lt 500 ]; do sleep 0.01; _n=$((_n + 1)); done
	stop
	[ "$(ls y$try.$pid.*.heap | wc -l)" = 3 ] || bad="$bad $try:$(ls y$try.$pid.*.heap | wc -l)"
done
is "$bad" "" "a same-pid dump named in the first ms of a second is not taken for the process's first (six tries)"

# A full disk: the dump fails cleanly, the program carries on.
mkdir full
mount -t tmpfs -o size=64k tmpfs full || { echo "Bail out! cannot mount a tmpfs (root needed)"; exit 1; }
trap 'umount "$T_DIR/full" 2>/dev/null; cd /; rm -rf "$T_DIR"' EXIT
head -c 60000 /dev/zero >full/filler 2>/dev/null
prof "lg_prof_sample:0,prof_leak_error:true,prof_prefix:full/d" "$TP/gate" clean >out 2>err
is $? 0 "a dump that cannot be written does not change the exit status"
like "$(cat err)" "^<heapprof>: dump failed \\(final\\): full/d\\.[0-9]+\\.0\\.f\\.[0-9TZ]+\\.heap: No space left on device\$" \
	"one line says which dump failed and why"
# The registration (heapprof(7)) stays when the verdict did not fit: it
# names a process that left no verdict.
is "$(ls -A full | grep -v '^d\.[0-9]*\.verdict$' | grep -v '^d\.[0-9]*\.started$')" "filler" \
	"no partial dump and no temporary file on the full disk"
v=$(ls full/d.*.verdict 2>/dev/null)
if [ -n "$v" ]; then like "$(tail -n 1 "$v")" "^threads=" "the verdict file, which fitted, is whole"
else ok 0 "the verdict file did not fit, and is not there"; fi
is "$(cat out)" "gate: clean: buffered output" "the program's output is intact"
done_testing
