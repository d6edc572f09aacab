#!/bin/sh
# The fast unwinder (prof_unwinder:fast, the default) walks the same stacks
# as libunwind: code without frame pointers, libc callbacks, threads, C++,
# signal handlers and a real interpreter, compared stack by stack with
# prof_unwinder:check; and its stacks read right in a dump.
. "$(dirname "$0")/lib.sh"
plan 23

# check_clean NAME LOGFILE [MIN]: every "prof_unwinder:check" line says
# 0 differed, and together they compared at least MIN stacks.
check_clean() {
	lines=$(grep 'prof_unwinder:check: ' "$2")
	compared=$(printf '%s\n' "$lines" | sed -n 's/.*check: \([0-9]*\) stacks compared.*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }')
	differed=$(printf '%s\n' "$lines" | sed -n 's/.* \([0-9]*\) differed.*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }')
	if [ -n "$lines" ] && [ "$differed" -eq 0 ] && [ "$compared" -ge "${3:-1}" ]; then
		ok 0 "$1: $compared stacks compared, none differed"
	else
		ok 1 "$1: every stack the same both ways"
		diag "$(cat "$2")"
	fi
}

CHECK=prof_unwinder:check,lg_prof_sample:0

prof $CHECK "$TP/frames" >out 2>err
is "$?" 0 "frames (no frame pointers) exits 0 under prof_unwinder:check"
check_clean "frames, -O2 -fomit-frame-pointer, two threads" err 10000
like "$(cat err)" ' 0 left to libunwind$' "frames: no stack of plain code is left to libunwind"

# The walk memo (stack/unwind.h): under prof_unwinder:check the fast
# walks go through it too, so the comparison above covers stacks it
# finished; here, that it did finish most of them, and that the
# stacks with it are libunwind's, recursion and threads included.
prof $CHECK,log_level:debug "$TP/frames" >/dev/null 2>err
check_clean "frames, with the walk memo counted" err 10000
fast=$(sed -n 's/.*unwinder: \([0-9]*\) stacks walked fast.*/\1/p' err)
memo=$(sed -n 's/.* \([0-9]*\) stacks finished from the walk memo.*/\1/p' err)
ok $([ "${memo:-0}" -gt 0 ] && [ "$((memo * 2))" -gt "${fast:-0}" ]; echo $?) \
	"frames: the walk memo finished $memo of $fast fast walks"
prof $CHECK,log_level:debug "$TP/threads" >/dev/null 2>err
memo=$(sed -n 's/.* \([0-9]*\) stacks finished from the walk memo.*/\1/p' err)
ok $([ "${memo:-0}" -gt 0 ] && grep -q ' 0 differed,' err; echo $?) \
	"threads: the walk memo finished $memo walks, none differed from libunwind's"

# Stacks deeper than prof_bt_max: both walks stop at the cap, libunwind's
# with more of heapprof's own frames in it, so it keeps fewer of the
# program's; the frames both kept are the same.
prof $CHECK,prof_bt_max:20 "$TP/frames" >/dev/null 2>err
check_clean "frames cut at prof_bt_max:20 (recursion 50 deep)" err 10000

prof $CHECK "$TP/cxx" >/dev/null 2>err
check_clean "cxx (operator new, exceptions)" err 1000
prof $CHECK "$TP/threads" >/dev/null 2>err
check_clean "threads" err 10000

# A signal frame is not described by DWARF the fast unwinder keeps: those
# stacks go to libunwind whole, and are still right.
prof $CHECK "$TP/sigalloc" >/dev/null 2>err
check_clean "sigalloc (allocation in a signal handler)" err 10000
left=$(sed -n 's/.* \([0-9]*\) left to libunwind$/\1/p' err)
ok $([ "${left:-0}" -gt 0 ]; echo $?) "sigalloc: stacks through a signal frame are left to libunwind ($left)"

# A real program with many shared objects loaded at run time; the shim
# pyenv may put first in PATH would be checked instead, so name it.
prof "$CHECK,log_file:$T_DIR/py.log" /usr/bin/python3 -c '
import json, decimal, sqlite3
db = sqlite3.connect(":memory:")
db.execute("create table t (x)")
db.executemany("insert into t values (?)", [(str(decimal.Decimal(i) / 7),) for i in range(3000)])
print(len(json.dumps([r for r in db.execute("select * from t")])))' >/dev/null 2>&1
check_clean "python3 with json, decimal and sqlite3 modules" py.log 10000

# The stacks themselves: the deepest recursion in frames is 50 frames of
# recurse, under work, under main or thread_main.
prof lg_prof_sample:0,prof_accum:true,prof_final:true,prof_prefix:fr,dump_symbols:true \
	"$TP/frames" >/dev/null 2>err
dump=$(ls fr.*.f.*heap)
# The symbol section is keyed as pprof looks up: the first frame as is,
# callers at their return address minus one.
names() {
	perl -ne 'if (/^--- symbol/) { $s = 1; next } if (/^---/) { $s = 0; next }
		$name{hex $1} = $2 if $s && /^(0x[0-9a-f]+) (\S+)/;
		next unless /\] @ (.*)/; my @a = map { hex } split " ", $1;
		print join(" ", map { $name{$a[$_] - ($_ ? 1 : 0)} // "?" } 0 .. $#a), "\n"' "$1"
}
names "$dump" >named
deepest=$(awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i == "recurse") n++; if (n > best) { best = n; line = $0 } }
	END { print best ":" line }' named)
is "${deepest%%:*}" 50 "a dump shows all 50 frames of the deepest recursion"
like "${deepest#*:}" '^recurse( recurse){49} work[.a-z0-9]* (main|thread_main)' \
	"the frames under it are work, then main or thread_main"
like "$(cat named)" '^compare .*qsort_r sort_with_callbacks[.a-z0-9]* work' \
	"allocations in qsort's comparator keep the comparator's frame, then the sorter's"

# Stacks that differ only above a frame identical every time (same
# function, same stack address): the memo must check the words above it.
prof lg_prof_sample:0,prof_final:true,prof_prefix:memo,dump_symbols:true "$TP/memo" >/dev/null 2>&1
names memo.*.f.*heap | sed 1d >memo.named   # the first is the header's
perl -ne 'print "$1\n" if /^(\d+): \d+ \[/' memo.*.f.*heap >memo.counts
paste -d ' ' memo.counts memo.named | awk '{ print $1, $2, $3, ($3 == "mid" ? $4 : "") }' | sort >memo.got
printf '%s\n' '200 helper mid outer_a' '300 helper from_a ' '400 helper mid outer_b' '600 helper from_b ' | sort >memo.want
diff memo.want memo.got >d && ok 0 "the walk memo tells apart stacks that differ only above an identical frame" ||
	{ ok 1 "the walk memo tells apart stacks that differ only above an identical frame"; diag "$(cat d)"; }

# Allocations alternating between four paths into one function, whose
# frames sit 16 bytes apart: once a thread has walked 1024 stacks, each
# path has a memo of its own (stack/unwind.h), and its stack is the very
# last walk of that memo again; one memo for all (the old unwinder) found
# none again.  The stacks stay libunwind's, and each path's its own.
prof $CHECK "$TP/memoalt" >/dev/null 2>err
check_clean "memoalt (four alternating paths, the memos' frames taken from each other)" err 20000
prof lg_prof_sample:0,log_level:debug "$TP/memoalt" >/dev/null 2>err
again=$(sed -n 's/.*(\([0-9]*\) of them a memo.s last walk again)$/\1/p' err)
ok $([ "${again:-0}" -ge 18000 ]; echo $?) \
	"memoalt: $again of 20,000 stacks are a memo's last walk again (at least 18,000)"
prof lg_prof_sample:0,prof_final:true,prof_prefix:alt,dump_symbols:true "$TP/memoalt" >/dev/null 2>&1
names alt.*.f.*heap | sed 1d >alt.named
perl -ne 'print "$1\n" if /^(\d+): \d+ \[/' alt.*.f.*heap >alt.counts
paste -d ' ' alt.counts alt.named | awk '$3 ~ /^path/ { print $1, $2, $3, $4 }' | sort >alt.got
printf '%s\n' '5000 wrap path1 main' '5000 wrap path2 main' '5000 wrap path3 main' '5000 wrap path4 main' >alt.want
diff alt.want alt.got >d && ok 0 "memoalt: each path's 5,000 objects under its own stack" ||
	{ ok 1 "memoalt: each path's 5,000 objects under its own stack"; diag "$(cat d)"; }

# prof_unwinder:libunwind: the same stacks (ASLR off, so the same addresses).
stacks() {
	setarch -R env HEAPPROF_CONF=lg_prof_sample:0,prof_accum:true,prof_final:true,prof_prefix:$1,prof_unwinder:$1 \
		LD_PRELOAD=$LIB "$TP/frames" >/dev/null 2>&1
	sed -n 's/^.*\] @ //p' "$1".*.f.*heap | sort -u
}
stacks fast >fast.txt
stacks libunwind >libunwind.txt
ok $([ "$(wc -l <fast.txt)" -ge 5 ]; echo $?) "the fast unwinder's dump has the program's stacks"
diff fast.txt libunwind.txt >d && ok 0 "prof_unwinder:libunwind records the very same stacks" ||
	{ ok 1 "prof_unwinder:libunwind records the very same stacks"; diag "$(head -20 d)"; }
prof lg_prof_sample:0,prof_unwinder:libunwind,log_level:debug "$TP/frames" >/dev/null 2>err
like "$(cat err)" 'unwinder: 0 stacks walked fast, [1-9][0-9]* by libunwind' \
	"prof_unwinder:libunwind walks no stack itself"
prof prof_unwinder:sideways "$TP/frames" >/dev/null 2>err
like "$(head -n 1 err)" '^<heapprof>: .*prof_unwinder.*sideways' "a bad prof_unwinder is named in a one-line error"
