#!/bin/sh
# log_file: every line, with UTC time and pid; size-based rotation that
# loses and interleaves nothing with several processes writing at once.
. "$(dirname "$0")/lib.sh"
plan 11

line_re='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z [0-9]+ <heapprof>: '

prof "lg_prof_sample:0,prof_leak:true,log_file:$T_DIR/app.log,bogus:1" "$TP/seed" >out 2>err
is "$(cat err)" "" "nothing on standard error when log_file is set"
like "$(cat app.log)" "${line_re}Invalid conf pair: bogus:1 \\(HEAPPROF_CONF\\)\$" \
	"start-up messages go to the log too, with time and pid"
like "$(cat app.log)" "${line_re}Leak approximation summary: ~6270976 bytes" "the leak summary goes to the log"
is "$(grep -cvE "$line_re" app.log)" 0 "every line carries time and pid"
is "$(stat -c %a app.log)" 600 "the log is mode 0600"

# Ten processes, 150 lines each, a 4 KiB log rotated a few hundred times.
keys=$(seq 1 150 | sed 's/^/bogus/; s/$/:1/' | tr '\n' ',' | sed 's/,$//')
for i in $(seq 1 10); do
	HEAPPROF_CONF="log_file:$T_DIR/shared.log,log_max_bytes:4k,log_keep:900,$keys" \
		LD_PRELOAD=$LIB "$TP/gate" clean >/dev/null 2>&1 &
done
wait
cat shared.log* >all
total=$(grep -c 'Invalid conf pair: bogus' all)
is "$total" 1500 "ten writers, 1500 lines: none lost across $(ls shared.log* | wc -l) rotated files"
is "$(grep -cvE "${line_re}Invalid conf pair: bogus[0-9]+:1 \\(HEAPPROF_CONF\\)\$" all)" 0 "none interleaved or torn"
per_pid=$(awk '{print $2}' all | sort | uniq -c | awk '{print $1}' | sort -u | tr '\n' ' ')
is "$per_pid" "150 " "each process's 150 lines all arrived"

# log_keep bounds the rotated files.
HEAPPROF_CONF="log_file:$T_DIR/small.log,log_max_bytes:1k,log_keep:2,$keys" LD_PRELOAD=$LIB "$TP/gate" clean >/dev/null 2>&1
is "$(ls small.log* | grep -v '\.lock$' | tr '\n' ' ')" "small.log small.log.1 small.log.2 " "log_keep:2 keeps two rotated files"

# A log that cannot be opened: one line on standard error, which then
# receives the messages.
: >notadir
prof "log_file:$T_DIR/notadir/x.log,bogus:2" "$TP/gate" clean >out 2>err
like "$(cat err)" "^<heapprof>: cannot open log_file $T_DIR/notadir/x.log: Not a directory; messages go to standard error\$" \
	"an unusable log_file is reported once"
like "$(cat err)" '^<heapprof>: Invalid conf pair: bogus:2' "and messages fall back to standard error"
done_testing
