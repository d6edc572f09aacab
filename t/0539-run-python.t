#!/bin/sh
# heapprof run on a Python interpreter says, in one line, that pymalloc's
# arenas hide the small objects and that PYTHONMALLOC=malloc shows them;
# it never sets PYTHONMALLOC itself, says nothing when it is set, nothing
# for other programs, and nothing inside heapprof check's tree.
. "$(dirname "$0")/lib.sh"
plan 12

line='^heapprof run: .* is Python: its small objects live in pymalloc.s arenas, which heapprof cannot see into; run it with PYTHONMALLOC=malloc to see them \(heapprof\(7\)\)$'
unset PYTHONMALLOC
show='import os; print(os.environ.get("PYTHONMALLOC"))'

"$BIN" run -c prof_prefix: python3 -c "$show" >out 2>err
is "$(cat out)" None "python3: its environment is left alone (no PYTHONMALLOC)"
like "$(cat err)" "$line" "python3: one line suggests PYTHONMALLOC=malloc"
is "$(wc -l <err)" 1 "python3: only that line"

PYTHONMALLOC=malloc "$BIN" run -c prof_prefix: python3 -c "$show" >out 2>err
is "$(cat out)" malloc "PYTHONMALLOC=malloc: kept as given"
is "$(cat err)" "" "PYTHONMALLOC set: nothing said"
PYTHONMALLOC=pymalloc "$BIN" run -c prof_prefix: python3 -c pass 2>err
is "$(cat err)" "" "PYTHONMALLOC=pymalloc: nothing said either (the user chose)"

# A script, through env(1) on its #! line; the interpreter by its path.
printf '#!/usr/bin/env python3\nprint("script")\n' >app.py
chmod +x app.py
"$BIN" run -c prof_prefix: ./app.py >out 2>err
like "$(cat err)" "$line" "a #!/usr/bin/env python3 script: the line"
"$BIN" run -c prof_prefix: "$(command -v python3)" -c pass 2>err
like "$(cat err)" "$line" "python3 named by its path: the line"

# A program that embeds Python, found by libpython among its libraries.
printf 'extern const char *Py_GetVersion(void);\nint main(void) { return !Py_GetVersion(); }\n' >embed.c
cc -o embed embed.c $(pkg-config --cflags --libs python3-embed) 2>cc.err || diag "$(cat cc.err)"
"$BIN" run -c prof_prefix: ./embed 2>err
like "$(cat err)" "$line" "a program linked with libpython: the line"

"$BIN" run -c prof_prefix: "$TP/seed" >/dev/null 2>err
unlike "$(cat err)" 'Python' "another program: nothing said"

# Inside heapprof check's tree nothing may be printed but the programs'.
"$BIN" check -- "$BIN" run python3 -c 'print("checked")' >out 2>err
is "$(cat out)" checked "heapprof check -- heapprof run python3: the program's output"
unlike "$(cat err)" 'PYTHONMALLOC' "and no line on pymalloc"
