#!/bin/sh
# heapprof run puts the dumps of one run together: an absolute prof_prefix
# in a new directory, ./heapprof-run.<UTC>.<pid>/<program> (under
# $XDG_STATE_HOME/heapprof when the working directory is not writable),
# unless prof_prefix is given (-c, HEAPPROF_CONF, MALLOC_CONF,
# profiler.ini); the run's process names the directory at exit.  A run
# that dumps nothing leaves nothing.
. "$(dirname "$0")/lib.sh"
plan 17

mkdir work
cd work || exit 1
"$BIN" run -c lg_prof_sample:0,prof_final:true "$TP/seed" >out 2>err
is "$?:$(cat out)" "0:seed: allocated" "the program's output and status"
set -- heapprof-run.*
is "$#" 1 "one run directory in the working directory"
dir=$1
pid=${dir##*.}
like "$dir" '^heapprof-run\.[0-9]{8}T[0-9]{6}Z\.[0-9]+$' "named heapprof-run.<UTC time>.<pid>: $dir"
d=$(cd "$dir" && one_file 'seed.*.heap')
like "$d" "^seed\\.$pid\\.0\\.f\\.[0-9]{8}T[0-9]{6}Z\\.heap\$" "the final dump inside, named after the program, with the run's pid"
like "$(sed -n 1p err)" "^<heapprof>: dump $T_DIR/work/$dir/seed\\.$pid\\.0\\.f\\..*\\.heap \\(final\\)" "the log names it by its absolute path"
is "$(tail -n 1 err)" "<heapprof>: the dumps of this run are in $T_DIR/work/$dir/" "the last line says where the run's dumps are"
is "$(stat -c %a "$dir")" 700 "the directory is private (0700)"
rm -rf heapprof-run.*

"$BIN" run "$TP/seed" >out 2>err
is "$(ls -d heapprof-run.* 2>/dev/null):$(cat err)" ":" "a run that writes no dump leaves no directory, and says nothing"

# prof_prefix given: no run directory.
"$BIN" run -c lg_prof_sample:0,prof_final:true,prof_prefix:mine "$TP/seed" >/dev/null 2>err
ok $(ls mine.*.f.*.heap >/dev/null 2>&1 && ! ls -d heapprof-run.* >/dev/null 2>&1; echo $?) "-c prof_prefix: the user's prefix"
unlike "$(cat err)" 'dumps of this run' "and no line about a run directory"
rm -f mine.*
HEAPPROF_CONF=prof_prefix:env,prof_final:true "$BIN" run "$TP/seed" >/dev/null 2>&1
ok $(ls env.*.f.*.heap >/dev/null 2>&1 && ! ls -d heapprof-run.* >/dev/null 2>&1; echo $?) "HEAPPROF_CONF's prof_prefix"
MALLOC_CONF=prof_prefix:mc,prof_final:true "$BIN" run "$TP/seed" >/dev/null 2>&1
ok $(ls mc.*.f.*.heap >/dev/null 2>&1 && ! ls -d heapprof-run.* >/dev/null 2>&1; echo $?) "MALLOC_CONF's"
printf '[heapprof]\nprof_final = true\n[program:seed]\nprof_prefix = %s/work/ini\n' "$T_DIR" >p.ini
"$BIN" run --config p.ini "$TP/seed" >/dev/null 2>&1
ok $(ls ini.*.f.*.heap >/dev/null 2>&1 && ! ls -d heapprof-run.* >/dev/null 2>&1; echo $?) "profiler.ini's (in a [program:] section too)"
HEAPPROF_CONFIG=$T_DIR/work/p.ini "$BIN" run "$TP/seed" >/dev/null 2>&1
ok $(! ls -d heapprof-run.* >/dev/null 2>&1; echo $?) "the profiler.ini of HEAPPROF_CONFIG"

# A working directory that is not writable (as another user: root may
# write anywhere): $XDG_STATE_HOME/heapprof.
chmod 755 "$T_DIR" "$T_DIR/work"
mkdir ro state
chmod 555 ro
chown 65534 state
(cd ro && XDG_STATE_HOME=$T_DIR/work/state setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$BIN" run -c lg_prof_sample:0,prof_final:true "$TP/seed" >../out 2>../err)
is "$?:$(cat out)" "0:seed: allocated" "run as nobody in a directory it cannot write"
set -- state/heapprof/heapprof-run.*/seed.*.f.*.heap
ok $([ -e "$1" ]; echo $?) "the run directory is under \$XDG_STATE_HOME/heapprof: $1"
like "$(tail -n 1 err)" "^<heapprof>: the dumps of this run are in $T_DIR/work/state/heapprof/heapprof-run\\." "and the last line says so"
done_testing
