#!/bin/sh
# Every form of LeakSanitizer suppression, matched as LeakSanitizer matches
# it.  Each form suppresses a real leak (a C program's, a C++ template's, a
# shared library's) under the library's gate and under heapprof check --
# the gate passes and "Suppressions used" lists the template with its
# count and bytes -- and a near miss of it suppresses nothing.  The same
# sources built with gcc -fsanitize=leak, run with the same file, say the
# same.  Then LeakSanitizer's own TemplateMatch (gcc's liblsan.a) and
# heapprof's matcher answer alike on every short template and subject.
. "$(dirname "$0")/lib.sh"
plan 44

D=$(pwd -P)
mkdir tmp
export TMPDIR=$D/tmp
CONF=lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_final:false,prof_leak_error:true,prof_prefix:$D/tmp/lib

# ---- the programs ---------------------------------------------------------
# supleak app: 100 bytes from parse_config_entry (supleak.c);
# supleak lib: 200 bytes from supleak_intern in libsupleak.so;
# supleak inline: 300 bytes from copy_name, inlined into read_names;
# supleakxx: 104 bytes from cfg::Pool<long>::grab(int), a C++ template;
# supnode: an 8-byte node from make_node (supnode_make.c) holding the only
# pointer to a 496-byte buffer that main allocated (supnode.c).
cat >supleak_lib.c <<'EOF'
#include <stdlib.h>
__attribute__((noinline)) void *supleak_intern(size_t n) { return malloc(n); }
EOF
cat >supleak.c <<'EOF'
#include <stdlib.h>
#include <string.h>
void *supleak_intern(size_t n);
void *volatile sink;
__attribute__((noinline)) void parse_config_entry(void) { sink = malloc(100); sink = NULL; }
__attribute__((noinline)) void load_library_table(void) { sink = supleak_intern(200); sink = NULL; }
static inline __attribute__((always_inline)) void copy_name(void) { sink = malloc(300); }
__attribute__((noinline)) void read_names(void) { copy_name(); sink = NULL; }
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "app"))
		parse_config_entry();
	else if (argc > 1 && !strcmp(argv[1], "lib"))
		load_library_table();
	else if (argc > 1 && !strcmp(argv[1], "inline"))
		read_names();
	return 0;
}
EOF
cat >supleakxx.cc <<'EOF'
namespace cfg {
template <typename T> struct Pool {
	__attribute__((noinline)) static T *grab(int n) { return new T[n]; }
};
}
long *volatile sink;
int main() { sink = cfg::Pool<long>::grab(13); sink = nullptr; return 0; }
EOF
cat >supnode_make.c <<'EOF'
#include <stdlib.h>
struct node { char *buf; };
__attribute__((noinline)) struct node *make_node(char *buf)
{
	struct node *n = malloc(sizeof(*n));
	n->buf = buf;
	return n;
}
EOF
cat >supnode.c <<'EOF'
#include <stdlib.h>
#include <string.h>
struct node;
struct node *make_node(char *buf);
void *volatile sink;
__attribute__((noinline)) void build(void)
{
	char *buf = malloc(496);
	memset(buf, 1, 496);
	sink = make_node(buf);
	sink = NULL;
}
int main(void) { build(); return 0; }
EOF
mkdir hp lsan
# The library as installed: its file, its soname link (the name the loader
# opens) and the link that -l finds.
cc -g -O0 -fPIC -shared -Wl,-soname,libsupleak.so.1 -o libsupleak.so.1.0 supleak_lib.c &&
	ln -s libsupleak.so.1.0 libsupleak.so.1 && ln -s libsupleak.so.1 libsupleak.so &&
	cc -g -O0 -o hp/supleak supleak.c -L. -lsupleak -Wl,-rpath,"$D" &&
	cc -g -O0 -fsanitize=leak -o lsan/supleak supleak.c -L. -lsupleak -Wl,-rpath,"$D" &&
	cc -g -O0 -o hp/supnode supnode.c supnode_make.c &&
	cc -g -O0 -fsanitize=leak -o lsan/supnode supnode.c supnode_make.c &&
	c++ -g -O0 -o hp/supleakxx supleakxx.cc &&
	c++ -g -O0 -fsanitize=leak -o lsan/supleakxx supleakxx.cc
ok $? "the programs build, bare and with -fsanitize=leak"

# used STATUS OUT: "pass COUNT BYTES TEMPLATE" for the "Suppressions used"
# row in OUT when STATUS was 0, "fail -" when nothing was suppressed and
# it failed.
used() {
	perl -e '
		my ($st, $f) = @ARGV; open my $h, "<", $f or die; my ($in, @rows);
		while (<$h>) {
			s/^<heapprof>: //; $in = 1 if /^Suppressions used:/;
			push @rows, "$1 $2 $3" if $in && /^ +(\d+) +(\d+) (.*)$/;
		}
		print $st == 0 ? "pass" : "fail", " ", @rows ? join(";", @rows) : "-";
	' "$1" "$2"
}

# form SUPPFILE ARGS...: what LeakSanitizer, the library's gate and
# heapprof check make of the program and its argument ARGS with SUPPFILE:
# "lsan:<used> lib:<used> check:<used>".  FORMS_NOLIB=1 leaves the library's
# gate out.
form() {
	_f=$D/$1
	shift
	LSAN_OPTIONS=suppressions=$_f timeout 60 "$D/lsan/$@" >lsan.out 2>&1
	_r="lsan:$(used $? lsan.out)"
	if [ -z "${FORMS_NOLIB:-}" ]; then
		prof "$CONF,leak_suppressions:$_f" timeout 60 "$D/hp/$@" >lib.out 2>&1
		_r="$_r lib:$(used $? lib.out)"
	fi
	timeout 60 "$BIN" check --suppressions "$_f" -- "$D/hp/$@" >check.out 2>&1
	echo "$_r check:$(used $? check.out)"
}

# pair NAME HIT MISS EXPECT ARGS...: the template HIT suppresses and MISS
# does not, each under all three.
pair() {
	_name=$1 _hit=$2 _miss=$3 _exp=$4
	shift 4
	printf 'leak:%s\n' "$_hit" >hit.supp
	printf 'leak:%s\n' "$_miss" >miss.supp
	_lib=" lib:pass $_exp"
	_libmiss=" lib:fail -"
	[ -n "${FORMS_NOLIB:-}" ] && _lib= _libmiss=
	_exp="$_exp $_hit"
	_lib=${_lib:+"$_lib $_hit"}
	is "$(form hit.supp "$@")" "lsan:pass $_exp$_lib check:pass $_exp" "$_name: leak:$_hit suppresses"
	is "$(form miss.supp "$@")" "lsan:fail -$_libmiss check:fail -" "$_name: leak:$_miss does not"
}

# ---- a function name ------------------------------------------------------
pair "a substring" 'config_ent' 'config_entries' "1 100" supleak app
pair "'*' in the middle" 'parse*entry' 'entry*parse' "1 100" supleak app
pair "'*' at the start" '*_config_entry' '*_config_entry_' "1 100" supleak app
pair "'*' at the end" 'parse_conf*' 'parse_conv*' "1 100" supleak app
pair "'^'" '^parse_config' '^config_entry' "1 100" supleak app
pair "'\$'" 'config_entry$' 'parse_config$' "1 100" supleak app
pair "'^...\$'" '^parse_config_entry$' '^parse_config_entr$' "1 100" supleak app

# ---- a C++ name: demangled, '::', a template, its parameters ---------------
pair "C++" 'cfg::Pool<long>::grab' 'cfg::Pool<int>::grab' "1 104" supleakxx
pair "C++ anchored" '^cfg::Pool<*>::grab(int)$' '^cfg::Pool<*>::grab$' "1 104" supleakxx

# ---- a module: by its full path, by its base name --------------------------
# A library is named by the path the loader opened (here its soname link),
# as dl_iterate_phdr gives it, not by the file the link points at.
pair "a library's full path" "^$D/libsupleak.so.1\$" '^libsupleak.so.1$' "1 200" supleak lib
pair "a library's base name" 'libsupleak.so' 'libsupleak.so.2' "1 200" supleak lib
pair "a library's name as the loader opened it" 'libsupleak.so.1$' 'libsupleak.so.1.0' "1 200" supleak lib
printf 'leak:^%s/hp/supleak$\n' "$D" >prog.supp
printf 'leak:^%s/lsan/supleak$\n' "$D" >>prog.supp
is "$(form prog.supp supleak app)" \
	"lsan:pass 1 100 ^$D/lsan/supleak\$ lib:pass 1 100 ^$D/hp/supleak\$ check:pass 1 100 ^$D/hp/supleak\$" \
	"the program's full path suppresses"
printf 'leak:^supleak$\n' >prog.supp
is "$(form prog.supp supleak app)" "lsan:fail - lib:fail - check:fail -" \
	"the program's base name, anchored at both ends, does not"

# ---- a source file, an inlined function: from DWARF, in the library too ---
pair "a source file's full path" "^$D/supleak.c\$" '^supleak.c$' "1 100" supleak app
pair "a source file's base name" 'supleak.c' 'supleak.cc' "1 100" supleak app
pair "an inlined function" '^copy_name$' '^copy_names$' "1 300" supleak inline
# What only a leak suppressed by its source file reaches is hidden with it,
# and counted for nobody: the buffer's own stack names no supnode_make.c.
pair "what a suppressed leak reaches" 'supnode_make.c' 'supnode_makes.c' "1 8" supnode

# ---- the file's own syntax -------------------------------------------------
P="1 100 parse_config_entry"
printf '# leak:nothing here\n\n   # indented comment\n\t\nleak:parse_config_entry\n' >syntax.supp
is "$(form syntax.supp supleak app)" "lsan:pass $P lib:pass $P check:pass $P" \
	"comments and blank lines are skipped, the rule after them is read"
printf '#leak:parse_config_entry\n  # leak:parse_config_entry\n' >syntax.supp
is "$(form syntax.supp supleak app)" "lsan:fail - lib:fail - check:fail -" \
	"a commented-out rule suppresses nothing"
printf 'leak:parse_config_entry # the parser\n' >syntax.supp
is "$(form syntax.supp supleak app)" "lsan:fail - lib:fail - check:fail -" \
	"a '#' after a rule is the pattern's, not a comment"
printf ' \t leak:parse_config_entry \t \r\n' >syntax.supp
is "$(form syntax.supp supleak app)" "lsan:pass $P lib:pass $P check:pass $P" \
	"blanks before 'leak:' and at the end of the line are not the template's"
printf 'leak: parse_config_entry\n' >syntax.supp
is "$(form syntax.supp supleak app)" "lsan:fail - lib:fail - check:fail -" \
	"a blank after 'leak:' is: ' parse_config_entry' matches no name"
printf 'leak:config_entry$trailing\n' >syntax.supp
P='1 100 config_entry$trailing'
is "$(form syntax.supp supleak app)" "lsan:pass $P lib:pass $P check:pass $P" \
	"a '\$' ends the template wherever it stands"

# ---- TemplateMatch itself --------------------------------------------------
# LeakSanitizer's matcher, from gcc's static runtime (its symbols are
# internal: linked without -fsanitize, so nothing of it starts), against
# heapprof's (build/t/unit/leak-suppress --match): every template of up to
# four of a b * $ ^ against every subject of up to four of a b $.
cat >tmatch.cc <<'EOF'
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
namespace __sanitizer { bool TemplateMatch(const char *templ, const char *str); }
static char in[1 << 24], out[1 << 16];
int main()
{
	size_t n = 0, k = 0;
	ssize_t r;
	while (n < sizeof(in) - 1 && (r = read(0, in + n, sizeof(in) - 1 - n)) > 0)
		n += (size_t)r;
	for (char *p = in, *nl; (nl = (char *)memchr(p, '\n', in + n - p)); p = nl + 1) {
		char *tab = (char *)memchr(p, '\t', nl - p);
		*tab = *nl = '\0';
		out[k++] = __sanitizer::TemplateMatch(p, tab + 1) ? '1' : '0';
		out[k++] = '\n';
		if (k > sizeof(out) - 2 || nl + 1 >= in + n) {
			if (write(1, out, k) != (ssize_t)k)
				return 1;
			k = 0;
		}
	}
	/* exit(), not _exit's interceptor: the runtime was never started. */
	syscall(SYS_exit_group, 0);
}
EOF
c++ -O1 -o tmatch tmatch.cc "$(c++ -print-file-name=liblsan.a)" -lpthread -ldl -lrt
ok $? "LeakSanitizer's TemplateMatch links from gcc's liblsan.a"
perl -e '
	my @t = (""); my @s = ("");
	for my $l (1 .. 4) {
		push @t, map { my $x = $_; map { "$x$_" } qw(a b * $ ^) } grep { length == $l - 1 } @t;
		push @s, map { my $x = $_; map { "$x$_" } qw(a b $) } grep { length == $l - 1 } @s;
	}
	for my $t (grep { length } @t) { print "$t\t$_\n" for grep { length } @s }
' >cases
./tmatch <cases >lsan.match
"$TP/unit/leak-suppress" --match <cases >hp.match
is "$(wc -l <lsan.match) $(wc -l <hp.match)" "$(wc -l <cases) $(wc -l <cases)" "both answer every case"
paste cases lsan.match hp.match | awk -F'\t' '$3 != $4' >differ
is "$(wc -l <differ)" 0 "and give the same answers ($(wc -l <cases) cases)"
[ -s differ ] && diag "$(head -n 5 differ)"
done_testing
