#!/bin/sh
# coreutils (and tar, grep, findutils) in loops: each command line runs
# REAL_CORE_N times (default 3) bare, at the default rate and in exact
# mode; every run's status, standard output and standard error must be
# those of the bare runs, byte for byte, but for heapprof's own lines on
# standard error ("<heapprof>: ...", its log), which the summary counts.
# Pipelines put every process under the preload (LD_PRELOAD is
# inherited).
. "$(dirname "$0")/driver.sh"

N=${REAL_CORE_N:-3}

# Name and command line, run by sh -c in the fixture's directory with $W a
# fresh directory for whatever the command writes.
cat >"$T_DIR/commands" <<'EOF'
sort-keys	sort -S 256K -T "$W" --parallel=2 -k1,1n -k2,2n nums.txt
sort-uniq	seq 1 200000 | shuf --random-source=nums.txt | sort -n | uniq | wc -l
sort-words	cat $(find tree -name '*.h' | sort) | tr -cs 'A-Za-z_' '\n' | sort | uniq -c | sort -k1,1nr -k2,2 | head -n 200
tar-roundtrip	tar -C tree -cf - . | tar -C "$W" -xf - && diff -r tree "$W" && tar -C tree -czf - . | tar -tzvf - | sort -k6
grep-r	grep -rn 'define [A-Z_]*MAX' tree | sort
grep-rc	grep -rcE 'struct [a-z_0-9]+ \{' tree | sort; grep -rlw -e __u32 -e __u64 tree | sort | wc -l
ls-la	ls -laR --time-style=+%s tree; ls -la --time-style=+%s /usr/bin | wc -l
find-md5	find tree -type f -print0 | sort -z | xargs -0 md5sum
cut-join	cut -d' ' -f1 nums.txt | sort -u >"$W/a"; cut -d' ' -f2 nums.txt | sort -u >"$W/b"; join "$W/a" "$W/b" | wc -l; paste -d, "$W/a" "$W/b" | tail -n 3
split-cat	split -b 100k nums.txt "$W/part." && cat "$W"/part.* | cmp - nums.txt && ls "$W" | wc -l
dd-sha	dd if=nums.txt bs=4k status=none | sha256sum; dd if=/dev/zero bs=64k count=256 status=none | md5sum
base64-od	base64 nums.txt | base64 -d | cmp - nums.txt && od -An -tx1 -N 4096 nums.txt | md5sum
cp-du	cp -a tree "$W/copy" && diff -r tree "$W/copy" && du -ab "$W/copy" | sed "s|$W/||" | sort -k2 && rm -rf "$W/copy"
xargs-P2	seq 1 100 | xargs -P2 -n1 expr 3 '*' | sort -n | md5sum
loop-true	i=0; while [ $i -lt 100 ]; do /bin/true || exit 1; i=$((i + 1)); done; echo $i
wc-tr	cat nums.txt nums.txt | tr 0-9 a-j | wc; sort -u nums.txt | wc -l
EOF
ncmd=$(wc -l <"$T_DIR/commands")
plan $((ncmd * 2 + 1))

# The fixture: 200,000 lines of numbers and a copy of 760 kernel headers.
mkdir -p "$T_DIR/fix"
cd "$T_DIR/fix" || exit 1
seq 1 200000 | awk '{ print ($1 * 7919) % 100003, $1 }' >nums.txt
cp -a /usr/include/linux tree
ok $? "the fixture: nums.txt and a copy of /usr/include/linux"

while IFS='	' read -r name line; do
	tb=0 td=0 te=0
	for m in $REAL_MODES; do
		: >"$REAL_OUT/$name.$m.res"
		i=1
		while [ $i -le "$N" ]; do
			W=$T_DIR/w/$m.$i
			export W
			mkdir -p "$W"
			real_run "$name.$i" "$m" timeout 120 sh -c "$line"
			o=$REAL_OUT/$name.$i.$m
			echo "status $(cat "$o.rc") stdout $(cksum <"$o.out")" \
				"stderr $(grep -v '^<heapprof>: ' "$o.err" | cksum)" \
				>>"$REAL_OUT/$name.$m.res"
			ms=$(cat "$o.ms")
			case $m in bare) tb=$((tb + ms)) ;; default) td=$((td + ms)) ;; exact) te=$((te + ms)) ;; esac
			# The first bare run's output is kept for reading; the
			# others only as checksums.
			[ "$m.$i" = bare.1 ] || rm -f "$o.out"
			rm -rf "$W"
			i=$((i + 1))
		done
	done
	# Every bare run alike, or the command is not deterministic here.
	[ "$(sort -u "$REAL_OUT/$name.bare.res" | wc -l)" -eq 1 ] ||
		real_diag "$name: the bare runs differ among themselves"
	real_compare "$name" "$N runs: status, stdout, stderr"
	real_time "$name" "$tb" "$td" "$te"
done <"$T_DIR/commands"

real_fact "commands: $ncmd, each run $N times per mode ($((ncmd * N * 3)) runs)"
for m in default exact; do
	real_fact "heapprof's lines ($m):$(cat "$REAL_OUT"/*."$m".err | grep '^<heapprof>: ' |
		sed 's/^<heapprof>: //' | sort | uniq -c | awk '{ $1 = $1; printf " [%s]", $0 }')"
done
real_summary
done_testing
