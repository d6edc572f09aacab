#!/bin/sh
# t/golden/make-fixtures.sh -- rebuilds the golden tests' fixtures: the
# program t/golden/golden from golden.c, and the dumps in t/golden/dumps/
# written by running it under the library.  Not run by the test suite.
#
# Run it only when the fixtures must change on purpose (the dump format
# changed, or golden.c did), then regenerate the expected outputs and
# review every difference before committing:
#
#     make -j2 all                       # the library that writes the dumps
#     sh t/golden/make-fixtures.sh       # binary and dumps
#     HP_GOLDEN_UPDATE=1 HP_BUILD=$PWD/build HP_SRC=$PWD prove t/0460-report-golden.t
#     git diff t/golden                  # every change is a change in output
#
# Environment: HP_BUILD (default <source>/build) names the build directory
# whose libheapprof.so writes the dumps; CC (default cc) the compiler.
#
# The dumps name files by absolute path (MAPPED_LIBRARIES).  Here they are
# made independent of the machine: the directory of this script becomes
# @GOLDEN@, which the test replaces with its own t/golden; every other
# file (libc, ld.so, libheapprof.so, ...) becomes @GOLDEN@/absent/<name>,
# a file that does not exist, so that the report shows its frames as
# <name>+0x<offset> from the dump alone, whatever the machine's libc.
# Dump names carry no time (the test's copy's mtime is then when the dump
# was written, always after the binary was checked out) and, for trend,
# a sequence number.
set -eu

# -P: the kernel's maps show the real path, symbolic links resolved.
dir=$(cd "$(dirname "$0")" && pwd -P)
src=$(cd "$dir/../.." && pwd)
build=$(cd "${HP_BUILD:-$src/build}" && pwd)
lib=$build/libheapprof.so
[ -e "$lib" ] || { echo "make-fixtures: $lib is missing: run make" >&2; exit 1; }

# The binary: small, frame pointers, and DWARF that names the sources
# /heapprof-src/t/golden/golden.c rather than by this machine's path.
cd "$dir"
${CC:-cc} -std=gnu11 -D_GNU_SOURCE -Wall -O1 -g -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls -pthread -fdebug-prefix-map="$dir"=/heapprof-src/t/golden \
	-o golden golden.c

tmp=$(mktemp -d "${TMPDIR:-/tmp}/heapprof-golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p dumps
rm -f dumps/*.heap

# run NAME CONF ARG: one run of the program; its final dump, neutralised,
# becomes dumps/NAME.heap.
run() {
	(cd "$tmp" && rm -f d.*.heap &&
	 HEAPPROF_CONF=prof_final:true,prof_prefix:d,$2 LD_PRELOAD=$lib "$dir/golden" "$3" 2>/dev/null)
	set -- "$1" "$tmp"/d.*.f.*.heap
	[ $# -eq 2 ] && [ -e "$2" ] || { echo "make-fixtures: no dump for $1" >&2; exit 1; }
	DIR=$dir perl -pe '
		if (/^[0-9a-f]+-[0-9a-f]+ [-rwxps]{4} /) {
			s{(\s)\Q$ENV{DIR}\E/golden$}{$1\@GOLDEN\@/golden}
			  or s{(\s)/\S*?([^/\s]+)$}{$1\@GOLDEN\@/absent/$2};
		}' "$2" >"dumps/$1.heap"
	if grep -n ' /' "dumps/$1.heap" >&2; then
		echo "make-fixtures: a path is left in dumps/$1.heap" >&2
		exit 1
	fi
}

exact=lg_prof_sample:0
# The main dump: gperftools layout, with cumulative counts.
run gperf $exact,prof_accum:true 3
# The same program with less growth, as a --base.
run base $exact,prof_accum:true 1
# jemalloc's layout: per-thread rows with the threads' names.
run jemalloc $exact,dump_format:jemalloc 3
# Sampled (mean 4 KiB apart): values scaled back as jeprof does.
run sampled lg_prof_sample:12 8
# A series for trend, ordered by the sequence numbers in the names.
run series.1000.1.i1 $exact 1
run series.1000.2.i2 $exact 2
run series.1000.3.i3 $exact 3
run series.1000.4.f $exact 5
ls -l golden dumps
