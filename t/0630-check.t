#!/bin/sh
# heapprof check: a command and every process it starts under the leak
# check; one report (symbolized: file:line), one exit status for the tree,
# while inside the tree every process keeps its own output and status.
# On a tiny C project built and tested by make, the compiler, make and
# the shell do not count; the project's programs do.
. "$(dirname "$0")/lib.sh"
plan 58

# The run directory goes under $TMPDIR: it must be gone afterwards.
mkdir tmp
export TMPDIR=$T_DIR/tmp
G=$TP/gate

# ---- a tree: sh runs a leaking and a clean program ------------------------
"$BIN" check -- sh -c "'$G' leak; echo \" inner=\$?\"; '$G' clean" >out 2>err
is $? 23 "a child leaked: the tree's status is 23 (LeakSanitizer's)"
is "$(cat out)" "gate: leak: buffered output inner=0
gate: clean: buffered output" "inside the tree the leaking child's own status stays 0, its output its own"
like "$(cat err)" "^heapprof check: $G \\(pid [0-9]+\\): $G leak\$" "the report names the program, its pid and command line"
like "$(cat err)" '^Direct leak of 200 byte\(s\) in 2 object\(s\) allocated from:$' "LeakSanitizer's shape"
like "$(cat err)" "^    #0 0x[0-9a-f]+ in leak_some $SRC/t/prog/gate.c:[0-9]+\$" "symbolized: function, file and line"
like "$(cat err)" "^    #1 0x[0-9a-f]+ in main $SRC/t/prog/gate.c:[0-9]+\$" "then its caller"
like "$(cat err)" '^SUMMARY: heapprof: 200 byte\(s\) leaked in 2 allocation\(s\)\.$' "the process's SUMMARY line"
like "$(cat err)" '^heapprof check: 1 of 2 counted processes leaked 200 byte\(s\) in 2 allocation\(s\) \([0-9]+ processes checked\)$' \
	"one summary line for the tree (sh, in /bin or /usr/bin, does not count)"
unlike "$(cat err)" '<heapprof>' "the processes themselves print nothing"
unlike "$(cat err)" 'gate clean' "a clean process is not reported"
is "$(ls tmp)" "" "the run directory is removed"

"$BIN" check -- sh -c "'$G' clean; true" >out 2>err
like "$?:$(cat err)" '^0:heapprof check: no leaks in 1 counted process \([0-9]+ process(es)? checked\)$' \
	"a clean tree: status 0, one line"

# Inlined functions are frames of their own, at the same pc; C++ names
# are demangled.
"$BIN" check -- "$TP/rep_inline" >out 2>err
frames=$(grep -A3 '^Direct leak of 20000 byte' err |
	sed -n 's/^    #[0-2] \(0x[0-9a-f]*\) in \([a-z_]*\) .*rep_inline\.c:[0-9]*$/\1 \2/p' |
	awk 'NR > 1 && $1 != pc { $2 = "(another pc)" } { pc = $1; printf "%s ", $2 }')
is "$frames" "leaf_alloc middle outer " "inlined frames, at one pc: leaf_alloc in middle in outer, each with its line"
"$BIN" check -- "$TP/rep_cxx" >out 2>err
like "$(cat err)" "^    #0 0x[0-9a-f]+ in store::Pool<store::Item>::make\\(int\\) $SRC/t/prog/rep_cxx.cc:[0-9]+\$" \
	"C++: a member of a class template, demangled"
like "$(cat err)" "^    #0 0x[0-9a-f]+ in fill\\(double\\) " "an overload, with its arguments"

# A stripped fixed-address program that takes strcmp's address (so its
# dynamic symbol table gives strcmp the address of a PLT stub, below the
# program's code): its frames have no name, not that of the nearest
# symbol below, in the report and in the library's own lines.
cat >stripped.c <<'EOF'
#include <stdlib.h>
#include <string.h>
int (*volatile cmp)(const char *, const char *);
static void *volatile sink;
static volatile int two = 2;
__attribute__((noinline)) static void leak_some(void) { for (int i = 0; i < two; i++) sink = malloc(200); }
int main(void) { cmp = strcmp; leak_some(); return cmp("a", "a"); }
EOF
cc -O0 -fno-pic -no-pie -o stripped stripped.c && strip stripped
ok $(readelf -W --dyn-syms stripped | awk '$8 ~ /^strcmp/ && $2 !~ /^0+$/ { f = 1 } END { exit !f }'; echo $?) \
	"stripped: strcmp's dynamic symbol has an address (a PLT stub)"
"$BIN" check -- ./stripped >out 2>err
like "$(grep -A1 '^Direct leak of 200' err | tail -n 1)" '^    #0 0x[0-9a-f]+ \([^ ]*stripped\+0x[0-9a-f]+\)$' \
	"stripped: the frame is the object and offset, no borrowed name"
HEAPPROF_CONF=lg_prof_sample:0,prof_leak:true,prof_final:false LD_PRELOAD=$LIB ./stripped >out 2>err
like "$(grep -A1 'Direct leak of 200' err | tail -n 1)" '^<heapprof>:     #0 0x[0-9a-f]+ \([^ ]*stripped\+0x[0-9a-f]+\)$' \
	"and in the library's report at exit"

# ---- exit status ------------------------------------------------------------
"$BIN" check -- sh -c "'$G' leak; exit 3" >out 2>err
is $? 3 "the command failed: its status, not 23"
like "$(cat err)" 'in leak_some ' "and the leak is still reported"
"$BIN" check -- "$G" status >out 2>err
is $? 3 "a program that leaks and exits 3 on its own: 3"
"$BIN" check --exit-code 7 -- "$G" leak >out 2>err
is $? 7 "--exit-code 7"
"$BIN" check -- sh -c 'kill -TERM $$' >out 2>err
is $? 143 "killed by a signal: 128 + the signal"
"$BIN" check -- no-such-program >out 2>err
is "$?:$(cat err)" "127:heapprof check: cannot run 'no-such-program': No such file or directory" \
	"a command that cannot be run: 127, one line"
printf 'int main(void) { return 0; }\n' >static.c
if cc -static -o static static.c 2>/dev/null; then
	"$BIN" check -- ./static >out 2>err
	like "$?:$(sed -n 2p err)" '^23:heapprof check: not checked: \./static is statically linked ' \
		"a static program is not checked: one line names it (after the warning), and the run fails"
else
	ok 0 "# SKIP no static libc to link with"
fi
"$BIN" check >out 2>err
is "$?:$(head -n 1 err)" "2:heapprof check: no command to run" "no command: usage, status 2"
"$BIN" check --exit-code 0 -- true >out 2>err
is $? 2 "--exit-code 0 is a usage error"

# ---- which processes count ----------------------------------------------------
"$BIN" check --programs 'sh,x*' -- "$G" leak >out 2>err
is $? 0 "--programs: a leak in a process that does not match does not fail the tree"
like "$(cat err)" '^heapprof check: not counted: gate \(pid [0-9]+\): 200 bytes leaked$' \
	"it is listed in one line"
"$BIN" check --programs 'ga*' -- "$G" leak >out 2>err
is $? 23 "--programs ga*: gate counts"
"$BIN" check --all -- sh -c "'$G' clean; '$G' clean" >out 2>err
like "$(cat err)" '^heapprof check: no leaks in ([0-9]+) counted processes \(\1 processes checked\)$' \
	"--all: every process counts"

# [program:NAME] sections of profiler.ini (--config): leak_gate there
# decides for the programs NAME matches (a shell pattern, against the
# program's file name or the name it was run by), before --programs and
# the default.
printf '[program:ga?e]\nleak_gate = false\n' >gates.ini
"$BIN" check --config gates.ini -- "$G" leak >out 2>err
is $? 0 "[program:ga?e] leak_gate = false: gate's leak does not fail the tree"
like "$(cat err)" '^heapprof check: not counted: gate \(pid [0-9]+\): 200 bytes leaked$' \
	"it is listed as not counted"
printf '[program:gate]\nleak_gate = true\n' >gates.ini
"$BIN" check --config gates.ini --programs nothing -- "$G" leak >out 2>err
is $? 23 "[program:gate] leak_gate = true counts it, whatever --programs says"
# gcc's driver, a system program, does not free everything (valgrind:
# definitely lost): not counted by default; counted when a section names it
# by the name it was run by (its file is x86_64-linux-gnu-gcc-12 or so).
printf 'int main(void) { return 0; }\n' >empty.c
"$BIN" check -- gcc -c empty.c -o empty.o >out 2>err
is $? 0 "gcc -c: the compiler does not count by default"
printf '[program:gcc]\nleak_gate = true\n' >gates.ini
"$BIN" check --config gates.ini -- gcc -c empty.c -o empty.o >out 2>err
is "$?:$(grep -c '^heapprof check: 1 of 1 counted process leaked' err)" "23:1" \
	"[program:gcc] leak_gate = true: gcc's driver counts, and its leak fails the tree"
"$BIN" check --config no-such.ini -- true >out 2>err
is "$?:$(head -n 1 err)" "2:heapprof check: --config: cannot read 'no-such.ini': No such file or directory" \
	"--config names a file that is not there: a usage error, one line"

# ---- what the tree does stays the same ------------------------------------------
"$BIN" check -- bash -c 'echo a | cat; echo "${PIPESTATUS[*]}"; false | cat; echo "${PIPESTATUS[*]}"' >out 2>err
is "$?:$(cat out)" "0:a
0 0
1 0" "bash pipelines keep their output and statuses"
"$BIN" check -- "$G" nostderr >out 2>err
is $? 23 "a program that closed its stderr: the leak is still found (from its verdict file)"
"$BIN" check -- sh -c "('$G' leak >/dev/null; sleep 0.5; '$G' leak) & exit 0" >out 2>err
like "$(cat err)" '^heapprof check: 2 of 2 counted processes leaked' \
	"what the command left running is waited for and checked"

printf 'leak:leak_some\n' >supp
"$BIN" check --suppressions supp --json j.json -- "$G" leak >out 2>err
is $? 0 "--suppressions: a suppressed leak passes"
is "$(perl -MJSON::PP -e 'local $/; my $j = decode_json(<>); my $p = $j->{processes}[0]; print "$p->{suppressed_bytes} $p->{leaked_bytes}"' j.json)" \
	"200 0" "the JSON says what was suppressed"

# ---- make on a tiny C project -------------------------------------------------------
mkdir proj
cd proj
cat >Makefile <<'EOF'
CFLAGS = -g -O0
check: hello list_test
	./hello
	./list_test
hello: hello.c
	$(CC) $(CFLAGS) -o $@ hello.c
list_test: list_test.c
	$(CC) $(CFLAGS) -o $@ list_test.c
fail:
	false
EOF
cat >hello.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	char *p = malloc(10);
	puts("hello");
	free(p);
	return 0;
}
EOF
# list_test.c: a list of three nodes; FREE_LIST frees it.
cat >list_test.c <<'EOF'
#include <stdlib.h>
struct node { struct node *next; int v; };
static struct node *make_node(int v)
{
	struct node *n = malloc(sizeof(*n));   /* line 5 */
	n->v = v;
	n->next = NULL;
	return n;
}
int main(void)
{
	struct node *head = NULL;
	for (int i = 0; i < 3; i++) {
		struct node *n = make_node(i);
		n->next = head;
		head = n;
	}
#ifdef FREE_LIST
	while (head) {
		struct node *next = head->next;
		free(head);
		head = next;
	}
#endif
	head = NULL;
	return 0;
}
EOF
"$BIN" check -- make CFLAGS='-g -O0 -DFREE_LIST' >out 2>err
is $? 0 "make on a clean project: status 0, though make, cc1, as and ld do not free everything"
like "$(cat err)" '^heapprof check: no leaks in 2 counted processes \([0-9]+ processes checked\)$' \
	"the project's two programs counted, the toolchain not"
like "$(cat out)" '^hello$' "make's output is its own"
rm -f hello list_test
"$BIN" check --junit junit.xml --json check.json -- make >out 2>err
is $? 23 "the test program leaks: 23"
like "$(cat err)" "^heapprof check: $T_DIR/proj/list_test \\(pid [0-9]+\\): \\./list_test\$" "it is named"
like "$(cat err)" "^    #0 0x[0-9a-f]+ in make_node $T_DIR/proj/list_test.c:5\$" "in make_node, list_test.c:5"
like "$(cat err)" '^Direct leak of 16 byte\(s\) in 1 object\(s\) allocated from:$' "the head is a direct leak"
like "$(cat err)" '^Indirect leak of 32 byte\(s\) in 2 object\(s\) allocated from:$' "the nodes it reaches are indirect"
unlike "$(cat err)" 'hello \(pid' "hello is clean"
like "$(cat err)" '^heapprof check: not counted: ' "the toolchain's leaks are listed"
xmllint --noout junit.xml 2>xerr
is "$?:$(cat xerr)" "0:" "--junit: valid XML"
is "$(xmllint --xpath 'count(//testcase)' junit.xml):$(xmllint --xpath 'count(//testcase/failure)' junit.xml)" "2:1" \
	"one test case per counted process, one failure"
is "$(xmllint --xpath 'string(//testcase[failure]/@classname)'  junit.xml):$(xmllint --xpath 'string(//failure/@message)' junit.xml)" \
	"list_test:48 byte(s) leaked in 3 allocation(s)" "the failure names the program; its message is the leak summary"
like "$(xmllint --xpath 'string(//failure)' junit.xml)" 'in make_node .*list_test.c:5' "its text is the report"
perl -MJSON::PP -e '
	local $/; my $j = decode_json(<>);
	my ($p) = grep { $_->{program} =~ m{/list_test$} } @{$j->{processes}};
	my $f = $p->{leaks}[0]{frames}[0];
	print join(" ", $j->{exit_status}, $j->{summary}{counted}, $j->{summary}{leaking},
		$p->{counted} ? "counted" : "-", $p->{leaked_bytes}, $f->{function}, $f->{line}), "\n";
' check.json >jout 2>jerr
is "$(cat jout)" "23 2 1 counted 48 make_node 5" "--json parses (JSON::PP): status, summary, the leak's first frame"
"$BIN" check -- make fail >out 2>err
is $? 2 "make's own failure status passes through"
done_testing
