#!/bin/sh
# The "fast OOM" case: a process in a memory-limited cgroup grows until the
# kernel's OOM killer sends SIGKILL, after which nothing runs.  With
# dump_at_cgroup_pct it must have left a complete dump first.  Needs root
# and a cgroup memory controller (v2, or v1 as on these machines).
. "$(dirname "$0")/lib.sh"
plan 6

name=heapprof-t-$$
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	cg=/sys/fs/cgroup/$name
	mkdir "$cg" && echo $((64 << 20)) >"$cg/memory.max" && echo 0 >"$cg/memory.swap.max" 2>/dev/null
elif [ -d /sys/fs/cgroup/memory ]; then
	cg=/sys/fs/cgroup/memory/$name
	mkdir "$cg" && echo $((64 << 20)) >"$cg/memory.limit_in_bytes"
	echo 0 >"$cg/memory.swappiness" 2>/dev/null
else
	echo "Bail out! no cgroup memory controller: this test needs one (v1 or v2), and root"
	exit 1
fi
[ -d "$cg" ] || { echo "Bail out! cannot create a memory cgroup at $cg (root needed)"; exit 1; }
trap 'rmdir "$cg" 2>/dev/null; cd /; rm -rf "$T_DIR"' EXIT

# 1 MiB more every 5 ms, touched, until killed.
sh -c "echo \$\$ >'$cg/cgroup.procs' && exec env HEAPPROF_CONF=dump_at_cgroup_pct:75,prof_prefix:oom LD_PRELOAD='$LIB' '$TP/grower' 1024 5 0" >out 2>err
st=$?
is $st 137 "the program was killed by SIGKILL (the OOM killer)"
dump=$(ls oom.*.h0.*.heap 2>/dev/null)
ok $([ -n "$dump" ]; echo $?) "it left a dump before the kill: $dump"
like "$(cat err)" "^<heapprof>: cgroup memory at [0-9.]+ MiB of 64\\.0 MiB \\(dump_at_cgroup_pct:75\\)\$" \
	"the log says why"
like "$(tail -n 1 "$dump")" '^[0-9a-f]+-[0-9a-f]+ ' "the dump is complete"
is "$(ls -A | grep -c '\.tmp$')" 0 "no partial file"
mib=$(( $(jeprof_bytes "$TP/grower" "$dump" grow) >> 20 ))
ok $([ "$mib" -ge 40 ] && [ "$mib" -le 64 ]; echo $?) "and shows who grew: grow() holds $mib MiB"
done_testing
