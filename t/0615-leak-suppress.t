#!/bin/sh
# Leak suppressions as LeakSanitizer matches them: a rule names a frame's
# module by its full path (the program's too, however it was started), its
# function, or (under heapprof check, which reads DWARF) its source file.
# A malformed file is said once per heapprof check, not once a process;
# a NUL byte in a line shows as \0; check's summary says what the
# suppressions hid.
. "$(dirname "$0")/lib.sh"
plan 4

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
