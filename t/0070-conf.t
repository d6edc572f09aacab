#!/bin/sh
# MALLOC_CONF / HEAPPROF_CONF: jemalloc's grammar and messages, one message
# per bad pair, parsing that goes on, precedence key by key, jemalloc's own
# keys accepted silently, and nothing a user writes changes the exit status.
. "$(dirname "$0")/lib.sh"
plan 32

# run CONF: the clean gate program (exit 0) under HEAPPROF_CONF=CONF;
# stderr in err, status in $st.
run() { prof "$1" "$TP/gate" clean >out 2>err; st=$?; }

run "bogus:1"
is "$(cat err)" "<heapprof>: Invalid conf pair: bogus:1 (HEAPPROF_CONF)" "unknown key: jemalloc's wording, source named"
is $st 0 "exit status unchanged"
run "lg_prof_sampel:12"
is "$(cat err)" "<heapprof>: Invalid conf pair: lg_prof_sampel:12 (HEAPPROF_CONF; did you mean 'lg_prof_sample'?)" \
	"a typo gets a suggestion"
run "prof:maybe"
is "$(cat err)" "<heapprof>: Invalid conf value: prof:maybe (HEAPPROF_CONF)" "bad boolean"
run "lg_prof_sample:12x"
is "$(cat err)" "<heapprof>: Invalid conf value: lg_prof_sample:12x (HEAPPROF_CONF)" "trailing garbage in a number"
run "lg_prof_sample:99"
is "$(cat err)" "<heapprof>: Out-of-range conf value: lg_prof_sample:99 (HEAPPROF_CONF)" "out of range"
run "lg_prof_interval:99,leak_exit_code:0,prof_bt_max:0"
is "$(grep -c 'Out-of-range conf value' err)" 3 "each out-of-range pair reported"
run "dump_format:xml"
is "$(cat err)" "<heapprof>: Invalid conf value: dump_format:xml (HEAPPROF_CONF)" "bad enumeration value"

# Each bad pair is reported once, and the good pairs around it still apply.
prof "bogus:1,lg_prof_sample:0,prof-leak:true,prof_leak:true,also_bogus:2" "$TP/gate" leak >out 2>err
is "$(grep -c 'bogus:1' err)" 1 "a bad pair is reported exactly once"
is "$(grep -c 'Malformed conf string -- prof-leak:true (HEAPPROF_CONF)' err)" 1 "malformed pair reported with its text"
like "$(cat err)" "also_bogus:2" "parsing goes on after a malformed pair"
like "$(cat err)" 'Leak approximation summary: ~200 bytes' "good pairs before and after the bad ones apply"
rm -f *.heap
run "prof_leak:true,"
like "$(cat err)" "Conf string ends with comma \\(HEAPPROF_CONF\\)" "trailing comma"
run "prof_final"
is "$(cat err)" "<heapprof>: Conf string ends with key -- prof_final (HEAPPROF_CONF)" "string ending in a key"
run " prof_leak:true"
like "$(cat err)" "Malformed conf string --  prof_leak:true" "nothing is trimmed (as jemalloc)"

# jemalloc's own options are accepted silently, so MALLOC_CONF can be shared.
MALLOC_CONF=narenas:4,dirty_decay_ms:1000,tcache:false,background_thread:true,prof_log:true,abort_conf:false \
	LD_PRELOAD=$LIB "$TP/gate" clean >out 2>err
is "$(cat err)" "" "jemalloc's keys pass silently"

# Booleans in every spelling, numbers in every base jemalloc accepts.
run "prof_accum:yes,prof_final:on,prof_leak:0,lg_prof_sample:0x0,prof_bt_max:010"
like "$(cat err)" '^<heapprof>: dump heapprof\.[0-9]+\.0\.f\.[0-9TZ]+\.heap \(final\): ~4\.0 KiB live in 1 object, 1 context, first dump$' \
	"true/yes/on/1, hex and octal accepted: the final dump is written and logged"
rm -f *.heap

# Precedence: HEAPPROF_CONF overrides MALLOC_CONF key by key.
MALLOC_CONF=prof_prefix:mc,lg_prof_sample:0,prof_final:true HEAPPROF_CONF=prof_prefix:hc \
	LD_PRELOAD=$LIB "$TP/seed" >/dev/null 2>err
is "$(ls mc.* 2>/dev/null | wc -l)" 0 "HEAPPROF_CONF's prefix wins"
dump=$(one_file 'hc.*.f.*heap')
is "$(jeprof_bytes "$TP/seed" "$dump" do_something)" 3235840 "MALLOC_CONF's other keys still apply (exact mode)"
rm -f *.heap
MALLOC_CONF=lg_prof_sample:0,prof_leak:true LD_PRELOAD=$LIB "$TP/seed" >/dev/null 2>err
like "$(cat err)" "~6270976 bytes" "MALLOC_CONF alone configures heapprof, as it does jemalloc"
rm -f *.heap

# confirm_conf lists the sources and every value set.
run "confirm_conf:true,lg_prof_sample:13"
like "$(cat err)" '^<heapprof>: malloc_conf #2 \(HEAPPROF_CONF\): "confirm_conf:true,lg_prof_sample:13"$' "confirm_conf: sources"
like "$(cat err)" '^<heapprof>: -- Set conf value: lg_prof_sample:13 \(HEAPPROF_CONF\)$' "confirm_conf: values"

# Switches.
prof "prof:false,prof_final:true,prof_leak:true" "$TP/seed" >/dev/null 2>err
is "$(ls *.heap 2>/dev/null | wc -l)$(cat err)" "0" "prof:false: nothing sampled, nothing written"
prof "prof_active:false,lg_prof_sample:0,prof_leak:true" "$TP/seed" >/dev/null 2>err
is "$(cat err)" "" "prof_active:false: nothing sampled, no leak reported"
rm -f *.heap
prof "prof_bt_max:1,lg_prof_sample:0,prof_final:true" "$TP/seed" >/dev/null 2>&1
is "$(awk '/ @ 0x/ {print NF - 5}' "$(one_file 'heapprof.*.f.*heap')" | sort -u)" 1 "prof_bt_max:1: one frame per stack"
rm -f *.heap

# A dump that cannot be written: one line, and the host carries on.
: >afile
prof "lg_prof_sample:0,prof_leak_error:true,prof_prefix:afile/x" "$TP/gate" clean >out 2>err
is $? 0 "an unwritable prefix does not change a clean exit"
like "$(cat err)" '^<heapprof>: dump failed \(final\): afile/x\.[0-9]+\.0\.f\.[0-9TZ]+\.heap: Not a directory$' "one line names the file and the error"
prof "lg_prof_sample:0,prof_leak_error:true,prof_prefix:afile/x" "$TP/gate" leak >out 2>err
is $? 1 "the gate still works without a dump"
like "$(cat err)" "No final dump \\(Not a directory\\)" "and says there is no dump"
prof "lg_prof_sample:0,prof_leak:true,prof_prefix:" "$TP/gate" leak >out 2>err
like "$(cat err)" "No final dump \\(prof_prefix is empty\\)" "empty prof_prefix: no dump, said so"

# Garbage never takes the host down.
long=$(head -c 100000 /dev/zero | tr '\0' 'x')
bad=0
for c in ",,,,:::" ":" "," "a:b:c:d" "prof_prefix:$long" "$long" "lg_prof_sample:-1" \
	"lg_prof_sample:999999999999999999999999" "prof_bt_max:-5" "$(printf 'k\001\002:v\377')" \
	"prof_leak:true,prof_leak:false,prof_leak:maybe" "=,=,=" "prof_prefix:%s%n%p" ; do
	prof "$c" "$TP/gate" clean >/dev/null 2>&1 || bad=$((bad + 1))
	MALLOC_CONF=$c LD_PRELOAD=$LIB "$TP/gate" clean >/dev/null 2>&1 || bad=$((bad + 1))
done
is $bad 0 "26 hostile configuration strings: every run exits 0"
rm -f *.heap

# No configuration at all: profiles, writes nothing, prints nothing.
mkdir quiet && cd quiet
LD_PRELOAD=$LIB "$TP/seed" >out 2>err
is "$(cat err)$(ls | grep -v '^out$' | grep -v '^err$')" "" "no configuration: nothing printed, no file written"
done_testing
