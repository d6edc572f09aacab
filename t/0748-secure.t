#!/bin/sh
# Secure execution: a setuid-root copy of a program, linked with the
# library, run by user nobody (AT_SECURE).  heapprof ignores every
# configuration the environment offers (MALLOC_CONF, HEAPPROF_CONF,
# HEAPPROF_CONFIG, HEAPPROF_RUNTIME_DIR) and writes nowhere the invoking
# user chose: not in the directory it was started from (a relative
# prof_prefix or log_file is refused), not where the environment says.
# Only the system's /etc/heapprof/profiler.ini counts; the test puts one
# there in a private mount namespace (an overlay on /etc).
. "$(dirname "$0")/lib.sh"
plan 16

cp "$LIB" libheapprof.so
cc -I"$SRC/include" -o secure "$SRC/t/prog/secure.c" -L"$T_DIR" -Wl,--no-as-needed -lheapprof -Wl,-rpath,"$T_DIR" ||
	echo "Bail out! cannot build the setuid test program"
chmod 755 "$T_DIR"
chmod 4755 secure
mkdir home && chown nobody home
printf '[heapprof]\nprof_final = true\nprof_prefix = %s/home/fromini\nlog_file = %s/home/ini.log\n' \
	"$T_DIR" "$T_DIR" >home/user.ini
chown nobody home/user.ini

# as_nobody SCRIPT: runs sh -c SCRIPT in home as user nobody, with every
# heapprof variable pointing into home; in a mount namespace where
# /etc/heapprof/profiler.ini is $T_DIR/sysini (when it exists).
as_nobody() {
	timeout 30 unshare -m sh -c '
		if [ -e sysini ]; then
			mkdir -p up/heapprof work && cp sysini up/heapprof/profiler.ini &&
			mount -t overlay overlay -o lowerdir=/etc,upperdir=$PWD/up,workdir=$PWD/work /etc || exit 99
		fi
		cd home && exec setpriv --reuid=65534 --regid=65534 --clear-groups env \
			HEAPPROF_CONF="bogus:1,prof_final:true,prof_prefix:$PWD/hc,log_file:$PWD/hc.log" \
			MALLOC_CONF="prof_final:true,prof_prefix:$PWD/mc" \
			HEAPPROF_CONFIG=$PWD/user.ini HEAPPROF_RUNTIME_DIR=$PWD/run sh -c "$0"' "$1"
}

# Run by root, the same program honours the environment: the control.
(cd home && env HEAPPROF_CONF="bogus:1,prof_final:true,prof_prefix:$T_DIR/home/hc" \
	HEAPPROF_RUNTIME_DIR=$T_DIR/home/run timeout 20 ../secure) >ctl.out 2>ctl.err
like "$(cat ctl.out)" '^secure=0 uid=0 euid=0$' "control: run by its owner, not a secure-exec process"
like "$(cat ctl.err)" 'Invalid conf pair: bogus:1' "control: HEAPPROF_CONF is read"
ok $(ls home/hc.*.f.*.heap >/dev/null 2>&1; echo $?) "control: the dump goes where the environment says"
rm -rf home/hc.* home/run

# Run by nobody: setuid root, secure execution.
as_nobody ../secure >s.out 2>s.err
is "$?" 0 "setuid, run by nobody: exits 0"
like "$(cat s.out)" '^secure=1 uid=65534 euid=0$' "a secure-exec process (AT_SECURE), euid 0, uid nobody"
is "$(cat s.err)" "" "nothing on standard error: HEAPPROF_CONF and MALLOC_CONF are not read"
is "$(cd home && ls -A)" "user.ini" \
	"nothing written in the directory it was started from, nor where the environment or HEAPPROF_CONFIG say"

# The system's profiler.ini with relative paths: refused, in one line each.
printf '[heapprof]\nprof_prefix = rel/dump\nlog_file = rel.log\n' >sysini
as_nobody ../secure >s.out 2>s.err
is "$(grep -c . s.err)" 2 "the system profiler.ini with relative paths: two lines"
like "$(cat s.err)" '^<heapprof>: secure execution \(setuid, setgid or capabilities\): relative prof_prefix rel/dump refused, it would name a file in the directory the program was started from; no automatic dumps$' \
	"one for prof_prefix"
like "$(cat s.err)" '^<heapprof>: secure execution \(setuid, setgid or capabilities\): relative log_file rel.log refused, .*; messages go to standard error$' \
	"one for log_file"
is "$(cd home && ls -A)" "user.ini" "and still nothing in the starting directory"

# An absolute prefix in the system's file: the dump goes there, the
# program's owner's file.
mkdir sysdumps && chmod 700 sysdumps
printf '[heapprof]\nprof_prefix = %s/sysdumps/app\n' "$T_DIR" >sysini
as_nobody ../secure >s.out 2>s.err
dump=$(ls sysdumps/app.*.s0.*.heap 2>/dev/null)
ok $([ -n "$dump" ]; echo $?) "an absolute prof_prefix from /etc/heapprof/profiler.ini: the signal's dump is written there"
is "$(stat -c '%u %a' "$dump" 2>/dev/null)" "0 600" "owned by the effective uid, mode 0600"
like "$(cat s.err)" "^<heapprof>: dump $T_DIR/sysdumps/app\\." "its line on standard error"
is "$(cd home && ls -A)" "user.ini" "nothing in the starting directory"
rm -f sysini

# Without heapprof's handler the program would die of its SIGUSR1: it is
# heapprof's that ran in every case above.
"$TP/secure" >bare.out 2>&1
like "$(cat bare.out)" '^secure=0' "bare, the program does not signal itself"
done_testing
