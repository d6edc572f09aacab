# t/real/driver.sh -- the harness of `make check-real`: real programs' own
# test suites, each run three ways, and the results compared.  Sourced by
# t/real/*.t (one per suite) after t/lib.sh's helpers.
#
# The three ways ("modes") of running one invocation:
#   bare      no preload at all
#   default   LD_PRELOAD=libheapprof.so at the default sampling rate
#   exact     the same with HEAPPROF_CONF=lg_prof_sample:0 (every allocation)
# and a fourth a suite asks for by name, never part of $REAL_MODES:
#   check     heapprof check -- CMD: the leak gate's run (exact mode and the
#             leak scan at each exit of the tree); its own lines on standard
#             error start "heapprof check: "
# Both preloaded modes also set prof_prefix to a scratch directory, so a
# dump the program provokes (a stray SIGUSR1) lands there, never in the
# suite's own directories, and is counted.
#
# A suite turns each run into a result file: one line per test case, its
# name and its outcome, sorted.  real_compare then asserts that the
# preloaded modes give exactly the bare run's lines.  Wall times are
# measured and reported as ratios against the bare run of the same
# invocation: diagnostics, never assertions (the machine is shared).
#
# What a suite sees:
#   $REAL_OUT     build/real/runs/SUITE: outputs of the last run (kept for
#                 reading after a failure; overwritten by the next run)
#   $REAL_SUITE   the suite's name
#   real_run NAME MODE CMD...    runs CMD in MODE; NAME.MODE.{out,err,rc,ms}
#                                in $REAL_OUT
#   real_run_all NAME SECS CMD.. every mode and heapprof check, results
#                                and times (SECS: the kill timeout)
#   real_env MODE CMD...         runs CMD in MODE, nothing recorded
#   real_res NAME MODE           NAME.MODE.res from the last real_run of
#                                NAME in MODE: status, stdout, stderr
#   real_compare NAME WHAT [MODES]   ok/not ok per mode of MODES (default
#                                "default exact"): the files NAME.MODE.res
#                                equal NAME.bare.res
#   real_time NAME MS_BARE MS_DEFAULT MS_EXACT [MS_CHECK]   adds a row to
#                                the times (a check column when any row
#                                has one)
#   real_summary                 prints the times table and writes
#                                build/real/SUITE.summary
#   real_fact LINE               a line for the summary
#   real_diag LINE...            a diagnostic prove shows without -v

_real_t=$(cd "$(dirname "$0")" && pwd)
HP_BUILD=${HP_BUILD:-$(cd "$_real_t/../.." && pwd)/build}
. "$_real_t/../lib.sh"
SRC=$(cd "$_real_t/../.." && pwd)

REAL_SUITE=$(basename "$0" .t)
REAL_SUITE=${REAL_SUITE#[0-9][0-9]-}
REAL_OUT=$HP_BUILD/real/runs/$REAL_SUITE
REAL_MODES="bare default exact"
REAL_DUMPS=$T_DIR/dumps
rm -rf "$REAL_OUT"
mkdir -p "$REAL_OUT" "$REAL_DUMPS/default" "$REAL_DUMPS/exact"
: >"$T_DIR/times"

# A preloaded run's configuration; REAL_CONF_EXTRA (for example dump_keep:0)
# is appended to both preloaded modes.
real_conf() {
	case $1 in
	default) _c="prof_prefix:$REAL_DUMPS/default/$REAL_SUITE" ;;
	exact) _c="lg_prof_sample:0,prof_prefix:$REAL_DUMPS/exact/$REAL_SUITE" ;;
	esac
	printf '%s%s\n' "$_c" "${REAL_CONF_EXTRA:+,$REAL_CONF_EXTRA}"
}

real_env() {
	_m=$1
	shift
	case $_m in
	bare) env -u LD_PRELOAD -u HEAPPROF_CONF -u MALLOC_CONF "$@" ;;
	default | exact)
		env -u MALLOC_CONF LD_PRELOAD="$LIB" HEAPPROF_CONF="$(real_conf "$_m")" "$@" ;;
	check) env -u LD_PRELOAD -u HEAPPROF_CONF -u MALLOC_CONF "$BIN" check -- "$@" ;;
	*) echo "Bail out! real_env: unknown mode $_m"; exit 1 ;;
	esac
}

real_ms() { date +%s%3N; }

real_run() {
	_n=$1 _m=$2
	shift 2
	_o=$REAL_OUT/$_n.$_m
	_t0=$(real_ms)
	real_env "$_m" "$@" </dev/null >"$_o.out" 2>"$_o.err"
	echo $? >"$_o.rc"
	_t1=$(real_ms)
	echo $((_t1 - _t0)) >"$_o.ms"
	return "$(cat "$_o.rc")"
}

# real_res NAME MODE: NAME.MODE.res, the result of a program whose output
# is small and the same on every run: its status, standard output and
# standard error as they are, but for heapprof's own lines ("<heapprof>: "
# from the library, "heapprof check: " from the gate).
real_res() {
	_o=$REAL_OUT/$1.$2
	{
		echo "status $(cat "$_o.rc")"
		echo "stdout:"
		cat "$_o.out"
		echo "stderr:"
		grep -v -e '^<heapprof>: ' -e '^heapprof check: ' "$_o.err"
	} >"$_o.res"
}

# real_compare NAME WHAT [MODES]: NAME.bare.res against NAME.MODE.res for
# each of MODES (default and exact unless given), one assertion each; a
# difference is shown (first lines).
real_compare() {
	_n=$1 _what=$2
	for _m in ${3:-default exact}; do
		if cmp -s "$REAL_OUT/$_n.bare.res" "$REAL_OUT/$_n.$_m.res"; then
			ok 0 "$_n: $_what, $_m as bare"
		else
			ok 1 "$_n: $_what, $_m as bare"
			real_diag "$_n: diff bare $_m ($REAL_OUT/$_n.{bare,$_m}.res):" \
				"$(diff "$REAL_OUT/$_n.bare.res" "$REAL_OUT/$_n.$_m.res" | grep '^[<>]' | head -n 20)"
		fi
	done
}

# real_run_all NAME SECONDS CMD...: CMD bare, in both preloaded modes and
# under heapprof check, each killed after SECONDS; their results and a row
# of times.
real_run_all() {
	_n=$1 _tmo=$2
	shift 2
	for _m in $REAL_MODES check; do
		real_run "$_n" "$_m" timeout -s KILL "$_tmo" "$@"
		real_res "$_n" "$_m"
	done
	real_time "$_n" "$(cat "$REAL_OUT/$_n.bare.ms")" "$(cat "$REAL_OUT/$_n.default.ms")" \
		"$(cat "$REAL_OUT/$_n.exact.ms")" "$(cat "$REAL_OUT/$_n.check.ms")"
}

real_time() {
	echo "$1 $2 $3 $4${5:+ $5}" >>"$T_DIR/times"
}

# The times table: one row per invocation, then the totals; a check
# column when some row has a check time ("-" in the rows without; its
# total's ratio is against the bare times of the rows with one).
real_summary() {
	{
		awk 'NR == FNR { if (NF > 4) c = 1; next }
		function row(name, b, d, e, k, kb, has) {
			printf "%-36s %9.2f %9.2f %6.2f %9.2f %6.2f", name, b / 1000, d / 1000,
				(b > 0 ? d / b : 0), e / 1000, (b > 0 ? e / b : 0)
			if (c && has) printf " %9.2f %6.2f", k / 1000, (kb > 0 ? k / kb : 0)
			else if (c) printf " %9s %6s", "-", "-"
			printf "\n"
		}
		FNR == 1 {
			printf "%-36s %9s %9s %6s %9s %6s", "invocation", "bare s", "default", "ratio", "exact", "ratio"
			if (c) printf " %9s %6s", "check", "ratio"
			printf "\n"
		}
		{ row($1, $2, $3, $4, $5, $2, NF > 4); b += $2; d += $3; e += $4
		  if (NF > 4) { kb += $2; k += $5 } }
		END { row("TOTAL", b, d, e, k, kb, 1) }' "$T_DIR/times" "$T_DIR/times"
		for _m in default exact; do
			echo "dumps written ($_m): $(find "$REAL_DUMPS/$_m" -type f -name '*.heap' | wc -l)"
		done
		for _m in $REAL_MODES check; do
			[ "$_m" = check ] && ! ls "$REAL_OUT"/*.check.err >/dev/null 2>&1 && continue
			echo "heapprof messages on stderr ($_m): $(cat "$REAL_OUT"/*."$_m".err 2>/dev/null | grep -c '^<heapprof>: ')"
		done
		[ -s "$T_DIR/facts" ] && cat "$T_DIR/facts"
	} >"$HP_BUILD/real/$REAL_SUITE.summary"
	real_diag "$REAL_SUITE:" "$(cat "$HP_BUILD/real/$REAL_SUITE.summary")"
}

# real_diag LINE...: a diagnostic on standard error, which prove shows
# without -v.
real_diag() { diag "$@" >&2; }

# real_fact LINE: a line for the summary (counts a suite measured).
real_fact() { echo "$*" >>"$T_DIR/facts"; }
