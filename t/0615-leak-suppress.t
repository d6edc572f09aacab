#!/bin/sh
# Leak suppressions as LeakSanitizer matches them: a rule names a frame's
# module by its full path (the program's too, however it was started), its
# function, or (under heapprof check, which reads DWARF) its source file.
# A malformed file is said once per heapprof check, not once a process;
# a NUL byte in a line shows as \0; check's summary says what the
# suppressions hid.
. "$(dirname "$0")/lib.sh"
plan 16

G=$TP/gate
CONF=lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_final:false

# ---- the program by its full path, started by a name found in PATH -------
printf 'leak:%s\n' "$G" >byexe
PATH=$TP:$PATH prof "$CONF,leak_suppressions:$T_DIR/byexe" gate leak >out 2>err
unlike "$(cat err)" 'Direct leak' "leak:FULL-PATH-OF-THE-PROGRAM suppresses its leaks when argv[0] is a bare name"
like "$(cat err)" "^<heapprof>: +2 +200 $G\$" "and the rule is counted as used"
printf 'leak:gate\n' >byname
PATH=$TP:$PATH prof "$CONF,leak_suppressions:$T_DIR/byname" gate leak >out 2>err
unlike "$(cat err)" 'Direct leak' "leak:NAME still matches the program's path by its last component"

# ---- a NUL byte: the line is refused, and the message shows why ----------
printf 'leak:leak_\000some\n' >nul
prof "$CONF,leak_suppressions:$T_DIR/nul" "$G" leak >out 2>err
like "$(cat err)" "^<heapprof>: $T_DIR/nul:1: not a suppression: 'leak:leak_\\\\0some' \\(expected leak:PATTERN\\)\$" \
	"a NUL byte in a line is shown as backslash-0, not cut off into a valid-looking line"

# ---- heapprof check -------------------------------------------------------
mkdir tmp
export TMPDIR=$T_DIR/tmp

# A malformed file is said once, by check, before the run; not by each of
# the four processes of the tree.
printf 'leak:leak_some\nlek:oops\nleak:x\000y\n' >bad
"$BIN" check --suppressions bad -- sh -c "'$G' leak; '$G' leak; '$G' leak" >out 2>err
is "$?:$(grep -c 'not a suppression' err)" "0:2" "a malformed file: one complaint a bad line for the whole tree, the good line still applies"
like "$(head -n 1 err)" "^heapprof check: $T_DIR/bad:2: not a suppression: 'lek:oops' \\(expected leak:PATTERN\\)\$" \
	"said by check, first, naming the file and line"
like "$(cat err)" "^heapprof check: $T_DIR/bad:3: not a suppression: 'leak:x\\\\0y'" "check shows the NUL byte too"
unlike "$(cat err)" '<heapprof>' "no process repeats it"

# A source file, which only check knows (DWARF): the leaks of a program
# built from leaky.c are suppressed by leak:leaky.c, and counted.
cat >leaky.c <<'EOF2'
#include <stdlib.h>
static void *volatile sink;
__attribute__((noinline)) static void keep(void) { sink = malloc(300); sink = malloc(300); }
int main(void) { keep(); return 0; }
EOF2
cc -g -O0 -o leaky leaky.c
printf 'leak:leaky.c\n' >byfile
"$BIN" check --suppressions byfile --json j.json -- ./leaky >out 2>err
is "$?" 0 "leak:SOURCE-FILE suppresses under heapprof check"
unlike "$(cat err)" 'Direct leak' "and the leak is not reported"
is "$(perl -MJSON::PP -e 'local $/; my $j = decode_json(<>); my $p = $j->{processes}[0]; print "$p->{suppressed_bytes} $p->{suppressed_objects} $p->{leaked_bytes}"' j.json)" \
	"300 1 0" "the JSON counts it as suppressed (the second block is still reachable)"
like "$(cat err)" '^ +1 +300 leaky\.c$' "check's summary lists the source-file rule with what it hid"
is "$(perl -MJSON::PP -e 'local $/; my $j = decode_json(<>); my $s = $j->{processes}[0]{suppressions}; print join ";", map { "$_->{template} $_->{count} $_->{bytes}" } @$s' j.json)" \
	"leaky.c 1 300" "and the JSON has the process's suppressions used"

# What the suppressions hid, in check's summary: LeakSanitizer's table,
# the rows of the counted processes summed.
"$BIN" check --suppressions bad -- sh -c "'$G' leak; '$G' leak" >out 2>err
is "$(sed -n '/^Suppressions used:$/,/^---/p' err)" "Suppressions used:
  count      bytes template
      4        400 leak_some
-----------------------------------------------------" "check's summary says what the suppressions hid: count, bytes, template"
like "$(tail -n 1 err)" '^heapprof check: no leaks in 2 counted processes' "then the summary line, last"

# The command reads the file with a parser of its own (the library and the
# command share no code): both refuse the same lines, with the same words.
printf '%s\n' 'lek:x' 'leak:' 'leak:^' 'leak:$' 'leak:^$' '  leak:  fine  ' 'LEAK:x' '# c' '' \
	'leak:^ok$' 'leak:*' >mixed
printf 'leak:a\000b\nleak:\001ctl\n\tleak:tab\there\t\n' >>mixed
prof "$CONF,leak_suppressions:$T_DIR/mixed" "$G" clean >out 2>lib.err
"$BIN" check --suppressions mixed -- "$G" clean >out 2>cmd.err
sed -n 's/^<heapprof>: //p' lib.err | grep 'not a suppression' >lib.msgs
sed -n 's/^heapprof check: //p' cmd.err | grep 'not a suppression' >cmd.msgs
is "$(wc -l <lib.msgs):$(diff lib.msgs cmd.msgs && echo same)" "7:same" "check and the library refuse the same lines alike"
