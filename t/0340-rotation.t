#!/bin/sh
# Retention: dump_keep keeps the newest N dumps of the prefix across
# processes, dump_keep_bytes caps their size; only files named like this
# prefix's dumps are ever deleted.  A full disk fails a dump cleanly.
. "$(dirname "$0")/lib.sh"
plan 13

run() { prof "lg_prof_sample:0,prof_final:true,prof_prefix:$1,$2" "$TP/seed" >/dev/null 2>>err; }

# Count, across processes: five runs, keep three.
pids=
for i in 1 2 3 4 5; do run k dump_keep:3; pids="$pids $(ls -t k.*.heap | head -n 1 | cut -d. -f2)"; done
is "$(ls k.*.heap | wc -l)" 3 "dump_keep:3 keeps three dumps across five processes"
last3=$(echo $pids | tr ' ' '\n' | tail -n 3 | sort | tr '\n' ' ')
have=$(ls k.*.heap | cut -d. -f2 | sort | tr '\n' ' ')
is "$have" "$last3" "the newest three"

# Bytes: each dump is some KiB; a cap of two dumps' worth keeps two.
run b dump_keep:0
size=$(stat -c %s b.*.heap)
for i in 2 3 4; do run b "dump_keep:0,dump_keep_bytes:$((size * 2 + size / 2))"; done
is "$(ls b.*.heap | wc -l)" 2 "dump_keep_bytes keeps what fits (two of four)"
run b dump_keep:0,dump_keep_bytes:1
is "$(ls b.*.heap | wc -l)" 1 "the newest dump is kept even when it alone exceeds the cap"

# %p in the prefix: every process's files belong to the prefix.
for i in 1 2 3; do run "r-%p" dump_keep:2; done
is "$(ls r-*.heap | wc -l)" 2 "with %p in the prefix, retention still spans processes"

# Only our dumps are ever deleted.
mkdir z.1.0.f.20200101T000000Z.heap
ln -s /etc/passwd z.2.0.f.20200101T000000Z.heap
alike="z.txt z.heap z.1.0.f.heap z.abc.0.f.20200101T000000Z.heap z.1.0.f.20201301T000000Z.heap
	zz.1.0.f.20200101T000000Z.heap other.1.0.f.20200101T000000Z.heap .z.1.0.f.20200101T000000Z.heap.1.0.tmp
	z.1.0.f.20200101T000000Z.heap.gz z.1.0.F.20200101T000000Z.heap"
for f in $alike; do echo keep >"$f"; done
touch -d 2001-01-01 $alike
run z dump_keep:1
run z dump_keep:1
gone=
for f in $alike; do [ -f "$f" ] || gone="$gone $f"; done
is "$gone" "" "ten look-alike files are left alone (old, but not named like this prefix's dumps)"
ok $([ -L z.2.0.f.20200101T000000Z.heap ] && [ -d z.1.0.f.20200101T000000Z.heap ]; echo $?) \
	"the symlink and the directory named like dumps survive"
is "$(ls z.*.f.2026*.heap z.*.f.2027*.heap 2>/dev/null | wc -l)" 1 "of our two dumps, one is kept"

# A full disk: the dump fails cleanly, the program carries on.
mkdir full
mount -t tmpfs -o size=64k tmpfs full || { echo "Bail out! cannot mount a tmpfs (root needed)"; exit 1; }
trap 'umount "$T_DIR/full" 2>/dev/null; cd /; rm -rf "$T_DIR"' EXIT
head -c 60000 /dev/zero >full/filler 2>/dev/null
prof "lg_prof_sample:0,prof_leak_error:true,prof_prefix:full/d" "$TP/gate" clean >out 2>err
is $? 0 "a dump that cannot be written does not change the exit status"
like "$(cat err)" "^<heapprof>: dump failed \\(final\\): full/d\\.[0-9]+\\.0\\.f\\.[0-9TZ]+\\.heap: No space left on device\$" \
	"one line says which dump failed and why"
is "$(ls -A full | grep -v '^d\.[0-9]*\.verdict$')" "filler" "no partial dump and no temporary file on the full disk"
v=$(ls full/d.*.verdict 2>/dev/null)
if [ -n "$v" ]; then like "$(tail -n 1 "$v")" "^threads=" "the verdict file, which fitted, is whole"
else ok 0 "the verdict file did not fit, and is not there"; fi
is "$(cat out)" "gate: clean: buffered output" "the program's output is intact"
done_testing
