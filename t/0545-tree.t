#!/bin/sh
# heapprof run on a shell script that starts three programs: by default
# every process's dumps land in the run directory (and heapprof report
# refuses to sum four processes without --merge); --only-top profiles the
# script's own process only, through its exec (as a version manager's
# shim execs the real program), and the programs it starts run without
# heapprof; --programs GLOB,... profiles the processes whose program
# matches.  The script's output is the same as bare each time.
. "$(dirname "$0")/lib.sh"
plan 19

cp "$TP/seed" one
cp "$TP/tiny" two
cp "$TP/seed" three
printf '#!/bin/sh\n%s/one\n%s/two\n%s/three\n' "$T_DIR" "$T_DIR" "$T_DIR" >tree.sh
printf '#!/bin/sh\n%s/one\n%s/two\nexec %s/three\n' "$T_DIR" "$T_DIR" "$T_DIR" >exec.sh
# A version manager's shim: forks of its own (command substitutions, a
# subshell, one stopped by SIGTERM), one of which runs a program, then the
# exec.
printf '#!/bin/sh\nv=$(echo 3.11)\n( : )\n( sleep 5; : ) & p=$!\nsleep 0.3\nkill -TERM $p; wait $p; echo "term: $?"\nm=$(grep -c libheapprof /proc/self/maps)\necho "maps: $m"\nexec %s/three\n' \
	"$T_DIR" >shim.sh
# Whether heapprof is mapped into a grandchild of the script (grep reads
# its own maps).
printf '#!/bin/sh\nsh -c "sh -c '"'"'grep -q libheapprof /proc/self/maps && echo loaded || echo absent'"'"'"\n' >deep.sh
chmod +x tree.sh exec.sh deep.sh shim.sh
./tree.sh >bare.out 2>&1
conf=lg_prof_sample:0,prof_final:true

# dumps DIR: "program.pid" of each dump in DIR, sorted.
dumps() { (cd "$1" && ls *.heap 2>/dev/null | cut -d. -f1,2 | sort | tr '\n' ' '); }
rundir() { set -- "$1"/heapprof-run.*; [ -d "$1" ] && echo "$1"; }

mkdir all
(cd all && "$BIN" run -c $conf ../tree.sh >out 2>err)
is "$?:$(cat all/out)" "0:$(cat bare.out)" "the script's output, under heapprof"
d=$(rundir all)
top=${d##*.}
progs=$(dumps "$d" | sed 's/\.[0-9]*//g')
is "$progs" "dash one three two " "every process's final dump in the one run directory: the shell and the three programs"
is "$(dumps "$d" | tr ' ' '\n' | grep -c "^dash\\.$top\$")" 1 "the shell's has the run's pid"
"$BIN" report "$d"/*.heap >out 2>err
like "$?:$(cat err)" '^2:heapprof report: the dumps come from 4 processes \(pids ' "report refuses four processes"
"$BIN" report --merge "$d"/*.heap >out 2>err
is "$?" 0 "and sums them with --merge"

# --only-top: the script's process only.
mkdir top
(cd top && "$BIN" run --only-top -c $conf ../tree.sh >out 2>err)
is "$?:$(cat top/out)" "0:$(cat bare.out)" "--only-top: the same output"
d=$(rundir top)
is "$(dumps "$d")" "dash.${d##*.} " "one dump: the shell's, with the run's pid"
mkdir exec
(cd exec && "$BIN" run --only-top -c $conf ../exec.sh >out 2>err)
is "$?:$(cat exec/out)" "0:$(cat bare.out)" "a script that execs its last program"
d=$(rundir exec)
is "$(dumps "$d")" "three.${d##*.} " "--only-top follows the exec: three's dump, with the run's pid"
like "$(tail -n 1 exec/err)" "^<heapprof>: the dumps of this run are in $T_DIR/exec/heapprof-run\\." \
	"three, in the run's process, names the run directory"
mkdir shim
(cd shim && "$BIN" run --only-top -c $conf ../shim.sh >out 2>err)
is "$?:$(head -n 2 shim/out | tr '\n' ' ')" "0:term: 143 maps: 0 " \
	"a shim's forks under --only-top: SIGTERM kills one as bare, the program one runs has no heapprof"
d=$(rundir shim)
is "$(dumps "$d")" "three.${d##*.} " "one dump: three's, with the run's pid; none from the shell's forks"
unlike "$(cat shim/err)" 'dump .*dash\.' "and no line about one"
mkdir deep
(cd deep && "$BIN" run --only-top ../deep.sh >out 2>err)
is "$(cat deep/out)" absent "--only-top: a grandchild runs without heapprof (its LD_PRELOAD no longer names it)"
(cd deep && "$BIN" run ../deep.sh >out 2>err)
is "$(cat deep/out)" loaded "(without --only-top it has heapprof)"

# --programs.
mkdir progs
(cd progs && "$BIN" run --programs 'two,th*' -c $conf ../tree.sh >out 2>err)
is "$?:$(cat progs/out)" "0:$(cat bare.out)" "--programs: the same output"
is "$(dumps "$(rundir progs)" | sed 's/\.[0-9]*//g')" "three two " "--programs 'two,th*': dumps of two and three only"
mkdir o
(cd o && "$BIN" run --programs 'o*' -c $conf ../tree.sh >out 2>err)
is "$(dumps "$(rundir o)" | sed 's/\.[0-9]*//g')" "one " "--programs 'o*': one's only"
"$BIN" run --programs 'a|b' ./tree.sh >out 2>err
like "$?:$(cat err)" "^2:heapprof run: --programs: a pattern cannot hold '\\|'" "'|' is refused (the library's separator)"
done_testing
