#!/bin/sh
# The one option table (src/lib/conf/options.def), the sample conf/profiler.ini and
# the manual agree; the sample is a valid file; man pages lint clean.
. "$(dirname "$0")/lib.sh"
plan 8

sed -n 's/^HP_OPT(\([a-z_]*\),.*/\1/p' "$SRC/src/lib/conf/options.def" | sort >table
sed -n 's/^\.It Cm \([a-z_]*\) : .*/\1/p' "$SRC/man/profiler.ini.5" | sort >manual
sed -n 's/^# \([a-z_]*\) =\( .*\)\{0,1\}$/\1/p' "$SRC/conf/profiler.ini" | sort >sample
ok $([ -s table ]; echo $?) "the option table lists options"
diff -u table manual >d && ok 0 "profiler.ini(5) documents exactly the table's options" ||
	{ ok 1 "profiler.ini(5) documents exactly the table's options"; diag "$(cat d)"; }
diff -u table sample >d && ok 0 "conf/profiler.ini lists exactly the table's options" ||
	{ ok 1 "conf/profiler.ini lists exactly the table's options"; diag "$(cat d)"; }
lint=$(for m in "$SRC"/man/*.[1-8]; do mandoc -Tlint -W warning "$m" 2>&1; done)
is "$lint" "" "mandoc -Tlint finds nothing in the man pages"

# Defaults: the table's, in the manual and in the sample.
sed -n 's/^HP_OPT(\([a-z_]*\), [A-Z]*, "\([^"]*\)".*/\1 \2/p' "$SRC/src/lib/conf/options.def" >defaults
bad=$(while read -r key def; do
	[ -z "$def" ] && continue
	grep -q "^\.It Cm $key : .*Pq default \(Cm \)\?$def\( \|,\|\$\)" "$SRC/man/profiler.ini.5" || echo "$key"
done <defaults)
is "$bad" "" "the manual states each option's default as the table does"
bad=$(while read -r key def; do
	got=$(sed -n "s/^# $key =\(.*\)\$/\1/p" "$SRC/conf/profiler.ini" | sed 's/^ //')
	[ "$got" = "$def" ] || echo "$key: sample '$got', table '$def'"
done <defaults)
is "$bad" "" "the sample states each option's default as the table does"

# The sample as shipped, and with every option uncommented, parses cleanly.
HEAPPROF_CONFIG=$SRC/conf/profiler.ini LD_PRELOAD=$LIB "$TP/gate" clean >/dev/null 2>err
is "$(cat err)" "" "the sample file is read without a complaint"
sed 's/^# \([a-z_]* =.*\)$/\1/' "$SRC/conf/profiler.ini" >all.ini
HEAPPROF_CONFIG=$T_DIR/all.ini LD_PRELOAD=$LIB "$TP/gate" clean >/dev/null 2>err
is "$(grep -v 'dump heapprof' err)" "" "every default in the sample is a valid value"
done_testing
