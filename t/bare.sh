# t/bare.sh -- a program's run under the library against its bare run (no
# preload): exit status, standard output, standard error without
# heapprof's own lines, and elapsed time.  Sourced by t/07*.t after
# lib.sh; the configuration is $conf, given as MALLOC_CONF (which glibc's
# allocator ignores, so the bare run sees it too).

conf=${conf:-}

# normalize: process IDs in the programs' "ready PID" and "daemon PID"
# lines become PID.
normalize() { sed -E 's/(ready|daemon) [0-9]+/\1 PID/'; }

# run_one TAG PRELOAD CMD...: runs CMD, under the library when PRELOAD is
# 1, killed after 20 s; leaves TAG.out (normalized), TAG.err (heapprof's
# lines removed), TAG.st (status) and TAG.ms (elapsed milliseconds).
run_one() {
	_tag=$1 _pre=$2
	shift 2
	_t0=$(date +%s%N)
	if [ "$_pre" = 1 ]; then
		MALLOC_CONF=$conf timeout -s KILL 20 env LD_PRELOAD="$LIB" "$@" >"$_tag.raw" 2>"$_tag.rawerr"
	else
		MALLOC_CONF=$conf timeout -s KILL 20 "$@" >"$_tag.raw" 2>"$_tag.rawerr"
	fi
	echo $? >"$_tag.st"
	echo $(( ($(date +%s%N) - _t0) / 1000000 )) >"$_tag.ms"
	normalize <"$_tag.raw" >"$_tag.out"
	grep -v '^<heapprof>: ' "$_tag.rawerr" >"$_tag.err"
}

# quick_enough: whether the last pre run ended within a second of the
# last bare run (a helper thread that kept the process alive, or woke
# only on its 1-second housekeeping, would not).
quick_enough() { [ "$(cat pre.ms)" -le $(( $(cat bare.ms) + 1000 )) ]; }

# compare NAME: four tests on the last bare and pre runs.  "As quick":
# quick_enough.
compare() {
	is "$(cat pre.st)" "$(cat bare.st)" "$1: exit status as bare ($(cat bare.st))"
	is "$(cat pre.out)" "$(cat bare.out)" "$1: standard output as bare"
	is "$(cat pre.err)" "$(cat bare.err)" "$1: standard error as bare, heapprof's lines aside"
	ok $(quick_enough; echo $?) "$1: as quick as bare ($(cat pre.ms) ms; bare $(cat bare.ms) ms)"
}

# same_as_bare NAME CMD...: runs CMD bare and preloaded and compares (4
# tests).  A pair that is not quick enough runs once more before it
# counts: a delay of heapprof's is in every run, a burst of load on the
# machine (make check runs two tests at once) seldom twice.
same_as_bare() {
	_name=$1
	shift
	run_one bare 0 "$@"
	run_one pre 1 "$@"
	if ! quick_enough; then
		diag "$_name: $(cat pre.ms) ms against bare $(cat bare.ms) ms; once more"
		cp pre.st pre.st1 && cp pre.out pre.out1 && cp pre.err pre.err1
		run_one bare 0 "$@"
		run_one pre 1 "$@"
		# The first pair's status and output are the ones compared.
		mv pre.st1 pre.st && mv pre.out1 pre.out && mv pre.err1 pre.err
	fi
	compare "$_name"
}

