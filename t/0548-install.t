#!/bin/sh
# make install into a DESTDIR: the command, the library, the bash
# completion, and the sample profiler.ini at $(SYSCONFDIR)/heapprof/
# (/etc for PREFIX /usr), where the library reads it, when no file is
# there; an edited one is never overwritten, and uninstall removes it
# only while it is still the sample.  Uses this test's build (B=).
. "$(dirname "$0")/lib.sh"
plan 17

D=$T_DIR/dest
mk() { make -C "$SRC" --no-print-directory B="$HP_BUILD" PREFIX=/usr DESTDIR="$D" "$@"; }

mk install >install.out 2>&1
is "$?" 0 "make install DESTDIR=... PREFIX=/usr"
ok $([ -x "$D/usr/bin/heapprof" ] && [ -f "$D/usr/lib/libheapprof.so" ]; echo $?) "the command and the library"
cmp -s "$SRC/conf/profiler.ini" "$D/etc/heapprof/profiler.ini"
ok $? "the sample profiler.ini at /etc/heapprof/profiler.ini"
cmp -s "$SRC/contrib/bash-completion/heapprof" "$D/usr/share/bash-completion/completions/heapprof"
ok $? "the bash completion in share/bash-completion/completions"
grep -aq /etc/heapprof/profiler.ini "$D/usr/lib/libheapprof.so"
ok $? "the library reads /etc/heapprof/profiler.ini"
is "$("$D/usr/bin/heapprof" --version | cut -d' ' -f1)" heapprof "the installed command runs"
"$D/usr/bin/heapprof" run -c lg_prof_sample:0,prof_leak:true,prof_prefix:$T_DIR/i "$TP/seed" >/dev/null 2>err
like "$(cat err)" "Run $D/usr/(lib/\\.\\./)?bin/(\\.\\./bin/)?heapprof report $T_DIR/i\\." "and preloads the installed library, which names it"

# An edited profiler.ini stays.
echo 'lg_prof_sample = 12' >>"$D/etc/heapprof/profiler.ini"
mk install >install2.out 2>&1
is "$(tail -n 1 "$D/etc/heapprof/profiler.ini")" "lg_prof_sample = 12" "a second install keeps the edited profiler.ini"
like "$(cat install2.out)" "install: $D/etc/heapprof/profiler.ini is there: kept" "and says so"
mk uninstall >uninstall.out 2>&1
is "$?" 0 "make uninstall"
ok $([ ! -e "$D/usr/bin/heapprof" ] && [ ! -e "$D/usr/lib/libheapprof.so" ] &&
     [ ! -e "$D/usr/share/bash-completion/completions/heapprof" ]; echo $?) \
	"removes the command, the library and the completion"
ok $([ -f "$D/etc/heapprof/profiler.ini" ]; echo $?) "but not the edited profiler.ini"
like "$(cat uninstall.out)" "uninstall: $D/etc/heapprof/profiler.ini was edited: kept" "and says so"

# The sample, untouched, goes with uninstall.
rm -f "$D/etc/heapprof/profiler.ini"
mk install >/dev/null 2>&1
mk uninstall >/dev/null 2>&1
ok $([ ! -e "$D/etc/heapprof" ]; echo $?) "an unedited sample is removed, with its directory"

# Other prefixes: $(PREFIX)/etc, so that an install in a home needs no root.
make -n -C "$SRC" --no-print-directory B="$HP_BUILD" PREFIX=/opt/hp DESTDIR="$D" install >n.out 2>&1
like "$(cat n.out)" "$D/opt/hp/etc/heapprof/profiler.ini" "PREFIX=/opt/hp: /opt/hp/etc/heapprof/profiler.ini"
like "$(cat n.out)" "$D/opt/hp/share/bash-completion/completions/heapprof" "and its share/bash-completion"
make -n -C "$SRC" --no-print-directory B="$HP_BUILD" PREFIX=/usr/local SYSCONFDIR=/srv/etc DESTDIR="$D" install >n.out 2>&1
like "$(cat n.out)" "$D/srv/etc/heapprof/profiler.ini" "SYSCONFDIR chooses"
done_testing
