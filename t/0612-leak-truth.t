#!/bin/sh
# The truth corpus of the leak gate: leaks whose exact size the program
# knows (t/prog/leaktruth.c, leaktruthcxx.cc: issue 20's mechanisms, each
# at every n % 16), under heapprof's library gate
# (lg_prof_sample:0,prof_leak:true,leak_check:reachable), valgrind
# memcheck (definitely + indirectly lost) and LeakSanitizer (the same
# source built with -fsanitize=leak: build/t/lsan/).  Every comparison is
# exact, bytes and blocks: each tool's direct, indirect and total against
# what the program says it dropped ("leaktruth: truth ..." on stderr),
# and heapprof's SUMMARY against its Direct and Indirect lines.  A failure
# prints, for each case that differs, the program's numbers, valgrind's,
# LeakSanitizer's and heapprof's side by side.
#
# One process per mode and tool: leaktruth forks a child per size, whose
# verdict follows its "leaktruth: case MODE N pid PID" line on stderr
# (valgrind: one log per pid).  heapprof runs over glibc (its verdict
# read from its report on stderr) and stacked over jemalloc, tcmalloc and
# mimalloc (LD_PRELOAD="libheapprof.so ALLOC"; its verdict read from the
# verdict file each process writes, which heapprof check reads, with the
# report off: it costs 35 ms a process); valgrind and LeakSanitizer
# replace the allocator, so they run once.  The shared_ptr cycle also runs
# under heapprof check --json.
#
# Where the tools are wrong, and what is compared there instead:
# - environ: valgrind frees the environment array (__libc_freeres) before
#   its scan, so a string only environ reaches is "definitely lost" for
#   it.  Checked as valgrind's known answer (N/1); heapprof is compared
#   with the program and LeakSanitizer (no leak).
# - churn: under valgrind an anonymous mapping that is not the program's
#   heap (0x4836000, below valgrind's preloaded vgpreload_memcheck) holds
#   a table of addresses that can fall inside a large dropped block (seed
#   1: 51,600 bytes and more into a 947,348-byte block, found with vgdb's
#   who_points_at), which valgrind then calls "possibly lost".  For churn
#   valgrind's total counts possibly lost too; it must still be exactly
#   the dropped bytes.
# - the shared_ptr cycle made in main itself: LeakSanitizer scans the main
#   thread's stack from where its exit handler runs, below main's dead
#   frame, finds the dead shared_ptrs there and reports nothing.  heapprof
#   is compared with the program and valgrind; LeakSanitizer's answer is
#   printed, not asserted.
. "$(dirname "$0")/lib.sh"

HP_CONF=lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_final:false
libdir=$(dirname "$JEMALLOC")
ALLOCS="glibc jemalloc tcmalloc mimalloc"
alloc_lib() {
	case $1 in
	glibc) echo "" ;;
	jemalloc) echo "$JEMALLOC" ;;
	tcmalloc) echo "$libdir/libtcmalloc_minimal.so.4" ;;
	mimalloc) echo "$libdir/libmimalloc.so.2" ;;
	esac
}
for a in $ALLOCS; do
	l=$(alloc_lib $a)
	[ -z "$l" ] || [ -e "$l" ] || { echo "Bail out! $l is missing: run make deps"; exit 1; }
done
[ -x "$TP/lsan/leaktruth" ] || { echo "Bail out! $TP/lsan/leaktruth is missing: run make tprogs"; exit 1; }
for c in valgrind setarch python3; do
	command -v $c >/dev/null || { echo "Bail out! $c is missing: run make deps"; exit 1; }
done

seq_() { awk -v a="$1" -v b="$2" 'BEGIN { for (i = a; i <= b; i++) printf "%d ", i }'; }

# The modes and their sizes: every n % 16 at least once, small (tcache,
# fastbins) and large (bins, top) where the mechanism differs.
cat >modes <<EOF
top        $(seq_ 1000 1015)
indirect   $(seq_ 5552 5567)
realloc    $(seq_ 4992 5007)
interleave $(seq_ 40 55) $(seq_ 2000 2015)
member     $(seq_ 16 31) $(seq_ 96 111) $(seq_ 185 200)
ptrarray   $(seq_ 24 39) $(seq_ 1000 1015)
environ    $(seq_ 64 79)
churn      $(seq_ 1 20)
EOF
VG_CHURN="1 2 3" # valgrind and LeakSanitizer: a few seeds of churn
# LeakSanitizer's numbers only: symbolizing its reports costs 0.1 s each.
LSAN_OPTIONS=symbolize=0
export LSAN_OPTIONS
CXX_RUNS=50

nmodes=$(wc -l <modes)
# glibc: valgrind, LSan, heapprof a mode; the other allocators: heapprof
# a mode; the cycle: LSan and valgrind once, heapprof (and check, glibc
# only) a variant and allocator.
plan $((6 * nmodes + 13))

# ---- the runs --------------------------------------------------------------

# sizes MODE: the sizes of MODE (churn: the seeds valgrind and LSan run).
sizes() { awk -v m="$1" '$1 == m { $1 = ""; print }' modes; }

# valgrind and LeakSanitizer: once a mode.  valgrind in the background, as
# the slowest.
(
	while read -r mode ns; do
		[ "$mode" = churn ] && ns=$VG_CHURN
		# shellcheck disable=SC2086
		valgrind --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=none \
			--log-file="$T_DIR/vg.$mode.%p.log" "$TP/leaktruth" "$mode" $ns >/dev/null 2>"$mode.vg.err"
	done <modes
	for v in fn main; do
		for n in 4088 4096; do
			valgrind --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=none \
				--log-file="$T_DIR/vg.$v.%p.log" "$TP/leaktruthcxx" $v $n >/dev/null 2>>"cxx.vg.err"
		done
	done
	touch vg.done
) &
vgjob=$!

while read -r mode ns; do
	[ "$mode" = churn ] && ns=$VG_CHURN
	# shellcheck disable=SC2086
	"$TP/lsan/leaktruth" "$mode" $ns >/dev/null 2>"$mode.lsan.err"
done <modes

# heapprof: every mode over every allocator.  Over glibc its verdict is
# read where a user reads it, in the report on stderr; stacked over the
# others, in the verdict file each process writes (what heapprof check
# reads), with the report off: symbolizing a report costs 35 ms a
# process, and the runs are many.
# hp_conf ALLOC BATCH / hp_kind ALLOC BATCH: the conf for heapprof over
# ALLOC, and how rows reads its verdicts: a directory of verdict files
# per allocator and batch (a pid of one batch comes back in another).
hp_conf() {
	if [ "$1" = glibc ]; then
		echo "$HP_CONF"
	else
		mkdir -p "$T_DIR/vf.$1.$2"
		echo "$HP_CONF,leak_report:false,prof_prefix:$T_DIR/vf.$1.$2/v"
	fi
}
hp_kind() { [ "$1" = glibc ] && echo hp || echo "vf.$1.$2"; }
for a in $ALLOCS; do
	while read -r mode ns; do
		# shellcheck disable=SC2086
		HEAPPROF_CONF=$(hp_conf $a $mode) LD_PRELOAD="$LIB $(alloc_lib $a)" \
			"$TP/leaktruth" "$mode" $ns >/dev/null 2>"$mode.hp.$a.err"
	done <modes
done

# Churn again, each seed in a process of its own: the runs above are
# forked children, whose heap, grown past the parent's, is a second
# [heap] mapping (the kernel does not merge it with the one fork copied).
for seed in $VG_CHURN; do
	HEAPPROF_CONF=$HP_CONF LD_PRELOAD=$LIB "$TP/leaktruth" churn $seed >/dev/null 2>>churn.hp.single.err
done

# The shared_ptr cycle: made in a function (fn) and in main itself, with
# and without ASLR, payloads alternating 4088 and 4096 (make_shared
# allocates 4120 and 4128 bytes: 8 and 0 modulo 16).
norand() { setarch "$(uname -m)" -R "$@"; }
cxx_runs() { # RUNS BINARY [PREFIX...]: the runs' stderr, one after another, in cur.err
	_runs=$1 _bin=$2
	shift 2
	for v in fn main; do
		_i=0
		while [ $_i -lt "$_runs" ]; do
			_n=$((4088 + 8 * (_i % 2)))
			"$@" "$_bin" $v $_n >/dev/null 2>>cur.err
			norand "$@" "$_bin" $v $_n >/dev/null 2>>cur.err
			_i=$((_i + 1))
		done
	done
}
for a in $ALLOCS; do
	: >cur.err
	cxx_runs $CXX_RUNS "$TP/leaktruthcxx" env HEAPPROF_CONF="$(hp_conf $a cxx)" LD_PRELOAD="$LIB $(alloc_lib $a)"
	mv cur.err cxx.hp.$a.err
done
# LeakSanitizer's binary, 5 runs of each (10 with and without ASLR).
: >cur.err
cxx_runs 5 "$TP/lsan/leaktruthcxx"
mv cur.err cxx.lsan.err

# heapprof check --json, as a CI user runs it: 10 runs of each variant.
for v in fn main; do
	for i in 1 2 3 4 5 6 7 8 9 10; do
		n=$((4088 + 8 * (i % 2)))
		"$BIN" check --json "check.$v.$i.json" -- "$TP/leaktruthcxx" $v $n >/dev/null 2>"check.$v.$i.err"
	done
done

wait $vgjob
[ -e vg.done ] || diag "valgrind's runs did not finish"

# ---- reading the verdicts --------------------------------------------------

# rows KIND ERR: one row per case in a stderr: "MODE N truth-total
# truth-direct truth-indirect tool-total tool-direct tool-indirect"
# (B/K each).  KIND hp: heapprof's SUMMARY and Direct/Indirect leak lines;
# vf.ALLOC.BATCH: heapprof's verdict file of the case's pid, in that
# directory (its total: direct + indirect; one of another program is
# "stale-verdict"); lsan: LeakSanitizer's; vg: valgrind's log of the
# case's mode and pid; vgp: the same with possibly lost counted in.
rows() {
	awk -v kind="$1" -v dir="$T_DIR" '
	function flush() {
		if (!have)
			return
		if (kind == "vg" || kind == "vgp")
			vglog(dir "/vg." mode "." pid ".log")
		if (kind ~ /^vf\./)
			verdict(dir "/" kind "/v." pid ".verdict", mode)
		printf "%s %s %s %s %s %s %d/%d %d/%d\n", mode, n, tt, td, ti,
			sb == "" ? "0/0" : sb, db, dk, ib, ik
		have = 0
	}
	function num(s) { gsub(/,/, "", s); return s + 0 }
	function verdict(f, mode,   line, a, i, n, kv, mine) {
		sb = "no-verdict"
		while ((getline line < f) > 0) {
			if (line ~ /^cmdline=/)
				mine = index(line " ", " " mode " ") > 0
			if (line !~ /^direct_bytes=/)
				continue
			n = split(line, a, /[ =]/)
			for (i = 1; i < n; i += 2)
				kv[a[i]] = a[i + 1]
			db = kv["direct_bytes"]; dk = kv["direct_objects"]
			ib = kv["indirect_bytes"]; ik = kv["indirect_objects"]
			sb = mine ? (db + ib) "/" (dk + ik) : "stale-verdict"
		}
		close(f)
	}
	function vglog(f,   line, a, seen) {
		sb = "no-log"
		while ((getline line < f) > 0) {
			if (line ~ /== (LEAK SUMMARY:|All heap blocks were freed)/)
				seen = 1
			if (split(line, a, " ") >= 8 && a[3] == "lost:" && a[5] == "bytes") {
				if (a[2] == "definitely") { db = num(a[4]); dk = num(a[7]) }
				if (a[2] == "indirectly") { ib = num(a[4]); ik = num(a[7]) }
				if (a[2] == "possibly" && kind == "vgp") { db += num(a[4]); dk += num(a[7]) }
			}
		}
		close(f)
		if (seen)
			sb = (db + ib) "/" (dk + ik)
	}
	$0 ~ /^leaktruth(cxx)?: case / { flush(); mode = $3; n = $4; pid = $6; have = 1
		tt = td = ti = "?"; sb = ""; db = dk = ib = ik = 0; next }
	$0 ~ /^leaktruth(cxx)?: truth / { tt = $6; td = $8; ti = $10; next }
	$0 ~ /^leaktruth: parent / { flush(); next }
	kind == "hp" && $1 == "<heapprof>:" && $3 == "leak" && $4 == "of" {
		if ($2 == "Direct") { db += $5; dk += $8 }
		if ($2 == "Indirect") { ib += $5; ik += $8 }
	}
	kind == "hp" && $1 == "<heapprof>:" && $2 == "SUMMARY:" && $3 == "heapprof:" { sb = $4 "/" $8 }
	kind == "lsan" && $2 == "leak" && $3 == "of" {
		if ($1 == "Direct") { db += $4; dk += $7 }
		if ($1 == "Indirect") { ib += $4; ik += $7 }
	}
	kind == "lsan" && $1 == "SUMMARY:" && $2 == "LeakSanitizer:" { sb = $3 "/" $7 }
	END { flush() }' "$2"
}

# wrong [split]: the rows on stdin that differ from the program's truth:
# the tool's total must be the truth's and its direct + indirect; with
# "split", its direct and indirect must be the truth's too (a cycle's
# direct half depends on the order a tool meets it: no split there).
wrong() {
	awk -v split_="${1:-}" '
	function add(x, y,   a, b) { split(x, a, "/"); split(y, b, "/"); return (a[1] + b[1]) "/" (a[2] + b[2]) }
	$3 == "?" || $6 != $3 || add($7, $8) != $6 || (split_ != "" && ($7 != $4 || $8 != $5))'
}

# table MODE ALLOC: the cases of MODE where heapprof over ALLOC, valgrind
# or LSan differs from the truth, side by side.
table() {
	awk -v m="$1" -v a="$2" '
	FILENAME ~ /\.vg\.rows$/ { vg[$1 " " $2] = $6 " (" $7 " + " $8 ")"; next }
	FILENAME ~ /\.lsan\.rows$/ { ls[$1 " " $2] = $6 " (" $7 " + " $8 ")"; next }
	{ k = $1 " " $2; order[++nk] = k; tr[k] = $3 " (" $4 " + " $5 ")"; hp[k] = $6 " (" $7 " + " $8 ")" }
	END {
		printf "%-16s| %-36s| %-36s| %-36s| %s\n", "case", "truth (direct + indirect)", "valgrind", "LeakSanitizer", "heapprof over " a
		for (i = 1; i <= nk; i++) {
			k = order[i]
			printf "%-16s| %-36s| %-36s| %-36s| %s\n", k, tr[k], (k in vg) ? vg[k] : "-", (k in ls) ? ls[k] : "-", hp[k]
		}
	}' "$1.vg.rows" "$1.lsan.rows" "$1.hp.$2.rows"
}

while read -r mode ns; do
	vk=vg
	[ "$mode" = churn ] && vk=vgp
	rows $vk "$mode.vg.err" >"$mode.vg.rows"
	rows lsan "$mode.lsan.err" >"$mode.lsan.rows"
	for a in $ALLOCS; do
		rows "$(hp_kind $a $mode)" "$mode.hp.$a.err" >"$mode.hp.$a.rows"
	done
done <modes

# count ROWS: how many cases.
count() { wc -l <"$1" | tr -d ' '; }

# check_rows NAME ROWS WANT-CASES MODE ALLOC: one test: every case there,
# none wrong; on failure the side-by-side table of the wrong cases.
check_rows() {
	_bad=$(wrong split <"$2")
	_n=$(count "$2")
	if [ -z "$_bad" ] && [ "$_n" -eq "$3" ]; then
		ok 0 "$1"
	else
		ok 1 "$1"
		diag "$_n of $3 cases read; wrong: $(printf '%s\n' "$_bad" | awk 'NF { printf "%s %s, ", $1, $2 }')"
		table "$4" "$5" >t.out
		diag "$(awk 'NR == 1' t.out)"
		printf '%s\n' "$_bad" | while read -r m n rest; do
			[ -n "$m" ] && diag "$(awk -v k="$m $n" 'substr($0, 1, length(k) + 1) == k " "' t.out)"
		done
	fi
}

# ---- valgrind and LeakSanitizer against the program -------------------------

while read -r mode ns; do
	nc=$(echo $ns | wc -w)
	[ "$mode" = churn ] && nc=$(echo $VG_CHURN | wc -w)
	if [ "$mode" = environ ]; then
		# valgrind's blind spot: the string environ holds is lost for it
		bad=$(awk '$6 != $2 "/1"' environ.vg.rows)
		ok $([ -z "$bad" ] && [ "$(count environ.vg.rows)" -eq "$nc" ]; echo $?) \
			"valgrind, environ: reports the string only environ reaches as lost (N/1), its known blind spot"
		[ -z "$bad" ] || diag "$bad"
	else
		check_rows "valgrind, $mode: definitely + indirectly lost are the program's, at every size ($nc cases)" \
			"$mode.vg.rows" "$nc" "$mode" glibc
	fi
	check_rows "LeakSanitizer, $mode: its leaks are the program's, at every size ($nc cases)" \
		"$mode.lsan.rows" "$nc" "$mode" glibc
done <modes

# ---- heapprof against the program, valgrind and LeakSanitizer ---------------

for a in $ALLOCS; do
	while read -r mode ns; do
		nc=$(echo $ns | wc -w)
		what="the program's, valgrind's and LeakSanitizer's"
		[ "$mode" = environ ] && what="the program's and LeakSanitizer's (not valgrind's)"
		[ "$mode" = churn ] && what="the dropped bytes, 20 seeds (forked children)"
		check_rows "heapprof over $a, $mode: its leaks are $what, at every size ($nc cases)" \
			"$mode.hp.$a.rows" "$nc" "$mode" "$a"
	done <modes
done

rows hp churn.hp.single.err >churn.hp.single.rows
check_rows "heapprof over glibc, churn, each seed in a process of its own (no fork): the dropped bytes ($(echo $VG_CHURN | wc -w) seeds)" \
	churn.hp.single.rows "$(echo $VG_CHURN | wc -w)" churn single

# ---- the shared_ptr cycle --------------------------------------------------

rows vg cxx.vg.err >cxx.vg.rows
rows lsan cxx.lsan.err >cxx.lsan.rows
is "$(wrong <cxx.vg.rows | wc -l | tr -d ' '):$(count cxx.vg.rows)" 0:4 \
	"valgrind, shared_ptr cycle in fn and in main, 4088 and 4096: the program's two blocks"
[ -z "$(wrong <cxx.vg.rows)" ] || diag "$(cat cxx.vg.rows)"
lfn=$(awk '$1 == "fn"' cxx.lsan.rows)
is "$(printf '%s\n' "$lfn" | wrong | wc -l | tr -d ' '):$(printf '%s\n' "$lfn" | wc -l | tr -d ' ')" 0:10 \
	"LeakSanitizer, shared_ptr cycle in fn: the program's two blocks, 10 of 10 runs (with and without ASLR)"
diag "LeakSanitizer, shared_ptr cycle in main itself (not asserted: it reads main's dead frame):" \
	"$(awk '$1 == "main" { n++; if ($6 == $3) c++ } END { printf "caught in %d of %d runs", c, n }' cxx.lsan.rows)"

# cxx_check ROWS NAME RUNS: the cycle caught, exactly, in every run: one
# test per variant; on failure, how many runs differ, by size and ASLR
# (the runs alternate: with ASLR, then without).
cxx_check() {
	for v in fn main; do
		awk -v v=$v '$1 == v { print $0, (++i % 2 ? "ASLR" : "no-ASLR") }' "$1" >cxx.v.rows
		nr=$(count cxx.v.rows)
		nb=$(wrong <cxx.v.rows | wc -l | tr -d ' ')
		ok $([ "$nb" -eq 0 ] && [ "$nr" -eq "$3" ]; echo $?) \
			"$2, shared_ptr cycle made in $v: exactly the program's (and valgrind's) two blocks, $3 of $3 runs"
		if [ "$nb" -ne 0 ] || [ "$nr" -ne "$3" ]; then
			diag "caught exactly in $((nr - nb)) of $nr runs; valgrind:$(awk -v v=$v '$1 == v { printf " %s %s;", $2, $6 }' cxx.vg.rows)" \
				"runs that differ: N, ASLR, truth, heapprof (direct + indirect)"
			wrong <cxx.v.rows | awk '{ print $2, $9, $3, $6 " (" $7 " + " $8 ")" }' | sort | uniq -c |
				while read -r l; do diag "$l"; done
		fi
	done
}
for a in $ALLOCS; do
	rows "$(hp_kind $a cxx)" cxx.hp.$a.err >cxx.hp.$a.rows
	cxx_check cxx.hp.$a.rows "heapprof over $a" $((2 * CXX_RUNS))
done

# heapprof check --json: the process's direct + indirect, 10 runs a variant.
for v in fn main; do
	got=$(for i in 1 2 3 4 5 6 7 8 9 10; do
		python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = [p for p in d["processes"] if p["counted"]]
print(sum(x["direct_bytes"] + x["indirect_bytes"] for x in p), sum(x["direct_objects"] + x["indirect_objects"] for x in p), sep="/")
' "check.$v.$i.json" 2>/dev/null || echo no-json
	done)
	want=$(for i in 1 2 3 4 5 6 7 8 9 10; do sed -n 's/^leaktruthcxx: truth [a-z]* [0-9]* total \([0-9/]*\) .*/\1/p' "check.$v.$i.err"; done)
	is "$(echo $got)" "$(echo $want)" "heapprof check --json, shared_ptr cycle made in $v: the program's two blocks, 10 of 10 runs"
done
done_testing
