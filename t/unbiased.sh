# t/unbiased.sh -- a sampled run's per-site estimates against the truth,
# within 5 standard deviations.  Sourced by t/0086 and t/0087 after
# lib.sh.
#
# At lg_prof_sample:14 (R = 16 KiB) an allocation of Z bytes is sampled
# with p = 1 - exp(-(Z+1)/R) (one byte more: malloc(0) has a chance)
# and then counts Z/p bytes and 1/p objects: each
# estimate is unbiased, with variance Z^2 (1-p)/p (bytes) or (1-p)/p
# (objects) per block, and a site's N blocks add up.  With hundreds of
# samples per site the estimate is close to normal: a correct profiler
# fails one check with probability under 6e-7, a test of 636 checks under
# 4e-4.  A path that samples more often than the countdown says, or
# weighs a block by another size than the one asked for, is off by far
# more.

LG=14
R=16384

# allocators: "" (glibc) and the three stacked ones, as t/0050 finds them.
allocators() {
	_d=$(dirname "$JEMALLOC")
	echo "glibc:"
	echo "jemalloc:$JEMALLOC"
	echo "tcmalloc:$_d/libtcmalloc_minimal.so.4"
	echo "mimalloc:$_d/libmimalloc.so.2"
}

# unbiased_run TAG ALLOCATOR PROG [ARGS]: runs PROG under the library
# stacked over ALLOCATOR (a path, or empty for glibc) at lg_prof_sample:14
# with prof_accum, and leaves jeprof's cumulative figures of the final
# dump in TAG.inuse_space, TAG.inuse_objects, TAG.alloc_space and
# TAG.alloc_objects.  Fails when ALLOCATOR is missing or no final dump
# is written.
unbiased_run() {
	_tag=$1 _alloc=$2 _prog=$3
	shift 3
	rm -f "$_tag".*
	if [ -n "$_alloc" ] && [ ! -e "$_alloc" ]; then
		diag "$_alloc is missing: run make deps"
		return 1
	fi
	HEAPPROF_CONF=lg_prof_sample:$LG,prof_accum:true,prof_final:true,prof_prefix:$_tag \
		LD_PRELOAD="$LIB${_alloc:+ $_alloc}" "$_prog" "$@" >"$_tag.out" 2>"$_tag.err"
	_dump=$(ls "$_tag".*.f.*.heap 2>/dev/null | head -n 1)
	[ -s "$_dump" ] || return 1
	for _type in inuse_space inuse_objects alloc_space alloc_objects; do
		jeprof --text --cum --show_bytes --"$_type" "$_prog" "$_dump" 2>/dev/null >"$_tag.$_type"
	done
}

# figure TAG TYPE FUNCTION: FUNCTION's cumulative TYPE figure (the
# function and all it called), or nothing when it is absent.
figure() {
	awk -v fn="$3" '$6 == fn { print $4; exit }' "$1.$2"
}

# unbiased_check NAME TAG FUNCTION TYPE COUNT SIZE: one test, that
# FUNCTION's TYPE figure is COUNT blocks of SIZE bytes within 5 standard
# deviations.
unbiased_check() {
	_name=$1 _tag=$2 _fn=$3 _type=$4 _n=$5 _z=$6
	_e=$(figure "$_tag" "$_type" "$_fn")
	_verdict=$(awk -v e="$_e" -v type="$_type" -v N="$_n" -v Z="$_z" -v R=$R 'BEGIN {
		p = 1 - exp(-(Z + 1) / R)
		bytes = type ~ /space/
		t = bytes ? N * Z : N
		s = sqrt((bytes ? N * Z * Z : N) * (1 - p) / p)
		# No figure: the estimate is 0 (no block of the site sampled),
		# judged as any other.
		if (e == "") e = 0
		d = e - t; if (d < 0) d = -d
		printf "%s %d %.2f", (d <= 5 * s ? "ok" : "off"), t, d / s }')
	set -- $_verdict
	if [ "$1" = ok ]; then
		ok 0 "$_name: $_fn $_type $_e vs $2 ($3 sd)"
	else
		ok 1 "$_name: $_fn $_type ${_e:-nothing} vs $2 ($3 sd)"
	fi
}

# unbiased_site NAME TAG FUNCTION COUNT SIZE: four tests: FUNCTION made
# COUNT blocks of SIZE bytes and freed every other one, so COUNT are
# allocated and the first, third, ... (COUNT - COUNT/2) live.
unbiased_site() {
	_live=$(($4 - $4 / 2))
	unbiased_check "$1" "$2" "$3" inuse_space $_live "$5"
	unbiased_check "$1" "$2" "$3" inuse_objects $_live "$5"
	unbiased_check "$1" "$2" "$3" alloc_space "$4" "$5"
	unbiased_check "$1" "$2" "$3" alloc_objects "$4" "$5"
}

# unbiased_sites NAME TAG COUNT "FUNCTION:SIZE ...": unbiased_site for
# each, COUNT blocks of SIZE bytes.
unbiased_sites() {
	for _s in $4; do
		unbiased_site "$1" "$2" "${_s%:*}" "$3" "${_s#*:}"
	done
}

# unbiased_zero NAME TAG FUNCTION COUNT: two tests, that FUNCTION's COUNT
# zero-byte blocks (COUNT - COUNT/2 of them live) are in the live and
# allocated objects.  jeprof has no row for blocks without bytes (it
# would divide by zero), so these figures are heapprof report's, from the
# dump's "# zero-size:" lines.
unbiased_zero() {
	_dump=$(ls "$2".*.f.*.heap 2>/dev/null | head -n 1)
	for _type in inuse_objects alloc_objects; do
		"$BIN" report --text --"$_type" "$_dump" 2>/dev/null >"$2.$_type"
	done
	unbiased_check "$1" "$2" "$3" inuse_objects $(($4 - $4 / 2)) 0
	unbiased_check "$1" "$2" "$3" alloc_objects "$4" 0
}
