#!/bin/sh
# heapprof check against valgrind on 38 programs nobody here wrote: for
# each command line, every process of it under heapprof check --all and
# under valgrind --leak-check=full --trace-children=yes; heapprof's direct
# plus indirect leaks (bytes and objects, over all processes, from the
# JSON) must be valgrind's definitely plus indirectly lost, exactly.  Most
# are clean (the gate's false-positive side); sort, tar, date, stat, tr,
# perl and gcc's driver really leak, and both tools must agree on how much.
. "$(dirname "$0")/lib.sh"

cat >cmds <<'EOF2'
ls	ls -la /usr
cat	cat /etc/passwd
grep	grep -r root /etc/passwd
sed	sed s/a/b/ in.txt
awk	awk '{ print $2 }' in.txt
sort	sort /etc/passwd
uniq	uniq in.txt
wc	wc -l /etc/passwd
tar	tar cf /dev/null /etc/hostname /etc/passwd
gzip	gzip -c /etc/passwd
xz	xz -c /etc/passwd
find	find /etc -maxdepth 1 -name 'p*'
diff	diff /etc/passwd /etc/group
cp	cp /etc/passwd p2
date	date
stat	stat /etc/passwd
du	du -s /etc
head	head -3 /etc/passwd
cut	cut -d: -f1 /etc/passwd
tr	tr a-z A-Z
python3	/usr/bin/python3 -c pass
python3-json	/usr/bin/python3 -c 'import json, re, collections; print(json.dumps({"a": 1}))'
perl	perl -e 'my %h = map { $_ => 1 } 1..1000; print scalar keys %h'
git-version	git --version
git-status	git -C repo status
git-log	git -C repo log --oneline
sqlite3	sqlite3 :memory: 'create table t(a); insert into t values(1); select * from t;'
make	make -v
gcc-c	gcc -c f.c -o f.o
bash	bash -c 'for i in 1 2 3; do echo $i; done'
dash	dash -c 'echo hi'
md5sum	md5sum /etc/passwd
sha256sum	sha256sum /etc/passwd
base64	base64 /etc/hostname
env	env
file	file /etc/passwd
curl	curl --version
openssl	openssl version
EOF2
plan "$(wc -l <cmds)"

for t in valgrind git sqlite3 xz file openssl curl gcc perl; do
	command -v $t >/dev/null || { echo "Bail out! $t is missing: make deps installs it"; exit 1; }
done
printf 'int f(void) { return 1; }\n' >f.c
printf 'a b c\nd e f\n' >in.txt
git init -q repo && (cd repo && echo x >x && git add x &&
	git -c user.email=t@example.org -c user.name=t commit -qm x) || { echo "Bail out! git cannot make a repository"; exit 1; }

# heapprof's "bytes objects" over every process of the JSON.
heapprof_lost() {
	perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my ($b, $o) = (0, 0);
		for my $p (@{$j->{processes}}) {
			$b += ($p->{direct_bytes} // 0) + ($p->{indirect_bytes} // 0);
			$o += ($p->{direct_objects} // 0) + ($p->{indirect_objects} // 0);
		}
		print "$b $o"' <"$1" 2>/dev/null
}
# valgrind's definitely + indirectly lost "bytes blocks" over its logs.
valgrind_lost() {
	cat vg.* | sed -n 's/.*\(definitely\|indirectly\) lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\2 \3/p' |
		tr -d , | awk '{ b += $1; o += $2 } END { print b + 0, o + 0 }'
}

while IFS='	' read -r name cmd; do
	rm -f vg.* hc.json
	sh -c "\"$BIN\" check --all --json hc.json -- $cmd" </etc/hostname >/dev/null 2>&1
	h=$(heapprof_lost hc.json)
	sh -c "valgrind --leak-check=full --trace-children=yes --log-file=vg.%p $cmd" </etc/hostname >/dev/null 2>&1
	v=$(valgrind_lost)
	is "$h" "$v" "$name: heapprof check's leaked bytes and objects are valgrind's ($v)"
done <cmds
done_testing
