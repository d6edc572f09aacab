#!/bin/sh
# Faults around the program, one case each, compared with the bare run:
# the program's status and output stay the same, heapprof says what it
# could not do in one clear line (in the log when standard error is
# gone), and nothing is written through a symbolic link.
#   dump directory read-only, full tmpfs, file-size limit, fd 2 closed,
#   stdout a closed pipe, symbolic links at the dump, temporary, state,
#   verdict and log names, runtime directory of another user, tight
#   RLIMIT_NOFILE and RLIMIT_AS, no /proc, the clock stepping back.
# Mounts are made in a private mount namespace (unshare -m; the suite
# runs as root).
. "$(dirname "$0")/lib.sh"
plan 34

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
PRE="LD_PRELOAD=$LIB"
"$TP/gate" leak >bare.out 2>bare.err
bare_st=$?
# run NAME CONF [prog args]: the gate program (or another) under the
# library, bounded, with the limits in $LIMITS (prlimit's options);
# status in NAME.st, output in NAME.out, NAME.err.
LIMITS=
run() {
	_n=$1 _c=$2
	shift 2
	[ $# -gt 0 ] || set -- "$TP/gate" leak
	timeout 20 prlimit $LIMITS env HEAPPROF_CONF="$_c" LD_PRELOAD=$LIB "$@" >"$_n.out" 2>"$_n.err"
	echo $? >"$_n.st"
}
# same NAME WHAT: status and output as bare.
same() {
	is "$(cat "$1.st") $(cat "$1.out")" "$bare_st $(cat bare.out)" "$2: status and output as bare"
}
heapprof_only() { grep -cv '^<heapprof>: ' "$1" ; }

# 1. The dump directory is read-only.
timeout 20 unshare -m sh -c "mkdir -p ro && mount -t tmpfs -o ro tmpfs ro &&
	HEAPPROF_CONF=prof_final:true,prof_prefix:$T_DIR/ro/d $PRE '$TP/gate' leak >ro.out 2>ro.err; echo \$? >ro.st"
same ro "read-only dump directory"
like "$(cat ro.err)" "^<heapprof>: dump failed \\(final\\): $T_DIR/ro/d\\.[0-9]+\\.0\\.f\\.[0-9TZ]+\\.heap: Read-only file system\$" \
	"one line: the dump and why"

# 2. A full tmpfs: no dump, no temporary left behind.
timeout 20 unshare -m sh -c "mkdir -p full && mount -t tmpfs -o size=64k tmpfs full &&
	dd if=/dev/zero of=full/fill bs=4k count=100 2>/dev/null;
	HEAPPROF_CONF=prof_final:true,lg_prof_sample:0,prof_prefix:$T_DIR/full/d $PRE '$TP/gate' leak >full.out 2>full.err;
	echo \$? >full.st; ls -A full >full.ls"
same full "full tmpfs"
like "$(cat full.err)" "^<heapprof>: dump failed \\(final\\): $T_DIR/full/d\\..*: No space left on device\$" "one line: no space"
is "$(cat full.ls)" fill "no temporary left in the full file system"

# 3. A file-size limit: the dump fails, SIGXFSZ does not kill the program
# (it did: status 153, its buffered output lost).
LIMITS=--fsize=2048 run fsize prof_final:true,lg_prof_sample:0,prof_prefix:$T_DIR/fs
same fsize "RLIMIT_FSIZE smaller than the dump"
like "$(cat fsize.err)" '^<heapprof>: dump failed \(final\): .*: File too large$' "one line: file too large"
is "$(ls -A | grep -c '^\.fs\.')" 0 "no temporary left behind"

# 4. Standard error closed at start, and a file of the program's at fd 2:
# nothing of heapprof's goes into it; with log_file, the log has it.
"$TP/fdtwo" bare.data 2>&-
fd_bare=$?
timeout 20 env HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true LD_PRELOAD=$LIB "$TP/fdtwo" fd.data 2>&-
is "$? $(cat fd.data)" "$fd_bare $(cat bare.data)" "fd 2 closed at start: status and the program's file at fd 2 as bare"
timeout 20 env HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,log_file:$T_DIR/fd.log LD_PRELOAD=$LIB \
	"$TP/fdtwo" fdlog.data 2>&-
is "$? $(cat fdlog.data)" "$fd_bare $(cat bare.data)" "with log_file too"
like "$(cat fd.log)" '<heapprof>: (Direct leak of 100 byte|Leak approximation summary)' "the log has the leak report"

# 5. Standard output a pipe whose reader is gone.
closed_pipe() { perl -e 'pipe(R, W) or die; close R; open(STDOUT, ">&W") or die; close W; exec @ARGV' "$@"; }
closed_pipe "$TP/gate" leak 2>cp-bare.err
cp_bare=$?
closed_pipe env HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true LD_PRELOAD=$LIB "$TP/gate" leak 2>cp.err
is "$?" "$cp_bare" "stdout a closed pipe: the same status as bare ($cp_bare)"
like "$(cat cp.err)" '^<heapprof>: Leak approximation summary' "heapprof's lines still reach standard error"

# 6. Symbolic links planted at every name heapprof writes: the final dump,
# its temporaries, the verdict, the state file and its temporaries, the
# log and its rotated names.  None is followed.
echo precious >victim
mkdir -p run links && chmod 700 run
cat >plant.sh <<'EOF'
# plant DIR/PREFIX: links at the names this very process (pid $$, which
# exec keeps) will write in the next few seconds.
now=$(date +%s)
for i in -1 0 1 2 3 4 5; do
	ts=$(date -u -d @$((now + i)) +%Y%m%dT%H%M%SZ)
	ln -s "$VICTIM" "links/p.$$.0.f.$ts.heap"
	for n in 1 2 3 4 5 6; do ln -s "$VICTIM" "links/.p.$$.0.f.$ts.heap.$$.$n.tmp"; done
done
ln -s "$VICTIM" "links/p.$$.verdict"
for n in 1 2 3 4 5 6; do ln -s "$VICTIM" "links/.p.$$.verdict.$$.$n.tmp"; done
ln -s "$VICTIM" "run/$$"
for n in 1 2 3 4 5 6; do ln -s "$VICTIM" "run/.$$.$$.$n.tmp"; done
for k in 1 2 3; do ln -s "$VICTIM" "links/app.log.$k"; done
exec "$@"
EOF
VICTIM=$T_DIR/victim timeout 20 sh plant.sh env \
	HEAPPROF_CONF="prof_final:true,lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_prefix:$T_DIR/links/p,log_file:$T_DIR/links/app.log,log_max_bytes:200,log_keep:3" \
	LD_PRELOAD=$LIB "$TP/gate" leak >links.out 2>links.err
is "$? $(cat links.out)" "$bare_st $(cat bare.out)" "symbolic links planted: status and output as bare"
is "$(cat victim)" precious "nothing written through any of them"
dump=$(find links -name 'p.*.f.*.heap' -type f)
ok $([ -n "$dump" ] && head -1 "$dump" | grep -q '^heap profile: '; echo $?) "the final dump is written, as a regular file in place of the link"
ok $([ -f "$(ls links/p.*.verdict)" ]; echo $?) "so is the verdict"
is "$(find links -name 'app.log*' -type l | wc -l)" 0 "the log's rotation replaced the links at its rotated names"

# 7. The runtime directory belongs to another user.
mkdir other && chown nobody other && chmod 700 other
HEAPPROF_RUNTIME_DIR=$T_DIR/other run other prof_prefix:x
same other "runtime directory owned by another user"
like "$(cat other.err)" "^<heapprof>: runtime directory $T_DIR/other is owned by uid [0-9]+, not by this process's uid 0: not used; heapprof ps finds this process by its memory map only\$" \
	"one line says so"
is "$(ls -A other)" "" "nothing written there"

# 8. A tight RLIMIT_NOFILE: the dump is written, or one line says why.
LIMITS=--nofile=8 run nofile prof_final:true,prof_prefix:$T_DIR/nf
same nofile "RLIMIT_NOFILE 8"
is "$(heapprof_only nofile.err)" 0 "only heapprof's lines on standard error"
ok $(ls nf.*.f.*.heap >/dev/null 2>&1 || grep -q '^<heapprof>: dump failed (final): .*: Too many open files$' nofile.err; echo $?) \
	"the dump is written, or one line says it could not be"

# 9. A 4 MiB RLIMIT_AS, under which the program starts fine bare: it did
# not start at all (libraries could not be mapped).
prlimit --as=4194304 "$TP/gate" leak >as-bare.out 2>as-bare.err
echo $? >as-bare.st
LIMITS=--as=4194304 run as prof_prefix:x
is "$(cat as.st) $(cat as.out)" "$(cat as-bare.st) $(cat as-bare.out)" "RLIMIT_AS 4 MiB: status and output as bare ($(cat as-bare.st))"
is "$(heapprof_only as.err)" 0 "only heapprof's lines on standard error"
diag "$(cat as.err)"

# 10. /proc not mounted: the program runs, the dump is written; one line
# says its mappings come from the dynamic loader.
timeout 20 unshare -m sh -c "umount -l /proc &&
	HEAPPROF_CONF=prof_final:true,lg_prof_sample:0,prof_leak:true,prof_prefix:$T_DIR/np $PRE '$TP/gate' leak >np.out 2>np.err;
	echo \$? >np.st"
same np "no /proc"
like "$(cat np.err)" '^<heapprof>: cannot read /proc/self/maps \(No such file or directory\): dumps list the loaded objects from the dynamic loader instead$' \
	"one line says the dump's mappings come from the dynamic loader"
ok $(head -1 np.*.f.*.heap | grep -q '^heap profile: '; echo $?) "the final dump is written"
like "$(cat np.err)" '^<heapprof>: Leak approximation summary: ~300 bytes' "the leak summary is right"

# 11. The wall clock steps back an hour under a running process (a clock
# of our own, preloaded first): dump names keep their order, so rotation
# keeps the newest (and the first); one line says so.
timeout 60 env CLOCKBACK_FILE=$T_DIR/clock-is-back HEAPPROF_CONF=prof_prefix:$T_DIR/ck,dump_keep:3 \
	LD_PRELOAD="$TP/libclockback.so $LIB" "$TP/idle" 30 >ck.out 2>ck.err &
tpid=$!
for i in $(seq 1 500); do grep -q ready ck.out 2>/dev/null && break; sleep 0.01; done
pid=$(sed -n 's/^ready //p' ck.out)
dump_n() {
	kill -USR1 $pid
	for i in $(seq 1 500); do ls ck.$pid.$1.s$1.*.heap >/dev/null 2>&1 && return; sleep 0.01; done
}
dump_n 0
dump_n 1
touch clock-is-back
dump_n 2
dump_n 3
dump_n 4
kill $pid
wait $tpid 2>/dev/null
is "$(ls ck.*.heap | sed 's/^ck\.[0-9]*\.\([0-9]\)\..*/\1/' | tr '\n' ' ')" "0 2 3 4 " \
	"after the clock stepped back, rotation keeps the three newest dumps (and the first)"
is "$(grep -c 'the clock stepped back' ck.err)" 1 "one line says the clock stepped back"
is "$(ls ck.*.heap | sed 's/.*\.\([0-9TZ]*\)\.heap/\1/' | sort | tr '\n' ' ')" \
	"$(ls ck.*.heap | sed 's/.*\.\([0-9TZ]*\)\.heap/\1/' | tr '\n' ' ')" "their names sort in the order they were written"
is "$(heapprof_only ck.err)" 0 "only heapprof's lines on standard error"

done_testing
