#!/bin/sh
# setuid/setgid and chroot after start (issue 12), as root: the program
# behaves as bare at the default rate and in exact mode.  After dropping
# root for nobody, every thread has dropped it (heapprof's helper thread
# too, although it blocks every signal: glibc's setxid signal is exempt);
# a dump where nobody cannot write is one clear line, and where it can,
# the dump is written, nobody's and 0600.  After a chroot without /proc,
# dumps are written inside the new root and still name their functions:
# their MAPPED_LIBRARIES come from the loader's list, with one line.
. "$(dirname "$0")/lib.sh"
. "$SRC/t/bare.sh"
plan 30

if [ "$(id -u)" != 0 ]; then
	echo "Bail out! t/0703 runs as root (setuid and chroot); run make check as root"
	exit 1
fi
chmod 711 "$T_DIR"   # nobody may pass through to the directories below
# State files of their own: one nobody cannot remove stays behind.
export HEAPPROF_RUNTIME_DIR=$T_DIR/run

mkdir jail
for conf in "" lg_prof_sample:0; do
	rate=${conf:-default rate}
	same_as_bare "setgid and setuid to nobody after start ($rate)" "$TP/patterns" setuid
	same_as_bare "chroot after start ($rate)" "$TP/patterns" chroot "$T_DIR/jail"
done

# start_pre DIR CONF ARGS...: runs patterns ARGS under the library in DIR,
# waits for "ready", sets $pid and $job.
start_pre() {
	_dir=$1 _conf=$2
	shift 2
	rm -f "$T_DIR/out" "$T_DIR/err"
	(cd "$_dir" && HEAPPROF_CONF=$_conf exec timeout -s KILL 20 env LD_PRELOAD="$LIB" "$TP/patterns" "$@") \
		>"$T_DIR/out" 2>"$T_DIR/err" &
	job=$!
	wait_for "$T_DIR/out" '^ready [0-9]+$' 10
	pid=$(sed -n 's/^ready //p' "$T_DIR/out")
}

# setuid, in a directory nobody cannot write (the test's, root's 0711).
start_pre "$T_DIR" lg_prof_sample:0,prof_final:true setuid
uids=$(cat /proc/$pid/task/*/status 2>/dev/null | awk '/^Uid:/ { print $2 }' | sort -u)
threads=$(ls /proc/$pid/task | wc -l)
is "$uids" 65534 "after setuid every thread runs as nobody, heapprof's helper too ($threads threads)"
kill -USR1 $pid
wait $job
is $? 0 "the program ends as bare"
like "$(cat err)" "^<heapprof>: dump failed \\(signal\\): heapprof\\.$pid\\.0\\.s0\\.[0-9TZ]+\\.heap: Permission denied\$" \
	"a dump nobody cannot write is one clear line"
like "$(cat err)" "^<heapprof>: dump failed \\(final\\): heapprof\\.$pid\\.1\\.f\\.[0-9TZ]+\\.heap: Permission denied\$" \
	"the final dump too"
is "$(grep -c . err)" 2 "and nothing else"

# setuid, with the prefix in a directory nobody owns.
mkdir nob
chown 65534:65534 nob
start_pre "$T_DIR" lg_prof_sample:0,prof_final:true,prof_prefix:$T_DIR/nob/d setuid
kill -USR1 $pid
wait $job
is $? 0 "the program ends as bare"
n=$(ls nob/d.$pid.*.heap 2>/dev/null | wc -l)
is "$n" 2 "where nobody can write, the signal and final dumps are written"
is "$(stat -c '%U %a' nob/d.$pid.*.heap | sort -u)" "nobody 600" "nobody's, mode 0600"

# chroot into an empty directory: no /proc.
rm -rf jail && mkdir jail
start_pre "$T_DIR" lg_prof_sample:0,prof_final:true chroot "$T_DIR/jail"
kill -USR1 $pid
wait $job
is $? 0 "chrooted: the program ends as bare"
is "$(ls jail/heapprof.$pid.*.heap 2>/dev/null | wc -l)" 2 "the dumps are written inside the new root"
like "$(cat err)" "^<heapprof>: cannot read /proc/self/maps \\(No such file or directory\\): dumps list the loaded objects from the dynamic loader instead\$" \
	"one line says there is no /proc and what stands in for it"
is "$(grep -c 'cannot read /proc/self/maps' err)" 1 "once"
dump=$(ls jail/heapprof.$pid.*.f.*.heap)
like "$(sed -n '/^MAPPED_LIBRARIES:/,$p' "$dump" | grep " $TP/patterns\$" | head -n 1)" '^[0-9a-f]+-[0-9a-f]+ r..p [0-9a-f]{8} 00:00 0 /' \
	"the program's segments are listed, in /proc/self/maps' layout"
like "$("$BIN" report --text "$dump" 2>&1)" ' do_chroot$' "and the dump names its functions (do_chroot)"
done_testing
