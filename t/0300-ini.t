#!/bin/sh
# profiler.ini: location, precedence (defaults < file < MALLOC_CONF <
# HEAPPROF_CONF), [program:NAME] sections, value syntax, and every kind of
# bad input: one line naming file and line, the rest still applies, the
# program runs as without heapprof.
. "$(dirname "$0")/lib.sh"
plan 27

ini=$T_DIR/profiler.ini
export HEAPPROF_CONFIG=$ini

# Precedence, key by key.
cat >"$ini" <<'INI'
[heapprof]
lg_prof_sample = 0
prof_prefix = fromfile
prof_leak = true
prof_bt_max = 3
INI
LD_PRELOAD=$LIB "$TP/seed" >/dev/null 2>err
like "$(cat err)" "~6270976 bytes" "the file alone configures heapprof (exact mode, leak summary)"
ok $(ls fromfile.*.f.*heap >/dev/null 2>&1; echo $?) "the file's prof_prefix is used"
stack=$(awk '/ @ 0x/ {print NF - 5; exit}' fromfile.*.f.*heap)
is "$stack" 3 "the file's prof_bt_max is used"
rm -f *.heap
MALLOC_CONF=prof_prefix:frommc,prof_bt_max:2 LD_PRELOAD=$LIB "$TP/seed" >/dev/null 2>&1
ok $(ls frommc.*.f.*heap >/dev/null 2>&1; echo $?) "MALLOC_CONF overrides the file's prof_prefix"
is "$(awk '/ @ 0x/ {print NF - 5; exit}' frommc.*.f.*heap)" 2 "MALLOC_CONF overrides prof_bt_max"
rm -f *.heap
MALLOC_CONF=prof_prefix:frommc HEAPPROF_CONF=prof_prefix:fromhc LD_PRELOAD=$LIB "$TP/seed" >/dev/null 2>err
ok $(ls fromhc.*.f.*heap >/dev/null 2>&1; echo $?) "HEAPPROF_CONF overrides MALLOC_CONF"
like "$(cat err)" "~6270976 bytes" "keys set only in the file still apply under both"
rm -f *.heap

# [program:NAME] sections, for this program only, whatever their order.
cat >"$ini" <<'INI'
[program:seed]
prof_prefix = seedonly
[heapprof]
lg_prof_sample = 0
prof_final = yes
prof_prefix = everyone
[program:gate]
prof_prefix = gateonly
INI
LD_PRELOAD=$LIB "$TP/seed" >/dev/null 2>&1
LD_PRELOAD=$LIB "$TP/threads" >/dev/null 2>&1
ok $(ls seedonly.*.heap >/dev/null 2>&1; echo $?) "[program:seed] applies to seed, over [heapprof]"
ok $(ls everyone.*.heap >/dev/null 2>&1; echo $?) "other programs get [heapprof]"
is "$(ls gateonly.* 2>/dev/null | wc -l)" 0 "[program:gate] is not applied to others"
rm -f *.heap

# Values: booleans, sizes, signals, in every spelling.
cat >"$ini" <<'INI'
[heapprof]
prof_accum = on
prof_final = 1
dump_keep_bytes = 64k
log_max_bytes = 2MiB
signal_dump = SIGRTMIN+2
signal_toggle = none
dump_at_bytes = 0x100000
INI
HEAPPROF_CONF=confirm_conf:true LD_PRELOAD=$LIB "$TP/gate" clean >/dev/null 2>err
like "$(cat err)" 'Set conf value: prof_accum:true \(profiler.ini\)' "boolean 'on'"
like "$(cat err)" 'Set conf value: dump_keep_bytes:64k \(profiler.ini\)' "size with k"
like "$(cat err)" 'Set conf value: log_max_bytes:2M \(profiler.ini\)' "size with MiB"
like "$(cat err)" 'Set conf value: signal_dump:RTMIN\+2 \(profiler.ini\)' "real-time signal"
like "$(cat err)" 'Set conf value: signal_toggle:none \(profiler.ini\)' "signal none"
rm -f *.heap

# Bad input: one line each, naming file and line; the rest still applies.
printf '%s\n' '[heapprof]' 'lg_prof_sampel = 12' 'prof_accum = maybe' 'lg_prof_sample = 99' \
	'this is not a pair' '[nonsense]' 'prof_leak = true' '[heapprof]' 'signal_dump = PIPE' \
	"prof_prefix = $(head -c 300 /dev/zero | tr '\0' 'x')" 'prof_leak = true' 'lg_prof_sample = 0' \
	'narenas = 4' >"$ini"
LD_PRELOAD=$LIB "$TP/seed" >out 2>err
st=$?
is $st 0 "a bad file does not change the exit status"
is "$(cat out)" "seed: allocated" "nor the output"
like "$(cat err)" "^<heapprof>: $ini:2: unknown key 'lg_prof_sampel' \\(did you mean 'lg_prof_sample'\\?\\)\$" \
	"unknown key: file, line, key and a suggestion"
like "$(cat err)" "^<heapprof>: $ini:3: invalid value 'maybe' for prof_accum \\(expected true or false\\)\$" "invalid value"
like "$(cat err)" "^<heapprof>: $ini:4: out-of-range value '99' for lg_prof_sample \\(expected 0 to 40\\)\$" "out of range"
like "$(cat err)" "^<heapprof>: $ini:5: malformed line \\(expected key = value\\)\$" "malformed line"
like "$(cat err)" "^<heapprof>: $ini:6: unknown section \\[nonsense\\]" "unknown section (its keys are ignored)"
like "$(cat err)" "^<heapprof>: $ini:9: refused value 'PIPE' for signal_dump: SIGPIPE: the kernel sends it on a write to a closed pipe, which ends the program \\(yes \\| head -1\\) \\(expected USR1, USR2, RTMIN\\+0 to RTMIN\\+[0-9]+, or none\\)\$" \
	"a signal whose sender or default action the program relies on: refused, saying why"
like "$(cat err)" "^<heapprof>: $ini:10: line longer than 197 characters; ignored\$" "an over-long line"
like "$(cat err)" "^<heapprof>: $ini:13: 'narenas' is a jemalloc option; heapprof ignores it\$" "a jemalloc option in the file"
like "$(cat err)" "Leak approximation summary: ~6270976 bytes" "the good lines still apply"
rm -f *.heap

# Unusable files: one line, then defaults.
rm -f "$ini"
bad=0
: >msgs
printf 'prof_leak = true\n\0binary\n' >"$ini.bin"
head -c 2000000 /dev/zero | tr '\0' '#' >"$ini.huge"
mkdir "$ini.dir"
printf '[heapprof]\nprof_leak = true\n' >"$ini.noread"
chmod 000 "$ini.noread"
for f in "$ini.bin" "$ini.huge" "$ini.dir" "$ini.noread" "$T_DIR/missing.ini"; do
	HEAPPROF_CONFIG=$f LD_PRELOAD=$LIB "$TP/gate" clean >/dev/null 2>err || bad=$((bad + 1))
	cat err >>msgs
done
expected="binary data \\(a NUL byte\\); file ignored|larger than 1048576 bytes; ignored|not a regular file; ignored|cannot read: (Permission denied|No such file or directory)"
# (root reads mode 000 files: that case then reads the file and applies it)
is "$bad$(grep -cvE "$expected|Leak approximation" msgs)" "00" "binary, huge, directory, unreadable, missing: exit 0, only the expected lines"
done_testing
