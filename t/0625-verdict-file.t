#!/bin/sh
# The verdict file: with prof_leak and leak_check:reachable, every process
# leaves <prefix>.<pid>.verdict at exit (src/lib/leak/verdictfile.h has
# its layout), leaked or clean; a program that closed its standard error
# leaves its report there, and nothing is written to the closed
# descriptor.
. "$(dirname "$0")/lib.sh"
plan 26

REACH=lg_prof_sample:0,prof_leak:true,leak_check:reachable

# run_bg CONF PROGRAM ARGS...: runs it under the library; $pid is its pid.
run_bg() {
	_conf=$1
	shift
	HEAPPROF_CONF=$_conf LD_PRELOAD=$LIB "$@" >out 2>err &
	pid=$!
	wait $pid
	st=$?
}

# ---- a leak: the header, the totals, the blocks ----------------------------
run_bg "$REACH,prof_prefix:$T_DIR/v/run" "$TP/gate" leak "two words"
v=v/run.$pid.verdict
ok $([ -f "$v" ]; echo $?) "the verdict is <prefix>.<pid>.verdict, its directory created"
is "$(stat -c %a "$v")" 600 "mode 0600, like the dumps"
is "$(sed -n 1p "$v")" "heapprof-verdict 1" "the first line names the layout and its version"
is "$(sed -n 's/^pid=//p' "$v"):$(sed -n 's/^program=//p' "$v")" "$pid:$TP/gate" "pid= and program= (/proc/self/exe)"
is "$(sed -n 's/^cmdline=//p' "$v")" "$TP/gate leak two words" "cmdline= has the arguments, separated by spaces"
is "$(sed -n 's/^status=//p' "$v")" 0 "status= is the exit status the program asked for"
is "$(grep '^direct_bytes=' "$v")" "direct_bytes=200 direct_objects=2 indirect_bytes=0 indirect_objects=0" \
	"the totals: valgrind's definitely lost"
is "$(grep -c '^suppressed_bytes=0 suppressed_objects=0$' "$v"):$(grep -c '^threads=0 threads_stopped=0$' "$v")" "1:1" \
	"what suppressions took, and the threads stopped"
is "$(grep '^leak ' "$v")" "leak direct 200 2" "one leak block: kind, bytes, objects"
is "$(grep -c '^end$' "$v")" 1 "closed by end"
first=$(grep -m1 '^frame ' "$v")
like "$first" "^frame 0x[0-9a-f]+ $TP/gate 0x[0-9a-f]+ leak_some\$" \
	"a frame: pc, object, address in the object, function"
addr=$(printf '%s\n' "$first" | cut -d' ' -f4)
is "$(addr2line -f -e "$TP/gate" "$addr" | head -n 1)" leak_some \
	"the address is the ELF file's own: addr2line -e OBJECT takes it"
is "$(sed -n '/^leak /,/^end$/p' "$v" | sed -n 3p | cut -d' ' -f5)" main "then the caller"

# ---- the program's own status; estimates at a sampled rate ----------------
run_bg "$REACH,prof_prefix:$T_DIR/s" "$TP/gate" status
is "$st:$(sed -n 's/^status=//p' s.$pid.verdict)" "3:3" "status=3 when the program exits with 3"
run_bg "$REACH,prof_prefix:$T_DIR/e,prof_leak_error:true" "$TP/gate" leak
is "$st:$(sed -n 's/^status=//p' e.$pid.verdict)" "1:0" \
	"prof_leak_error changes the status; the file keeps the one the program asked for"
run_bg "lg_prof_sample:10,prof_leak:true,leak_check:reachable,prof_prefix:$T_DIR/smp" "$TP/seed"
like "$(sed -n '6p' smp.$pid.verdict)" '^sampled=10 blocks=1[01][0-9]$' \
	"at a sampled rate: the counts that follow are estimates from the sampled blocks"

# ---- clean ------------------------------------------------------------------
run_bg "$REACH,prof_prefix:$T_DIR/c" "$TP/gate" clean
is "$(grep '^direct_bytes=' c.$pid.verdict):$(grep -c '^leak ' c.$pid.verdict)" \
	"direct_bytes=0 direct_objects=0 indirect_bytes=0 indirect_objects=0:0" \
	"a clean program leaves a file too: all zero, no leak block"

# ---- standard error closed --------------------------------------------------
run_bg "$REACH,prof_prefix:$T_DIR/n" "$TP/gate" nostderr
is "$(grep '^leak ' n.$pid.verdict)" "leak direct 200 2" "stderr closed: the leak is in the file"
if strace -o /dev/null true 2>/dev/null; then
	HEAPPROF_CONF=$REACH,prof_prefix:$T_DIR/n2 strace -f -e trace=write -o trace \
		env LD_PRELOAD=$LIB "$TP/gate" nostderr >out 2>&1
	is "$(grep -c 'write(2,' trace)" 0 "nothing is written to the closed descriptor"
else
	ok 0 "# SKIP strace cannot trace here"
fi
run_bg "$REACH,prof_prefix:$T_DIR/n3,log_file:$T_DIR/n3.log" "$TP/gate" nostderr
like "$(cat n3.log)" 'Direct leak of 200 byte' "with a log_file, the report still goes there"

# ---- leak_report:false, prof_final:false: the file is the only record -------
run_bg "$REACH,prof_prefix:$T_DIR/q/q,leak_report:false,prof_final:false" "$TP/gate" leak
is "$st:$(cat err)" "0:" "leak_report:false: nothing printed"
is "$(grep '^leak ' q/q.$pid.verdict):$(ls q | grep -c '\.heap$')" "leak direct 200 2:0" \
	"the verdict is written; prof_final:false stands with leak_check:reachable (no dump)"
run_bg "lg_prof_sample:0,prof_leak:true,leak_check:live,prof_prefix:$T_DIR/l/l,prof_final:false" "$TP/gate" clean
like "$(cat err)" 'prof_leak needs the final dump: prof_final:false ignored' \
	"with leak_check:live the final dump is still implied"
run_bg "$REACH,prof_prefix:$T_DIR/q2,leak_report:false,prof_leak_error:true" "$TP/gate" leak
is "$st:$(cat err)" "1:" "leak_report:false keeps the gate, silently"

# ---- escapes ------------------------------------------------------------------
mkdir "sp ace"
cp "$TP/gate" "sp ace/gate"
run_bg "$REACH,prof_prefix:$T_DIR/x" "$T_DIR/sp ace/gate" leak "$(printf 'a\tb')"
like "$(grep -m1 '^frame ' x.$pid.verdict)" "^frame 0x[0-9a-f]+ $T_DIR/sp\\\\x20ace/gate 0x[0-9a-f]+ leak_some\$" \
	"a space in an object's path is \\x20"
is "$(sed -n 's/^cmdline=//p' x.$pid.verdict)" "$T_DIR/sp ace/gate leak a?b" "a control byte in cmdline is '?'"
done_testing
