#!/bin/sh
# The one option table (src/options.def) and the manual agree, and every
# man page is clean under mandoc -Tlint.
. "$(dirname "$0")/lib.sh"
plan 4

sed -n 's/^HP_OPT(\([a-z_]*\),.*/\1/p' "$SRC/src/options.def" | sort >table
sed -n 's/^\.It Cm \([a-z_]*\) : .*/\1/p' "$SRC/man/profiler.ini.5" | sort >manual
ok $([ -s table ]; echo $?) "the option table lists options"
diff -u table manual >d && ok 0 "profiler.ini(5) documents exactly the table's options" ||
	{ ok 1 "profiler.ini(5) documents exactly the table's options"; diag "$(cat d)"; }
lint=$(for m in "$SRC"/man/*.[1-8]; do mandoc -Tlint -W warning "$m" 2>&1; done)
is "$lint" "" "mandoc -Tlint finds nothing in the man pages"
# Every option default in the manual is the table's.
bad=$(sed -n 's/^HP_OPT(\([a-z_]*\), [A-Z]*, "\([^"]*\)".*/\1 \2/p' "$SRC/src/options.def" |
	while read -r key def; do
		[ -z "$def" ] && continue
		grep -q "^\.It Cm $key : .*Pq default \(Cm \)\?$def\( \|,\|\$\)" "$SRC/man/profiler.ini.5" || echo "$key"
	done)
is "$bad" "" "the manual states each option's default as the table does"
done_testing
