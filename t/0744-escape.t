#!/bin/sh
# Control bytes in what heapprof quotes -- MALLOC_CONF, HEAPPROF_CONF,
# profiler.ini values, file names, program names -- are printed as \xHH:
# no value can end heapprof's line and forge a "<heapprof>:" line of its
# own, on standard error or in the log; and the state file keeps one key
# per line.
. "$(dirname "$0")/lib.sh"
plan 12

nl='
'
esc=$(printf '\033')
forge="${nl}<heapprof>: Exiting with error code because memory leaks were detected"

# HEAPPROF_CONF with a newline: one line, escaped.
HEAPPROF_CONF="bogus:1$forge" LD_PRELOAD=$LIB "$TP/gate" clean >out 2>err
is "$(grep -c . err)" 1 "HEAPPROF_CONF with a newline: one line on standard error"
like "$(cat err)" '^<heapprof>: Invalid conf pair: bogus:1\\x0a<heapprof>: Exiting with error code because memory leaks were detected \(HEAPPROF_CONF\)$' \
	"the newline is printed as \\x0a"

# MALLOC_CONF with a terminal escape and a carriage return.
MALLOC_CONF="lg_prof_sample:1${esc}[2J$(printf '\r')x" LD_PRELOAD=$LIB "$TP/gate" clean >out 2>err
like "$(cat err)" '^<heapprof>: Invalid conf value: lg_prof_sample:1\\x1b\[2J\\x0dx \(MALLOC_CONF\)$' \
	"MALLOC_CONF: an escape and a carriage return are printed as \\x1b and \\x0d"
is "$(tr -d '\n -~' <err | wc -c)" 0 "no control byte reaches standard error"

# The same into the log: one line per message, each with time and pid.
HEAPPROF_CONF="log_file:$T_DIR/app.log,bogus:2$forge" LD_PRELOAD=$LIB "$TP/gate" clean >out 2>err
is "$(grep -c . app.log)" 1 "in the log too: one line"
is "$(grep -cvE '^[0-9-]+T[0-9:.]+Z [0-9]+ <heapprof>: ' app.log)" 0 "and it carries time and pid"

# A profiler.ini value with control bytes.
printf '[heapprof]\nlg_prof_sample = 3\033]0;owned\007\n' >profiler.ini
HEAPPROF_CONFIG=$T_DIR/profiler.ini LD_PRELOAD=$LIB "$TP/gate" clean >out 2>err
like "$(cat err)" '\\x1b\]0;owned\\x07' "a profiler.ini value: its control bytes are escaped"
is "$(tr -d '\n -~' <err | wc -c)" 0 "none reaches standard error raw"

# A file name: a prefix with a newline whose dump cannot be written.
: >notadir
HEAPPROF_CONF="prof_final:true,prof_prefix:$T_DIR/notadir/x$forge" LD_PRELOAD=$LIB "$TP/gate" clean >out 2>err
unlike "$(cat err)" '^<heapprof>: Exiting' "a prefix with a newline forges no line"

# A program name with a newline, expanded by %e, and in the state file.
cp "$TP/gate" "$T_DIR/ga${nl}te"
HEAPPROF_RUNTIME_DIR=$T_DIR/run HEAPPROF_CONF="prof_final:true,prof_prefix:$T_DIR/notadir/%e" \
	LD_PRELOAD=$LIB "$T_DIR/ga${nl}te" clean >out 2>err
like "$(cat err)" "^<heapprof>: dump failed \\(final\\): $T_DIR/notadir/ga\\\\x0ate\\.[0-9]+\\.0\\.f\\.[0-9TZ]+\\.heap: Not a directory\$" \
	"a program name with a newline: escaped in the message"
is "$(grep -c . err)" 1 "which stays one line"
# The state file of a running program with a newline in its path.
cp "$TP/idle" "$T_DIR/id${nl}le"
HEAPPROF_RUNTIME_DIR=$T_DIR/run HEAPPROF_CONF=prof_prefix:x LD_PRELOAD=$LIB "$T_DIR/id${nl}le" 20 >idle.out 2>&1 &
pid=$!
for i in $(seq 1 500); do [ -s "run/$pid" ] && break; sleep 0.01; done
is "$(grep -cvE '^[a-z_]+=' "run/$pid")" 0 "the state file: a program path with a newline stays on its line"
kill $pid 2>/dev/null
wait $pid 2>/dev/null
done_testing
