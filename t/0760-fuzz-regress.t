#!/bin/sh
# Fuzzing's regression test (make fuzz is the fuzzing; t/fuzz/fuzz.mk).
# Every fuzz target runs, without libFuzzer (t/fuzz/driver.c), on its seed
# corpus t/fuzz/corpus/NAME/ and on every input that once crashed it or a
# sanitizer, t/fuzz/regress/NAME/.  Then each of those inputs goes where a
# user would put it: profiler.ini and MALLOC_CONF into a program under the
# library (status and output as bare), suppressions into the leak gate,
# dumps into heapprof report and trend, verdict files into heapprof check
# (a clean refusal or a report, never a signal); dumps and series also
# under valgrind's memcheck, which sees a read of uninitialised memory
# whatever the stack happened to hold.
. "$(dirname "$0")/lib.sh"

export HP_SRC="$SRC"
targets="conf ini suppress report trend verdict"

# ---- the targets on their corpora and regression inputs -------------------
for t in $targets; do
	set -- "$SRC/t/fuzz/corpus/$t"
	[ -d "$SRC/t/fuzz/regress/$t" ] && set -- "$@" "$SRC/t/fuzz/regress/$t"
	timeout 300 "$TP/fuzz/$t" "$@" >out 2>err
	st=$?
	ok $st "fuzz target $t: its corpus and regression inputs run (status $st)"
	[ $st -eq 0 ] || diag "$(tail -n 15 err)"
done

regress() {
	ls "$SRC/t/fuzz/regress/$1"/* 2>/dev/null
}

# only_heapprof_lines FILE: every line of FILE is one of the library's.
only_heapprof_lines() {
	! grep -qv '^<heapprof>: ' "$1"
}

# ---- the library: profiler.ini, MALLOC_CONF/HEAPPROF_CONF ------------------
bare_out=$(timeout 20 "$TP/seed" 2>/dev/null)
bare_st=$?
for f in $(regress ini); do
	HEAPPROF_CONFIG=$f LD_PRELOAD=$LIB timeout 20 "$TP/seed" >out 2>err
	st=$?
	is "$st:$(cat out)" "$bare_st:$bare_out" "profiler.ini ${f##*/}: status and output as bare"
	ok $(only_heapprof_lines err; echo $?) "profiler.ini ${f##*/}: stderr holds only <heapprof>: lines"
done
for f in $(regress conf); do
	# Up to the first NUL: MALLOC_CONF; after it: HEAPPROF_CONF.
	mc=$(perl -0777 -ne 'print((split /\0/, $_, 2)[0] // "")' "$f")
	hc=$(perl -0777 -ne 'print((split /\0/, $_, 2)[1] // "")' "$f")
	MALLOC_CONF=$mc HEAPPROF_CONF=$hc LD_PRELOAD=$LIB timeout 20 "$TP/seed" >out 2>err
	st=$?
	is "$st:$(cat out)" "$bare_st:$bare_out" "MALLOC_CONF ${f##*/}: status and output as bare"
done

# ---- the leak gate: suppression files ------------------------------------
for f in $(regress suppress); do
	prof lg_prof_sample:0,prof_leak:true,leak_suppressions:$f timeout 20 "$TP/gate" leak >out 2>err
	st=$?
	is "$st:$(cat out)" "0:gate: leak: buffered output" "suppressions ${f##*/}: status and output as bare"
done

# ---- the command: dumps, series, verdicts --------------------------------
# clean_end STATUS ERRFILE: 0 (a report) or 1 with one "heapprof: " line.
clean_end() {
	[ "$1" -eq 0 ] && return 0
	[ "$1" -eq 1 ] && [ "$(wc -l <"$2")" -ge 1 ] && grep -q '^heapprof: cannot read' "$2"
}
# memcheck CMD...: CMD under valgrind; status 99 for any memory error.
# Under make check-asan the command is ASan's, which valgrind cannot run:
# ASan watches it instead (uninitialised reads are valgrind's alone).
memcheck() {
	if [ "${HP_SANITIZE:-}" = asan ]; then
		timeout 300 "$@"
	else
		timeout 300 valgrind -q --error-exitcode=99 "$@"
	fi
}
for f in $(regress report); do
	for fmt in --text --tree --collapsed --svg --pprof --json --html --graph; do
		timeout 60 "$BIN" report $fmt -o out "$f" 2>err
		st=$?
		ok $(clean_end $st err; echo $?) "report $fmt ${f##*/}: a report or one clean line (status $st)"
	done
	for opt in --text --peak --temporary; do
		memcheck "$BIN" report $opt -o out "$f" 2>err
		st=$?
		ok $([ $st -le 1 ]; echo $?) "report $opt ${f##*/} under memcheck: no error (status $st)"
		[ $st -le 1 ] || diag "$(head -n 12 err)"
	done
done
for f in $(regress trend); do
	rm -rf series && mkdir series
	# The target's layout: "=== NAME" starts the dump NAME (fuzz/trend.c).
	perl -ne 'BEGIN { $n = 0; open($o, ">", "series/d0/first.heap") if mkdir "series/d0" }
		if (/^=== (.*)/) { $n++; ($m = substr($1, 0, 100)) =~ s/[^A-Za-z0-9._-]/_/g;
			$m = "dump" if $m eq "" || $m eq "." || $m eq "..";
			mkdir "series/d$n"; open($o, ">", "series/d$n/$m"); next }
		print $o $_' "$f"
	set -- $(find series -type f -size +0 | sort)
	timeout 60 "$BIN" trend -o out "$@" 2>err
	st=$?
	ok $(clean_end $st err; echo $?) "trend ${f##*/}: a report or one clean line (status $st)"
	memcheck "$BIN" trend -o out "$@" 2>err
	st=$?
	ok $([ $st -le 1 ]; echo $?) "trend ${f##*/} under memcheck: no error (status $st)"
	[ $st -le 1 ] || diag "$(head -n 12 err)"
done
for f in $(regress verdict); do
	# A process of the tree leaves this file as its verdict.
	timeout 60 "$BIN" check --all -- sh -c 'cp "$1" "${HEAPPROF_CONF##*prof_prefix:}.4242.verdict"' \
		sh "$f" >out 2>err
	st=$?
	ok $([ $st -lt 128 ] && ! grep -q 'heapprof check: cannot' err; echo $?) \
		"check ${f##*/}: a report or a refusal of the file (status $st)"
done

plan $_t_num
done_testing
