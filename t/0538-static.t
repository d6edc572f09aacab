#!/bin/sh
# heapprof run and heapprof check warn, in one line, when LD_PRELOAD cannot
# enter the program: statically linked (no PT_INTERP), set-user-ID or
# set-group-ID (the loader's secure mode), found through PATH or as a #!
# script's interpreter (through env(1) too).  The program still runs, with
# its own output and exit status; a dynamic program gets no warning.
# `heapprof run ./static` used to exit 0 without a word.
. "$(dirname "$0")/lib.sh"
plan 17

printf '#include <stdio.h>\nint main(void) { puts("static ran"); return 3; }\n' >static.c
cc -static -o static static.c
ok $? "a static program (glibc's static libs, libc6-dev)"

"$BIN" run -c prof_final:true,prof_prefix:$T_DIR/s ./static >out 2>err
is "$?:$(cat out)" "3:static ran" "heapprof run ./static: its output and status"
is "$(cat err)" "heapprof run: ./static is statically linked: LD_PRELOAD cannot enter it; it will not be profiled" \
	"one line says why nothing is profiled"
ok $(! ls s.* >/dev/null 2>&1; echo $?) "and indeed no dump was written"
mkdir bin
cp static bin/static-in-path
PATH=$T_DIR/bin:$PATH "$BIN" run static-in-path >/dev/null 2>err
is "$(cat err)" "heapprof run: static-in-path is statically linked: LD_PRELOAD cannot enter it; it will not be profiled" \
	"found through PATH as execvp finds it"
printf '#!%s/static\n' "$T_DIR" >script
chmod +x script
"$BIN" run ./script >/dev/null 2>err
is "$(cat err)" "heapprof run: ./script runs $T_DIR/static, which is statically linked: LD_PRELOAD cannot enter it; it will not be profiled" \
	"a script whose interpreter is static"
printf '#!/usr/bin/env static-in-path\n' >envscript
chmod +x envscript
PATH=$T_DIR/bin:$PATH "$BIN" run ./envscript >/dev/null 2>err
is "$(cat err)" "heapprof run: ./envscript runs $T_DIR/bin/static-in-path, which is statically linked: LD_PRELOAD cannot enter it; it will not be profiled" \
	"through #!/usr/bin/env"
"$BIN" check -- ./static >out 2>err
is "$(sed -n 1p err)" "heapprof check: ./static is statically linked: LD_PRELOAD cannot enter it; it will not be checked" \
	"heapprof check warns too"

# A dynamic program, and a script run by a dynamic shell: no warning, and
# the same output as bare.
"$BIN" run "$TP/seed" >out 2>err
is "$(cat out):$(cat err)" "seed: allocated:" "a dynamic program: no warning"
printf '#!/bin/sh\necho script ran\n' >dyn
chmod +x dyn
"$BIN" run ./dyn >out 2>err
is "$(cat out):$(cat err)" "script ran:" "a script of /bin/sh: no warning"

# Set-user-ID and set-group-ID: the loader runs them in secure mode and
# ignores a preload given by path.  (This test runs as root: a program of
# another user, nobody, is set-user-ID for root too.)
cp "$TP/seed" suid
chown 65534 suid
chmod 4755 suid
"$BIN" run -c prof_final:true,prof_prefix:$T_DIR/u ./suid >out 2>err
is "$?:$(cat out)" "0:seed: allocated" "a set-user-ID program runs"
is "$(cat err)" "heapprof run: ./suid is set-user-ID: the dynamic loader ignores LD_PRELOAD for it; it will not be profiled" \
	"with one line that says it cannot be profiled"
ok $(! ls u.* >/dev/null 2>&1; echo $?) "and indeed no dump was written"
cp "$TP/seed" sgid
chgrp 65534 sgid
chmod 2755 sgid
"$BIN" run ./sgid >/dev/null 2>err
is "$(cat err)" "heapprof run: ./sgid is set-group-ID: the dynamic loader ignores LD_PRELOAD for it; it will not be profiled" \
	"set-group-ID too"
cp "$TP/seed" mine
chmod 4755 mine
"$BIN" run -c prof_final:true,prof_prefix:$T_DIR/m ./mine >/dev/null 2>err
is "$(grep -c '^heapprof run' err)" 0 "set-user-ID to oneself changes no ID: no warning"
ok $(ls m.*.heap >/dev/null 2>&1; echo $?) "and it is profiled"
"$BIN" run ./no-such-program 2>err
is "$?:$(cat err)" "127:heapprof run: cannot run './no-such-program': No such file or directory" \
	"a missing program: no warning, the usual line"
done_testing
