#!/bin/sh
# Allocator frames are trimmed as jeprof trims them: every frame up to and
# including the outermost allocator frame goes.  Real dumps written by
# jemalloc's own profiler (which keeps its frames), and a synthetic dump
# with a symbol section that spells allocator functions every way they
# appear: plain, versioned, mangled, demangled, je_/tc_ prefixed, GCC
# clones, glibc's internal names, and frames inside libheapprof.so.
. "$(dirname "$0")/lib.sh"
# Offline: elfutils would ask debuginfod servers for missing debug files.
unset DEBUGINFOD_URLS
plan 13

flat() { awk -v fn="$1" '$6 == fn { print $1; f = 1 } END { if (!f) print 0 }'; }

# ---- jemalloc's own dumps ------------------------------------------------
LD_PRELOAD=$JEMALLOC MALLOC_CONF=prof:true,lg_prof_sample:0,prof_final:true,prof_prefix:je \
	"$TP/seed" >/dev/null
je=$(one_file 'je.*.f.*heap')
is "$(sed -n 1p "$je")" "heap_v2/1" "jemalloc wrote a dump"
"$BIN" report --show-bytes "$je" >r
is "$(grep -c 'jemalloc' r)" 0 "no frame of libjemalloc is left"
is "$(flat malloc <r)" 0 "nor malloc"
is "$(flat do_something <r)" "$(jeprof_bytes "$TP/seed" "$je" do_something)" \
	"do_something's bytes are jeprof's"
is "$(flat do_something_else <r)" "$(jeprof_bytes "$TP/seed" "$je" do_something_else)" \
	"do_something_else's bytes are jeprof's"

LD_PRELOAD=$JEMALLOC MALLOC_CONF=prof:true,lg_prof_sample:0,prof_final:true,prof_prefix:jx \
	"$TP/rep_cxx"
"$BIN" report --show-bytes "$(one_file 'jx.*.f.*heap')" >x
is "$(flat store::Pool::make <x)" 1280 "C++ over jemalloc: operator new is trimmed"

# ---- every spelling ------------------------------------------------------
# Stack i: <allocator name i> <- user_i <- main, 100 bytes each.
cat >names <<'EOF'
malloc
calloc
realloc
free
memalign
posix_memalign
aligned_alloc
valloc
pvalloc
malloc@@GLIBC_2.2.5
__libc_malloc
operator new(unsigned long)
operator new[](unsigned long)
operator new(unsigned long, std::nothrow_t const&)
operator new(unsigned long, std::align_val_t)
_Znwm@@GLIBCXX_3.4
_Znam
_ZnwmRKSt9nothrow_t
_ZnwmSt11align_val_t
je_malloc
je_calloc
je_malloc_default
je_prof_backtrace
imalloc_body.constprop.0
prof_backtrace_impl
mallocx
tc_malloc
tc_newarray
tcmalloc::allocate_full_cpp_throw_oom(unsigned long)
EOF
{
	echo '--- symbol'
	i=0
	while IFS= read -r name; do
		printf '0x%x %s\n0x%x user_%d\n' $((0x10000 + i * 256)) "$name" \
			$((0x20000 + i * 256)) $i
		i=$((i + 1))
	done <names
	echo '0x30000 main'
	echo '0x40000 my_malloc_wrapper'
	echo '0x50000 inner_helper'
	echo '0x51000 outer_wrapper'
	echo '0x60000 user_lib'
	echo '0x70000 heapprof_unwind_failed'
	echo '---'
	echo 'heap profile: 1: 100 [0: 0] @ heap_v2/1'
	i=0
	while IFS= read -r name; do
		printf '1: 100 [0: 0] @ 0x%x 0x%x 0x30001\n' $((0x10000 + i * 256)) \
			$((0x20000 + i * 256 + 1))
		i=$((i + 1))
	done <names
	echo '1: 100 [0: 0] @ 0x40000 0x30001'
	echo '1: 100 [0: 0] @ 0x50000 0x10001 0x51001 0x30001'
	echo '1: 100 [0: 0] @ 0x7f0000001000 0x7f0000002001 0x60001 0x30001'
	echo '1: 100 [0: 0] @ 0x70000'
	echo
	echo 'MAPPED_LIBRARIES:'
	echo '7f0000000000-7f0000100000 r-xp 00000000 fe:00 1234    /nonexistent/libheapprof.so'
} >trim.heap
"$BIN" report --show-bytes trim.heap >t 2>terr
is $? 0 "the synthetic dump is read"
n=$(wc -l <names | tr -d ' ')
users=$(awk '$6 ~ /^user_[0-9]+$/ && $1 == 100' t | wc -l | tr -d ' ')
is "$users" "$n" "each of the $n allocator spellings is trimmed: user_N holds the bytes"
leftover=$(awk 'NR > 2 { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }' t |
	grep -Fx -f names)
is "$leftover" "" "no allocator name is left in the report"
is "$(flat my_malloc_wrapper <t)" 100 "a user function with malloc in its name stays"
is "$(flat outer_wrapper <t)" 100 "frames up to the outermost allocator frame go, inner_helper too"
is "$(flat user_lib <t)" 100 "frames in libheapprof.so go, named or not"
is "$(flat heapprof_unwind_failed <t)" 100 "heapprof's 'unwinding failed' marker stays"
done_testing
