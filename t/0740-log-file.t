#!/bin/sh
# log_file that is not an ordinary file in an existing directory: a FIFO
# (which blocked every process before main), a device, a missing
# directory (created 0700, as a dump prefix's), a symbolic link at the log
# or at its .lock (never followed; the lock falls back to the directory,
# and says so).  The program runs as it does bare in every case.
. "$(dirname "$0")/lib.sh"
plan 24

"$TP/gate" clean >bare.out 2>bare.err
bare_st=$?

# A FIFO at the log's name: never opened for writing in a way that blocks.
mkfifo fifo
timeout 10 env HEAPPROF_CONF="log_file:$T_DIR/fifo,bogus:1" LD_PRELOAD=$LIB "$TP/gate" clean >out 2>err
is $? $bare_st "a FIFO at log_file: the program runs and exits as bare (it hung before main)"
is "$(cat out)" "$(cat bare.out)" "the same output"
like "$(cat err)" "^<heapprof>: cannot open log_file $T_DIR/fifo: a FIFO, not a regular file; messages go to standard error\$" \
	"one line says why the FIFO is refused"
like "$(cat err)" '^<heapprof>: Invalid conf pair: bogus:1' "and messages go to standard error"

# A FIFO with a reader: still refused (it is not a file), still no hang.
(exec 3<>fifo; sleep 3) &
reader=$!
sleep 0.2
timeout 10 env HEAPPROF_CONF="log_file:$T_DIR/fifo" LD_PRELOAD=$LIB "$TP/gate" clean >out 2>err
is $? $bare_st "a FIFO with a reader: runs as bare"
like "$(cat err)" "a FIFO, not a regular file" "and is refused too"
kill $reader 2>/dev/null
wait $reader 2>/dev/null

# A device is not even opened.
timeout 10 env HEAPPROF_CONF="log_file:/dev/null,bogus:2" LD_PRELOAD=$LIB "$TP/gate" clean >out 2>err
like "$(cat err)" "^<heapprof>: cannot open log_file /dev/null: a character device, not a regular file;" \
	"a character device is refused in one line"

# A missing directory is created, mode 0700, like a dump prefix's.
timeout 10 env HEAPPROF_CONF="log_file:$T_DIR/new/sub/app.log,bogus:3" LD_PRELOAD=$LIB "$TP/gate" clean >out 2>err
is "$(cat err)" "" "log_file in a missing directory: nothing on standard error"
like "$(cat new/sub/app.log 2>/dev/null)" '<heapprof>: Invalid conf pair: bogus:3' "the directories are created and the log written"
is "$(stat -c %a new) $(stat -c %a new/sub) $(stat -c %a new/sub/app.log)" "700 700 600" "directories 0700, log 0600"

# A symbolic link at the log's name is never followed.
echo precious >victim
ln -s victim linked.log
timeout 10 env HEAPPROF_CONF="log_file:$T_DIR/linked.log,bogus:4" LD_PRELOAD=$LIB "$TP/gate" clean >out 2>err
like "$(cat err)" "^<heapprof>: cannot open log_file $T_DIR/linked.log: a symbolic link, not a regular file;" \
	"a symbolic link at log_file is refused in one line"
is "$(cat victim)" precious "and its target is untouched"

# A symbolic link at <log_file>.lock: not followed, not silently dropped.
ln -s "$T_DIR/lock-target" app.log.lock
timeout 10 env HEAPPROF_CONF="log_file:$T_DIR/app.log,bogus:5" LD_PRELOAD=$LIB "$TP/gate" clean >out 2>err
is "$?" "$bare_st" "a symbolic link at the lock: the program runs as bare"
like "$(cat app.log)" "<heapprof>: log_file $T_DIR/app.log: $T_DIR/app.log.lock is a symbolic link; not used: writers lock the log's directory instead\$" \
	"one line in the log says the lock is refused, and how writers lock instead"
ok $([ ! -e lock-target ]; echo $?) "the link's target is not created"

# Writers still never interleave: ten processes, 100 lines each, through
# the directory lock, with rotation.
keys=$(seq 1 100 | sed 's/^/bogus/; s/$/:1/' | tr '\n' ',' | sed 's/,$//')
for i in $(seq 1 10); do
	timeout 20 env HEAPPROF_CONF="log_file:$T_DIR/app.log,log_max_bytes:4k,log_keep:900,$keys" \
		LD_PRELOAD=$LIB "$TP/gate" clean >/dev/null 2>&1 &
done
wait
cat app.log app.log.[0-9]* >all 2>/dev/null
is "$(grep -c 'Invalid conf pair: bogus[0-9]*:1 (HEAPPROF_CONF)$' all)" 1000 \
	"locking on the directory: ten writers, 1000 lines, none lost across rotation"
is "$(grep -cvE '^[0-9-]+T[0-9:.]+Z [0-9]+ <heapprof>: ' all)" 0 "none torn or interleaved"
# The program closes every descriptor from 3 (as daemons do) and opens two
# files, which take the numbers the log and its lock had; a forked child
# writes to the second.  Neither file gets a heapprof line nor is closed
# or flocked by heapprof: the log is opened again, and gets both
# processes' summaries.
rm -rf cf && mkdir cf
"$TP/patterns" closefiles cf/bare.a cf/bare.b >/dev/null 2>&1
bare_st=$?
timeout 20 env HEAPPROF_CONF="prof_leak:true,leak_check:live,lg_prof_sample:0,prof_prefix:$T_DIR/cf/d,log_file:$T_DIR/cf/log" \
	LD_PRELOAD=$LIB "$TP/patterns" closefiles cf/pre.a cf/pre.b >/dev/null 2>cf/err
is "$?" "$bare_st" "close-from-3, then the program's own files at the log's numbers: exit status as bare"
is "$(cat cf/pre.a)" "$(cat cf/bare.a)" "the file at the log's old number holds only the program's bytes"
is "$(cat cf/pre.b)" "$(cat cf/bare.b)" "the file at the lock's old number, written by a forked child, as bare"
is "$(grep -c '<heapprof>: Leak approximation summary' cf/log)" 2 \
	"the log was opened again: the parent's and the child's summaries are in it"
is "$(cat cf/err)" "" "nothing fell back to standard error"

# A process that starts with profiling off still sends its lines to
# log_file (heapprof check's run directory): they went to standard error.
rm -f off.log
env HEAPPROF_CONF="prof:false,log_file:$T_DIR/off.log,bogus:1" LD_PRELOAD=$LIB /bin/true 2>off.err
is "$(cat off.err)" "" "prof:false: nothing on standard error"
like "$(cat off.log 2>/dev/null)" '<heapprof>: Invalid conf pair: bogus:1' "and the warning is in log_file"
done_testing
