#!/bin/sh
# Dump triggers, each with its letter in the name: i (every
# 2^lg_prof_interval bytes), u (high-water, rate-limited), t (timer),
# h (dump_at_bytes and each doubling); prefix placeholders and directories.
. "$(dirname "$0")/lib.sh"
plan 12

count() { ls $1 2>/dev/null | wc -l; }

# i: 64 KiB blocks every 2 ms, 1000 of them (62.5 MiB), a dump per 4 MiB.
prof lg_prof_sample:0,lg_prof_interval:22,prof_prefix:iv "$TP/grower" 64 2 1000 >/dev/null 2>err
n=$(count 'iv.*.i*.heap')
ok $([ "$n" -ge 13 ] && [ "$n" -le 16 ]; echo $?) "lg_prof_interval:22 over 62.5 MiB allocated: $n interval dumps (15 expected)"
like "$(ls iv.*.i0.*.heap)" '^iv\.[0-9]+\.0\.i0\.[0-9]{8}T[0-9]{6}Z\.heap$' "interval dumps are named i<n>"
like "$(cat err)" '\(interval\): ~' "and logged as interval dumps"

# u: the heap grows by 1 MiB every 50 ms for 1.5 s; at most one dump a
# second, each after at least 5% growth.
prof lg_prof_sample:0,prof_gdump:true,prof_prefix:hw "$TP/grower" 1024 50 30 >/dev/null 2>err
n=$(count 'hw.*.u*.heap')
ok $([ "$n" -ge 1 ] && [ "$n" -le 3 ]; echo $?) "prof_gdump over 1.5 s of growth: $n high-water dumps (at most one a second)"
lives=$(sed -n 's/.*(high-water): ~\([0-9.]*\) MiB live.*/\1/p' err | tr '\n' ' ')
ok $(echo "$lives" | awk '{for (i = 2; i <= NF; i++) if ($i < $(i-1) * 1.05) exit 1}'; echo $?) \
	"each high-water dump is at least 5% above the previous ($lives)"

# t: every second, in a process that sleeps 3.5 s.
prof dump_interval_s:1,prof_prefix:tm "$TP/idle" 3.5 1 >/dev/null 2>err
n=$(count 'tm.*.t*.heap')
ok $([ "$n" -ge 2 ] && [ "$n" -le 4 ]; echo $?) "dump_interval_s:1 over 3.5 s: $n timer dumps"
like "$(cat err)" '\(timer\): ~' "logged as timer dumps"

# h: 1 MiB more every 20 ms up to 40 MiB; dump_at_bytes:4M dumps at 4, 8,
# 16 and 32 MiB.
prof lg_prof_sample:0,dump_at_bytes:4M,prof_prefix:th "$TP/grower" 1024 20 40 >/dev/null 2>err
n=$(count 'th.*.h*.heap')
is "$n" 4 "dump_at_bytes:4M up to 40 MiB: dumps at 4, 8, 16 and 32 MiB"
levels=$(sed -n 's/.*(threshold): ~\([0-9]*\)\.[0-9] MiB live.*/\1/p' err | tr '\n' ' ')
ok $(echo "$levels" | awk '{ if (NF != 4 || $1 < 4 || $1 > 5 || $2 < 8 || $2 > 9 || $3 < 16 || $3 > 17 || $4 < 32 || $4 > 33) exit 1 }'; echo $?) \
	"at the thresholds: $levels MiB"

# Placeholders and directories: %e, %h, %p, created mode 0700.
host=$(uname -n)
prof "lg_prof_sample:0,prof_final:true,prof_prefix:$T_DIR/out/%e/%h-%p" "$TP/seed" >/dev/null 2>err
f=$(ls "$T_DIR"/out/seed/"$host"-*.heap 2>/dev/null)
like "$f" "/out/seed/$host-([0-9]+)\\.\\1\\.0\\.f\\.[0-9]{8}T[0-9]{6}Z\\.heap\$" "%e, %h and %p expand (pid twice: prefix and name)"
is "$(stat -c %a "$T_DIR/out") $(stat -c %a "$T_DIR/out/seed")" "700 700" "missing directories are created mode 0700"
is "$(stat -c %a "$f")" 600 "the dump is mode 0600"
done_testing
