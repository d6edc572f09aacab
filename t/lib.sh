# t/lib.sh -- TAP helpers for heapprof's shell tests.  Sourced by t/*.t.
#
# Each test runs in its own scratch directory (removed at exit) with:
#   $LIB   the library under test      $TP   the test programs (build/t)
#   $SRC   the source tree              $BIN  the heapprof command
# and prints TAP: plan N, then ok/is/like/unlike, which count themselves.

set -u

SRC=$(cd "$(dirname "$0")/.." && pwd)
HP_BUILD=$(cd "${HP_BUILD:-$SRC/build}" 2>/dev/null && pwd) || HP_BUILD=$SRC/build
LIB=$HP_BUILD/libheapprof.so
BIN=$HP_BUILD/heapprof
TP=$HP_BUILD/t
JEMALLOC=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
[ -e "$JEMALLOC" ] || JEMALLOC=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -n 1)

for f in "$LIB" "$BIN"; do
	[ -e "$f" ] || { echo "Bail out! $f is missing: run make check"; exit 1; }
done

T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/heapprof-t.XXXXXX")
trap 'cd /; rm -rf "$T_DIR"' EXIT
cd "$T_DIR" || exit 1
# The report's symbol cache (src/report/symcache.h): each test file its
# own, empty at its start, so that no answer comes from another test or
# from an earlier run.
export HEAPPROF_CACHE="$T_DIR/.hp-cache"

_t_num=0
_t_failed=0

plan() { echo "1..$1"; }

# diag LINES...: on standard error, as Test::More's diag: a failure's
# details reach a non-verbose prove's output too (make check, CI).
diag() { printf '%s\n' "$@" | sed 's/^/# /' >&2; }

# ok STATUS NAME: passes when STATUS is 0.
ok() {
	_t_num=$((_t_num + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_t_num - $2"
	else
		echo "not ok $_t_num - $2"
		_t_failed=$((_t_failed + 1))
	fi
}

# is GOT WANT NAME
is() {
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		diag "got:  '$1'" "want: '$2'"
	fi
}

# like TEXT EXTENDED-REGEX NAME
like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		diag "no line matches: $2" "in:" "$1"
	fi
}

# unlike TEXT EXTENDED-REGEX NAME
unlike() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		ok 1 "$3"
		diag "unexpected match: $2" "in:" "$1"
	else
		ok 0 "$3"
	fi
}

# wait_for FILE REGEX [SECONDS]: until FILE has a line matching REGEX
# (10 s at most, or SECONDS); true if it has.
wait_for() {
	_n=0
	while ! grep -Eq -- "$2" "$1" 2>/dev/null; do
		_n=$((_n + 1))
		[ $_n -gt $(( ${3:-10} * 100 )) ] && return 1
		sleep 0.01
	done
}

# start_serve SECONDS [ARGS...]: heapprof serve ARGS on a free loopback
# port, ended after SECONDS, its output in serve.out and serve.err; sets
# srv (its pid) and, once it listens (20 s at most), url
# (http://127.0.0.1:PORT).
start_serve() {
	_secs=$1
	shift
	timeout --foreground "$_secs" "$BIN" serve --listen 127.0.0.1:0 "$@" >serve.out 2>serve.err &
	srv=$!
	wait_for serve.out 'listening' 20
	url=$(sed -n 's|^heapprof serve: listening on \(http://.*\)/$|\1|p' serve.out)
}

# wait_ready FILE: until a program has printed "ready PID" in FILE (10 s
# at most).
wait_ready() {
	n=0
	while ! grep -q '^ready ' "$1" 2>/dev/null && [ $n -lt 1000 ]; do
		sleep 0.01
		n=$((n + 1))
	done
}

# ready_pid FILE: wait_ready, then the PID it printed.
ready_pid() {
	wait_ready "$1"
	sed -n 's/^ready //p' "$1"
}

# prof CONF CMD...: runs CMD under the library with HEAPPROF_CONF=CONF.
prof() {
	_conf=$1
	shift
	HEAPPROF_CONF=$_conf LD_PRELOAD=$LIB "$@"
}

# jeprof_bytes PROGRAM DUMP FUNCTION [jeprof options]: the flat bytes
# jeprof --text --show_bytes gives FUNCTION (0 if absent).
jeprof_bytes() {
	_prog=$1 _dump=$2 _fn=$3
	shift 3
	jeprof --text --show_bytes "$@" "$_prog" "$_dump" 2>/dev/null |
		awk -v fn="$_fn" '$6 == fn { print $1; found = 1 } END { if (!found) print 0 }'
}

# sum_of KIND FILE: "bytes objects" of heapprof's KIND (Direct, Indirect)
# leaks in FILE, summed over its records.
sum_of() {
	sed -n "s/.*$1 leak of \([0-9]*\) byte(s) in \([0-9]*\) object(s).*/\1 \2/p" "$2" |
		awk '{ b += $1; o += $2 } END { print b + 0, o + 0 }'
}

# vg_of KIND FILE: "bytes objects" from valgrind's summary in FILE (KIND:
# definitely, indirectly).
vg_of() {
	sed -n "s/.*$1 lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 \2/p" "$2" | tr -d , |
		awk '{ b += $1; o += $2 } END { print b + 0, o + 0 }'
}

# one_file GLOB: the single file matching GLOB, or nothing.
one_file() {
	set -- $1
	[ $# -eq 1 ] && [ -e "$1" ] && printf '%s\n' "$1"
}

done_testing() {
	[ "$_t_failed" -eq 0 ]
	exit $?
}
