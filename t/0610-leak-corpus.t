#!/bin/sh
# The seeded-leak corpus against valgrind memcheck.  Each case of
# t/prog/leakcorpus.c, leakcxx.cc and leakso.c (+ libleak.c) runs bare,
# under valgrind --leak-check=full, and under heapprof's reachability leak
# check (lg_prof_sample:0,prof_leak:true,leak_check:reachable).
#
# First valgrind alone: its LEAK SUMMARY must give the numbers documented
# in the programs' top comments (so that a new compiler or libc that moves
# a pointer is noticed here, not mistaken for a heapprof bug).  Then
# heapprof: its Direct leak lines must add up to valgrind's "definitely
# lost", its Indirect leak lines to "indirectly lost", the SUMMARY line to
# the two together (no SUMMARY and no "leak of" line at all when nothing
# leaked), the top frame of every direct leak must name the allocating
# function, and the program's exit status and stdout must be as bare.
#
# One deliberate difference: a block whose only reference is an interior
# pointer (the "interior" case) is "possibly lost" for valgrind; heapprof,
# like LeakSanitizer, takes an interior pointer as a reference, so the
# block is not leaked.  "Possibly lost" is compared with the documented
# number only, never with heapprof (the "stack" and "threadexit" cases'
# possibly lost block is a running thread's DTV, which glibc points to 16
# bytes in: not a leak for heapprof either).
#
# The fork case is two processes sharing stderr: each prints its pid
# first, valgrind writes one log per pid, and the parent prints
# "... reaped child PID" once the child is gone: heapprof's lines above it
# are the child's, below it the parent's.
. "$(dirname "$0")/lib.sh"

HP_CONF=lg_prof_sample:0,prof_leak:true,leak_check:reachable

# The processes: name, command (under $TP), valgrind's definitely,
# indirectly and possibly lost as bytes/blocks, and an extended regex that
# the top frame (#0) of every direct leak must match ("-": no leak, so no
# "leak of" line at all).  fork-child and fork-parent are the one run of
# "leakcorpus fork".
cat >cases <<'EOF'
list        leakcorpus:list        32/1   288/9  0/0   in make_list[ (]
realloc     leakcorpus:realloc     5000/1 0/0    0/0   in grow_chain[ (]
thread      leakcorpus:thread      777/1  0/0    0/0   in thread_leak[ (]
indirect    leakcorpus:indirect    48/1   2000/1 0/0   in make_outer[ (]
global      leakcorpus:global      0/0    0/0    0/0   -
stack       leakcorpus:stack       0/0    0/0    272/1 -
_exit       leakcorpus:_exit       1234/1 0/0    0/0   in leak_before_exit[ (]
threadexit  leakcorpus:threadexit  4321/1 0/0    272/1 in worker_leak[ (]
cycle       leakcorpus:cycle       64/1   64/1   0/0   in make_cycle[ (]
interior    leakcorpus:interior    0/0    0/0    256/1 -
cxx         leakcxx                24/1   420/5  0/0   in make_strings[ (]
so          leakso                 3333/1 0/0    0/0   in libleak_make[ (].*libleak\.(so|c)
fork-child  leakcorpus:fork        2468/1 0/0    0/0   in child_leak[ (]
fork-parent leakcorpus:fork        0/0    0/0    0/0   -
EOF
nproc=$(wc -l <cases)
nruns=$(awk '{ print $2 }' cases | sort -u | wc -l)
# valgrind: 3 a process; heapprof: the conf is accepted, the fork split,
# status and stdout a run, then 4 a process.
plan $((3 * nproc + 2 + 2 * nruns + 4 * nproc))

# run NAME CMD...: CMD bare (NAME.bare.out, .rc), under valgrind
# (NAME.vg.PID.log per process, NAME.vg.out, .err) and under heapprof
# (NAME.hp.out, .err, .rc).
run() {
	_n=$1
	shift
	"$@" >"$_n.bare.out" 2>"$_n.bare.err"
	echo $? >"$_n.bare.rc"
	valgrind --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=none \
		--trace-children=yes --log-file="$T_DIR/$_n.vg.%p.log" \
		"$@" >"$_n.vg.out" 2>"$_n.vg.err"
	prof "$HP_CONF" "$@" >"$_n.hp.out" 2>"$_n.hp.err"
	echo $? >"$_n.hp.rc"
}

# vg_lost LOG KIND: valgrind's "KIND lost: B bytes in N blocks" as B/N
# (0/0 when it found no leak at all; "no-log" when LOG is not valgrind's).
vg_lost() {
	if [ ! -f "$1" ] || ! grep -Eq '== (LEAK SUMMARY:|All heap blocks were freed)' "$1"; then
		echo no-log
		return
	fi
	_r=$(sed -n "s/^==[0-9]*== *$2 lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks\$/\1\/\2/p" "$1" | tr -d ,)
	echo "${_r:-0/0}"
}

# hp_lost ERR Direct|Indirect: the sum of heapprof's "KIND leak of B
# byte(s) in N object(s)" lines, as B/N.
hp_lost() {
	awk -v k="$2" '$1 == "<heapprof>:" && $2 == k && $3 == "leak" && $4 == "of" { b += $5; n += $8 }
		END { printf "%d/%d\n", b, n }' "$1"
}

# hp_summary ERR: heapprof's SUMMARY line as B/N, nothing without one.
hp_summary() {
	sed -n 's|^<heapprof>: SUMMARY: heapprof: \([0-9]*\) byte(s) leaked in \([0-9]*\) allocation(s)\.$|\1/\2|p' "$1"
}

# hp_tops ERR: the top frame (#0) of each direct leak, one a line.
hp_tops() {
	awk '$1 == "<heapprof>:" && $2 == "Direct" && $3 == "leak" { want = 1; next }
		want && $1 == "<heapprof>:" && $2 == "#0" { print; want = 0 }' "$1"
}

add() { # add B/N B/N: their sum, B/N
	echo "$1 $2" | awk '{ split($1, a, "/"); split($2, b, "/"); printf "%d/%d\n", a[1] + b[1], a[2] + b[2] }'
}

# Every run, once.
for cmd in $(awk '{ print $2 }' cases | sort -u); do
	# shellcheck disable=SC2046
	run "$(echo "$cmd" | tr : -)" "$TP/$(echo "$cmd" | cut -d: -f1)" $(echo "$cmd" | cut -s -d: -f2)
done

# The fork run's two processes: pids from the program's stderr, heapprof's
# stderr split at the parent's "reaped" line.
f=leakcorpus-fork
child=$(sed -n 's/^leakcorpus: fork: child \([0-9]*\)$/\1/p' $f.vg.err)
parent=$(sed -n 's/^leakcorpus: fork: parent \([0-9]*\)$/\1/p' $f.vg.err)
sed '/^leakcorpus: fork: parent [0-9]* reaped child [0-9]*$/,$d' $f.hp.err >fork-child.hp.err
sed '1,/^leakcorpus: fork: parent [0-9]* reaped child [0-9]*$/d' $f.hp.err >fork-parent.hp.err

# vglog NAME CMD / hperr NAME CMD: a process's valgrind log and heapprof stderr.
vglog() {
	case $1 in
	fork-child) echo "$f.vg.$child.log" ;;
	fork-parent) echo "$f.vg.$parent.log" ;;
	*) one_file "$(echo "$2" | tr : -).vg.*.log" ;;
	esac
}
hperr() {
	case $1 in
	fork-*) echo "$1.hp.err" ;;
	*) echo "$(echo "$2" | tr : -).hp.err" ;;
	esac
}

# ---- valgrind: the documented numbers --------------------------------------

while read -r name cmd def ind poss top; do
	log=$(vglog "$name" "$cmd")
	is "$(vg_lost "$log" definitely)" "$def" "valgrind, $name: definitely lost $def"
	is "$(vg_lost "$log" indirectly)" "$ind" "valgrind, $name: indirectly lost $ind"
	is "$(vg_lost "$log" possibly)" "$poss" "valgrind, $name: possibly lost $poss"
done <cases

# ---- heapprof against valgrind ---------------------------------------------

unlike "$(cat leakcorpus-list.hp.err)" 'Invalid conf pair' "heapprof knows $HP_CONF"
like "$(cat $f.hp.err)" '^leakcorpus: fork: parent [0-9]+ reaped child [0-9]+$' \
	"fork: the parent's stderr under heapprof says when the child is gone"

for cmd in $(awk '{ print $2 }' cases | sort -u); do
	n=$(echo "$cmd" | tr : -)
	c=$(echo "$cmd" | tr : ' ')
	is "$(cat "$n.hp.rc")" "$(cat "$n.bare.rc")" "heapprof, $c: the exit status is the program's ($(cat "$n.bare.rc"))"
	is "$(cat "$n.hp.out")" "$(cat "$n.bare.out")" "heapprof, $c: stdout is the program's"
done

while read -r name cmd def ind poss top; do
	log=$(vglog "$name" "$cmd")
	err=$(hperr "$name" "$cmd")
	vdef=$(vg_lost "$log" definitely)
	vind=$(vg_lost "$log" indirectly)
	hdef=$(hp_lost "$err" Direct)
	hind=$(hp_lost "$err" Indirect)
	is "$hdef" "$vdef" "heapprof, $name: direct leaks $hdef, valgrind definitely lost $vdef"
	is "$hind" "$vind" "heapprof, $name: indirect leaks $hind, valgrind indirectly lost $vind"
	sum=$(add "$hdef" "$hind")
	[ "$sum" = 0/0 ] && sum=
	is "$(hp_summary "$err")" "$sum" "heapprof, $name: the SUMMARY line is their sum${sum:- (none: nothing leaked)}"
	if [ "$top" = - ]; then
		why=
		[ "$name" = interior ] && why=" (valgrind: possibly lost; an interior pointer is a reference)"
		unlike "$(cat "$err")" ' leak of ' "heapprof, $name: not a leak, no 'leak of' line$why"
	else
		tops=$(hp_tops "$err")
		ok $([ -n "$tops" ] && ! printf '%s\n' "$tops" | grep -Evq -- "$top"; echo $?) \
			"heapprof, $name: the top frame of each direct leak matches '$top'"
		[ -n "$tops" ] && ! printf '%s\n' "$tops" | grep -Evq -- "$top" || diag "top frames:" "$tops"
	fi
done <cases
done_testing
