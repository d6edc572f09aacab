#!/bin/sh
# heapprof dump, toggle, pause and resume refuse another user's process
# unless run as root, saying permission was denied (they said it "does not
# have heapprof loaded"); root may ask any user's process, and the dump is
# written by the process, as its user.
. "$(dirname "$0")/lib.sh"
plan 12

conf=prof_prefix:$T_DIR/p,lg_prof_sample:0

if [ "$(id -u)" = 0 ]; then
	# Root's process under heapprof, asked by nobody.
	export HEAPPROF_RUNTIME_DIR=$T_DIR/run
	HEAPPROF_CONF=$conf LD_PRELOAD=$LIB "$TP/sigowner" 60 none >out 2>err &
	pid=$!
	wait_for out '^ready'
	wait_for "run/$pid" '^signal_control='
	as_other() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	owner=0
else
	# A process of another user (pid 1 is root's, as a rule).
	pid=1
	for d in /proc/[0-9]*; do
		[ "$(stat -c %u "$d" 2>/dev/null)" != "$(id -u)" ] && { pid=${d#/proc/}; break; }
	done
	as_other() { "$@"; }
	owner=$(stat -c %u /proc/$pid)
fi
for cmd in dump toggle pause resume; do
	as_other timeout 20 "$BIN" $cmd $pid >cmd.out 2>cmd.err
	st=$?
	like "$st: $(cat cmd.err)" \
		"^1: heapprof: process $pid \\(.*\\) belongs to user $owner: permission denied \\(only its owner or root may ask it\\)\$" \
		"$cmd: another user's process is refused: permission denied"
done
ok $([ -d /proc/$pid ]; echo $?) "the process is still alive"
is "$(ls p.*.heap 2>/dev/null | wc -l)" 0 "no dump was written"

if [ "$(id -u)" = 0 ]; then
	like "$(cat "run/$pid")" '^active=1$' "and sampling is unchanged"
	is "$(ls run | grep -c '^ctl\.')" 0 "no control file was made"
	kill -TERM $pid
	wait $pid

	# nobody's process, asked by root.
	chmod 711 "$T_DIR"
	mkdir nb
	chown 65534:65534 nb
	export HEAPPROF_RUNTIME_DIR=$T_DIR/nb/run
	setpriv --reuid=65534 --regid=65534 --clear-groups env HEAPPROF_CONF=prof_prefix:$T_DIR/nb/p \
		LD_PRELOAD=$LIB "$TP/sigowner" 60 own >out 2>err &
	pid=$!
	wait_for out '^ready'
	wait_for "nb/run/$pid" '^signal_control='
	path=$(timeout 20 "$BIN" dump $pid)
	is "$?" 0 "root may ask another user's process for a dump"
	is "$(stat -c %U "$path" 2>/dev/null)" nobody "which the process writes, as its user"
	is "$(timeout 20 "$BIN" pause $pid)" "$pid: sampling paused" "and pause it"
	# nobody may ask its own process.
	is "$(timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" resume $pid 2>&1)" \
		"$pid: sampling active" "the process's owner may ask it too"
	kill -TERM $pid
	wait $pid
else
	for i in 1 2 3 4 5 6; do
		echo "ok $((_t_num + 1)) # SKIP root asking another user's process needs root"
		_t_num=$((_t_num + 1))
	done
fi
done_testing
