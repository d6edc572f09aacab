/*
 * leak-suppress.c -- unit tests of leak/suppress: LeakSanitizer-format
 * suppressions parsed, matched against frames, counted and reported.
 *
 * The library's messages go to a log file in a scratch directory (made
 * with mkdtemp under $TMPDIR or /tmp, removed at the end), which the tests
 * read back: each check sees the lines logged since the previous one.
 *
 * "leak-suppress --match" is not a test but the matcher alone, for
 * t/0615-leak-suppress.t to hold against LeakSanitizer's own: it reads
 * lines "TEMPLATE<tab>SUBJECT" and prints 1 or 0 for each.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "leak/suppress.h"

#include "tap.h"

static char dir[256];
static char log_path[300];
static long log_seen;

/* The lines logged since the last call, each from "<heapprof>: " on (the
 * log file puts a time and a pid before it). */
static const char *log_take(void)
{
	static char out[16384];
	char line[2048];
	size_t n = 0;
	FILE *f = fopen(log_path, "r");

	out[0] = '\0';
	if (!f)
		return out;
	fseek(f, log_seen, SEEK_SET);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "<heapprof>: ");
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s", p ? p : line);
		if (n >= sizeof(out))
			n = sizeof(out) - 1;
	}
	log_seen = ftell(f);
	fclose(f);
	return out;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int parse_str(struct hp_suppress *set, const char *origin, const char *text)
{
	return hp_suppress_parse(set, origin, text, strlen(text));
}

/* ---- TemplateMatch --------------------------------------------------- */

#define M(t, s) hp_suppress_template_match(t, s)

static void test_template(void)
{
	ok(M("foo", "foo") && M("foo", "xfooy") && M("foo", "barfoo") && !M("foo", "fo") && !M("foo", "FOO"),
	   "a template is a case-sensitive substring");
	ok(M("a*c", "abbc") && M("a*c", "ac") && M("a*c", "xxabcxx") && !M("a*c", "ca") &&
	   !M("foo*bar", "barfoo") && M("foo*bar", "foo::bar"),
	   "'*' in the middle matches any run, none included, in order");
	ok(M("a*b*c", "aXbYc") && !M("a*b*c", "acb") && M("a**b", "ab"),
	   "several '*' (and '**' as one)");
	ok(M("^foo", "foobar") && M("^foo", "foo") && !M("^foo", "xfoo") && !M("^foo", " foo"),
	   "a leading '^' anchors at the start");
	ok(M("bar$", "foobar") && M("bar$", "bar") && !M("bar$", "barx") && !M("bar$", "bar\n"),
	   "a trailing '$' anchors at the end");
	ok(!M("foo$", "foofoo") && !M("a*b$", "aXbYb") && !M("o$", "foo") && M("oo$", "foo"),
	   "'$' looks at the first occurrence only, as LeakSanitizer's TemplateMatch");
	ok(M("^foo$", "foo") && !M("^foo$", "foox") && !M("^foo$", "xfoo") && !M("^foo$", "foofoo"),
	   "'^...$' is an exact match");
	ok(M("^a*b$", "ab") && M("^a*b$", "aXXb") && !M("^a*b$", "xab") && !M("^a*b$", "abx") &&
	   !M("^a*a$", "a") && M("^a*a$", "aa") && !M("^a*a$", "aaa"),
	   "'^a*b$': prefix and suffix, no overlap, no backtracking");
	ok(M("*foo*", "xfooy") && M("*foo", "foo") && M("foo*", "foo") && M("*", "x") &&
	   M("^*foo", "xfoo") && M("foo*$", "foox") && M("^*$", "x"),
	   "'*' at either end, and next to an anchor");
	ok(!M("*", "") && !M("foo", "") && !M("*", NULL) && !M("^*$", ""),
	   "an empty or unknown subject matches nothing, not even '*'");
	ok(M("a$b", "xa") && !M("a$b", "xa$by") && M("a$$", "xa") && !M("$a", "a") && M("a*$b", "xay"),
	   "a '$' anywhere ends the template: what follows it is never read");
	ok(M("a^b", "a^b") && M("^^a", "^a") && !M("^^a", "a"), "'^' after the start is itself");
	ok(M(" foo", "x foo") && !M(" foo", "foo"), "a blank is an ordinary character");
	ok(M("operator new(unsigned long)", "operator new(unsigned long)") &&
	   M("std::vector<*>::push_back", "std::vector<int, std::allocator<int> >::push_back"),
	   "C++ names, spaces and all");
}

/* Brute force: the template made into a whole-string glob.  Without a
 * '$', LeakSanitizer's leftmost pieces are a true glob (the leftmost place
 * for a piece leaves the most room for the rest); with one they are not,
 * and t/0615-leak-suppress.t compares with LeakSanitizer's own code. */
static int ref_glob(const char *t, const char *s)
{
	if (!*t)
		return !*s;
	if (*t == '*')
		return ref_glob(t + 1, s) || (*s && ref_glob(t, s + 1));
	return *s == *t && ref_glob(t + 1, s + 1);
}

static int ref_match(const char *t, const char *s)
{
	char g[32];
	size_t n = strlen(t);
	int start = n > 0 && t[0] == '^';

	if (!*s)
		return 0;
	snprintf(g, sizeof(g), "%s%.*s*", start ? "" : "*", (int)(n - start), t + start);
	return ref_glob(g, s);
}

static void test_template_exhaustive(void)
{
	static const char alpha_t[] = "ab*";
	char t[16], s[16];
	long checks = 0, wrong = 0;

	/* Every template of up to 5 of a, b, '*', with and without '^',
	 * against every subject of 1 to 6 of a, b. */
	for (int tl = 0; tl <= 5; tl++) {
		int tcount = 1;
		for (int i = 0; i < tl; i++)
			tcount *= 3;
		for (int ti = 0; ti < tcount; ti++) {
			for (int anc = 0; anc < 2; anc++) {
				size_t k = 0;
				if (anc & 1)
					t[k++] = '^';
				for (int i = 0, v = ti; i < tl; i++, v /= 3)
					t[k++] = alpha_t[v % 3];
				t[k] = '\0';
				for (int sl = 1; sl <= 6; sl++) {
					for (int si = 0; si < 1 << sl; si++) {
						for (int i = 0; i < sl; i++)
							s[i] = si >> i & 1 ? 'b' : 'a';
						s[sl] = '\0';
						checks++;
						if (M(t, s) != ref_match(t, s)) {
							if (wrong++ < 5)
								diag("'%s' vs '%s': got %d", t, s, M(t, s));
						}
					}
				}
			}
		}
	}
	ok(wrong == 0, "agrees with a brute-force glob on all %ld small cases", checks);
}

/* ---- parsing --------------------------------------------------------- */

static void test_parse(void)
{
	struct hp_suppress set;
	char text[] =
		"# a comment\n"
		"\n"
		"leak:first\n"
		"   leak:indented\t \n"
		"leak:crlf\r\n"
		"\t# an indented comment\n"
		"leak:  spaced after the colon\n"
		"   \r\n"
		"leak:^anchored$\n"
		"leak:last-without-newline";

	hp_suppress_init(&set);
	log_take();
	ok(parse_str(&set, "test.supp", text) == 0, "parse returns 0");
	is_int((long long)set.nrules, 6, "six rules");
	is_int((long long)set.nbad, 0, "no bad lines");
	is_str(log_take(), "", "and nothing logged");
	if (set.nrules == 6) {
		is_str(set.rules[0].templ, "first", "a rule's template");
		is_str(set.rules[1].templ, "indented", "leading and trailing blanks trimmed");
		is_str(set.rules[2].templ, "crlf", "CR before the newline trimmed");
		is_str(set.rules[3].templ, "  spaced after the colon",
		       "blanks after 'leak:' are the template's, as in LeakSanitizer");
		is_str(set.rules[4].templ, "^anchored$", "the template as written, anchors and all");
		ok(set.rules[4].len == 10 && set.rules[3].len == 24, "lengths precomputed");
		is_str(set.rules[5].templ, "last-without-newline", "the last line needs no newline");
		ok(set.rules[0].line == 3 && set.rules[1].line == 4 && set.rules[3].line == 7 &&
		   set.rules[5].line == 10,
		   "rules know their lines, counting comments and blanks");
		ok(!strcmp(set.rules[0].origin, "test.supp") && !strcmp(set.rules[5].origin, "test.supp"),
		   "and their origin");
		ok(set.rules[0].hits == 0 && set.rules[0].bytes == 0, "with no hits yet");
	}
	/* The templates are copies: the text may go. */
	memset(text, 'x', sizeof(text) - 1);
	ok(set.nrules == 6 && !strcmp(set.rules[0].templ, "first") && !strcmp(set.rules[5].templ,
	   "last-without-newline"), "templates are copied, not borrowed");

	ok(hp_suppress_parse(&set, "empty", "", 0) == 0 && set.nrules == 6, "empty text adds nothing");
	ok(parse_str(&set, "comments", "# only\n\n#comments\n") == 0 && set.nrules == 6 && set.nbad == 0,
	   "comments and blank lines only add nothing");
	hp_suppress_release(&set);
	ok(set.nrules == 0 && set.rules == NULL && set.nbad == 0, "release empties the set");
	hp_suppress_release(&set);
	ok(1, "and releasing an empty set is fine");
}

static void test_parse_bad(void)
{
	struct hp_suppress set;
	const char *text =
		"leek:typo\n"             /* 1 */
		"no colon at all\n"       /* 2 */
		"leak:\n"                 /* 3 */
		"leak:   \t\n"            /* 4 */
		"leak:^\n"                /* 5 */
		"leak:$\n"                /* 6 */
		"leak:^$\n"               /* 7 */
		"Leak:upper\n"            /* 8 */
		"leak :spaced\n"          /* 9 */
		"race:other_sanitizer\n"  /* 10 */
		"leak:good\n"             /* 11 */
		"lea\n"                   /* 12 */
		"leak:*\n";               /* 13 */

	hp_suppress_init(&set);
	log_take();
	ok(parse_str(&set, "bad.supp", text) == 0, "bad lines do not fail the parse");
	is_int((long long)set.nbad, 11, "eleven bad lines counted");
	ok(set.nrules == 2 && !strcmp(set.rules[0].templ, "good") && set.rules[0].line == 11 &&
	   !strcmp(set.rules[1].templ, "*"),
	   "the good ones kept, 'leak:*' among them");
	is_str(log_take(),
	       "<heapprof>: bad.supp:1: not a suppression: 'leek:typo' (expected leak:PATTERN)\n"
	       "<heapprof>: bad.supp:2: not a suppression: 'no colon at all' (expected leak:PATTERN)\n"
	       "<heapprof>: bad.supp:3: not a suppression: 'leak:' (expected leak:PATTERN)\n"
	       "<heapprof>: bad.supp:4: not a suppression: 'leak:' (expected leak:PATTERN)\n"
	       "<heapprof>: bad.supp:5: not a suppression: 'leak:^' (expected leak:PATTERN)\n"
	       "<heapprof>: bad.supp:6: not a suppression: 'leak:$' (expected leak:PATTERN)\n"
	       "<heapprof>: bad.supp:7: not a suppression: 'leak:^$' (expected leak:PATTERN)\n"
	       "<heapprof>: bad.supp:8: not a suppression: 'Leak:upper' (expected leak:PATTERN)\n"
	       "<heapprof>: bad.supp:9: not a suppression: 'leak :spaced' (expected leak:PATTERN)\n"
	       "<heapprof>: bad.supp:10: not a suppression: 'race:other_sanitizer' (expected leak:PATTERN)\n"
	       "<heapprof>: bad.supp:12: not a suppression: 'lea' (expected leak:PATTERN)\n",
	       "one warning per bad line, naming origin and line");

	/* A NUL byte inside a line: the line is bad, the rest is read. */
	const char nul[] = "leak:a\0b\nleak:after\n";
	ok(hp_suppress_parse(&set, "nul.supp", nul, sizeof(nul) - 1) == 0 && set.nrules == 3 &&
	   !strcmp(set.rules[2].templ, "after") && set.rules[2].line == 2 && set.nbad == 12,
	   "a line with a NUL byte is skipped, the next one kept");
	is_str(log_take(), "<heapprof>: nul.supp:1: not a suppression: 'leak:a\\0b' (expected leak:PATTERN)\n",
	       "and its warning shows the NUL as \\0, and what follows it");

	/* Many bad lines: twenty warnings, then one line for the rest. */
	char many[2048] = "";
	for (int i = 0; i < 25; i++)
		strcat(many, "bogus\n");
	strcat(many, "leak:still_read\n");
	ok(parse_str(&set, "many.supp", many) == 0 && set.nbad == 12 + 25 && set.nrules == 4 &&
	   !strcmp(set.rules[3].templ, "still_read") && set.rules[3].line == 26,
	   "25 bad lines counted, the good one after them kept");
	const char *logged = log_take();
	is_int(count_lines(logged), HP_SUPPRESS_MAX_COMPLAINTS + 1, "twenty warnings and one more line");
	ok(strstr(logged, "many.supp:20: not a suppression") && !strstr(logged, "many.supp:21:") &&
	   strstr(logged, "<heapprof>: many.supp: more lines that are not suppressions; only the first 20 are shown\n"),
	   "the twentieth is the last shown, and the rest are announced once");

	char longline[1000] = "leek:";
	memset(longline + 5, 'z', 400);
	longline[405] = '\0';
	parse_str(&set, "long.supp", longline);
	logged = log_take();
	ok(strstr(logged, "long.supp:1: not a suppression: 'leek:zzz") && strstr(logged, "...' (expected") &&
	   strlen(logged) < 300,
	   "a long bad line is quoted in part");

	/* quiet (heapprof check said it already): counted, not said. */
	size_t nbad = set.nbad;
	set.quiet = true;
	ok(parse_str(&set, "quiet.supp", "bogus\nleak:kept\n") == 0 && set.nbad == nbad + 1 &&
	   !strcmp(set.rules[set.nrules - 1].templ, "kept"),
	   "quiet: a bad line is still skipped and counted");
	is_str(log_take(), "", "and nothing is said");
	hp_suppress_release(&set);
}

static void test_several_sources(void)
{
	struct hp_suppress set;
	char text[8192] = "";

	hp_suppress_init(&set);
	parse_str(&set, "user.supp", "leak:mine\n");
	const char *first = set.rules[0].templ;
	/* Enough rules to grow the array more than once. */
	for (int i = 0; i < 300; i++)
		sprintf(text + strlen(text), "leak:rule%03d\n", i);
	ok(parse_str(&set, "<built-in>", text) == 0 && set.nrules == 301, "rules from a second source follow");
	ok(set.rules[0].templ == first && !strcmp(set.rules[0].templ, "mine") &&
	   !strcmp(set.rules[0].origin, "user.supp") && set.rules[0].line == 1,
	   "the first source's rules are kept, where they were");
	ok(!strcmp(set.rules[1].templ, "rule000") && !strcmp(set.rules[300].templ, "rule299") &&
	   !strcmp(set.rules[300].origin, "<built-in>") && set.rules[300].line == 300,
	   "the second's are in order, with their own origin and lines");
	ok(hp_suppress_match(&set, NULL, "rule299", NULL) == 300 && hp_suppress_match(&set, NULL, "mine", NULL) == 0,
	   "and all match");
	int before = (int)set.nrules;
	ok(hp_suppress_add_builtin(&set) == 0 && (int)set.nrules == before,
	   "hp_suppress_add_builtin adds nothing (yet)");
	hp_suppress_release(&set);
}

/* ---- matching frames ------------------------------------------------- */

static void test_match(void)
{
	struct hp_suppress set;

	hp_suppress_init(&set);
	ok(hp_suppress_match(&set, "/lib/libc.so.6", "malloc", "malloc.c") == -1, "an empty set matches nothing");
	parse_str(&set, "frames.supp",
		  "leak:libfoo.so\n"          /* 0: a module */
		  "leak:^cache_init$\n"       /* 1: a function, exactly */
		  "leak:third_party/*.c\n"    /* 2: a source file */
		  "leak:<unknown module>\n"   /* 3: JIT code and the like */
		  "leak:cache_*\n"            /* 4: shadowed by 1 for cache_init */
		  "leak:Widget::\n");         /* 5 */
	ok(hp_suppress_match(&set, "/usr/lib/x86_64-linux-gnu/libfoo.so.1.2", "anything", "x.c") == 0,
	   "by module: the full path contains the template");
	ok(hp_suppress_match(&set, "/usr/bin/app", "cache_init", NULL) == 1, "by function");
	ok(hp_suppress_match(&set, "/usr/bin/app", "main", "/src/third_party/zlib/inflate.c") == 2,
	   "by source file");
	ok(hp_suppress_match(&set, "/usr/bin/app", "cache_init", "/src/third_party/x.c") == 1 &&
	   hp_suppress_match(&set, "/usr/bin/app", "cache_fill", NULL) == 4,
	   "first match wins: rules in the order added");
	ok(hp_suppress_match(&set, "/usr/bin/app", "main", "/src/main.c") == -1 &&
	   hp_suppress_match(&set, "/usr/bin/app", NULL, NULL) == -1 &&
	   hp_suppress_match(&set, "/usr/bin/app", "", "") == -1,
	   "no match, and unknown (NULL or empty) function and file match nothing");
	ok(hp_suppress_match(&set, NULL, "main", NULL) == 3 && hp_suppress_match(&set, "", "main", NULL) == -1,
	   "an unknown (NULL) module is '<unknown module>', as in LSan");
	/* LSan's order: the module against every rule before the function. */
	ok(hp_suppress_match(&set, "/opt/libfoo.so", "cache_init", NULL) == 0 &&
	   hp_suppress_match(&set, "/opt/Widget::plugin.so", "cache_init", NULL) == 5,
	   "the module is tried first, against every rule, then the function");
	ok(hp_suppress_match(&set, "/usr/bin/app", "Widget::Widget()", NULL) == 5, "a C++ method by its class");

	struct hp_suppress_frame stack[] = {
		{ "/lib/x86_64-linux-gnu/libc.so.6", "malloc", NULL },
		{ "/usr/bin/app", "Widget::make", "/src/widget.cc" },
		{ "/usr/lib/libfoo.so", "foo_call", NULL },
	};
	ok(hp_suppress_match_stack(&set, stack, 3) == 5, "a stack: the innermost matching frame decides");
	ok(hp_suppress_match_stack(&set, stack + 2, 1) == 0 && hp_suppress_match_stack(&set, stack, 1) == -1 &&
	   hp_suppress_match_stack(&set, stack, 0) == -1,
	   "one frame, no frame matching, and no frames at all");
	hp_suppress_release(&set);
}

/* ---- hits and the report --------------------------------------------- */

static void test_hits_and_report(void)
{
	struct hp_suppress set;
	char buf[1024];

	hp_suppress_init(&set);
	parse_str(&set, "r.supp", "leak:never_used\nleak:libfoo.so\nleak:*LSanTestLeakingFunc*\n");
	ok(hp_suppress_next_used(&set, -1) == -1, "no rule used yet");
	ok(hp_suppress_format_report(&set, buf, sizeof(buf)) == 0 && buf[0] == '\0',
	   "no report when nothing was suppressed");
	log_take();
	hp_suppress_log_report(&set, HP_LOG_INFO);
	is_str(log_take(), "", "and nothing logged");

	hp_suppress_hit(&set, 2, 1, 666);
	hp_suppress_hit(&set, 1, 5, 100);
	hp_suppress_hit(&set, 1, 3, 28);
	hp_suppress_hit(&set, -1, 7, 7);
	hp_suppress_hit(&set, 3, 7, 7);
	ok(set.rules[1].hits == 8 && set.rules[1].bytes == 128 && set.rules[2].hits == 1 &&
	   set.rules[2].bytes == 666 && set.rules[0].hits == 0,
	   "hits add up per rule; -1 and out of range are ignored");
	int seen[4], n = 0;
	for (int i = -1; n < 4 && (i = hp_suppress_next_used(&set, i)) >= 0;)
		seen[n++] = i;
	ok(n == 2 && seen[0] == 1 && seen[1] == 2, "the used rules, in order, unused skipped");

	const char *want =
		"-----------------------------------------------------\n"
		"Suppressions used:\n"
		"  count      bytes template\n"
		"      8        128 libfoo.so\n"
		"      1        666 *LSanTestLeakingFunc*\n"
		"-----------------------------------------------------\n";
	size_t len = hp_suppress_format_report(&set, buf, sizeof(buf));
	is_str(buf, want, "the report in LeakSanitizer's shape");
	is_int((long long)len, (long long)strlen(want), "returns its length");
	ok(hp_suppress_format_report(&set, NULL, 0) == strlen(want), "cap 0: only the length");
	char small[20];
	memset(small, '#', sizeof(small));
	len = hp_suppress_format_report(&set, small, sizeof(small));
	ok(len == strlen(want) && strlen(small) == sizeof(small) - 1 && !strncmp(small, want, sizeof(small) - 1),
	   "truncated to fit, NUL-terminated, full length returned");

	hp_suppress_hit(&set, 0, 1234567, 9876543210ULL);
	hp_suppress_format_report(&set, buf, sizeof(buf));
	ok(strstr(buf, "\n1234567 9876543210 never_used\n") != NULL, "wide numbers push the columns, as %%7zu %%10zu do");

	log_take();
	hp_suppress_log_report(&set, HP_LOG_INFO);
	is_str(log_take(),
	       "<heapprof>: -----------------------------------------------------\n"
	       "<heapprof>: Suppressions used:\n"
	       "<heapprof>:   count      bytes template\n"
	       "<heapprof>: 1234567 9876543210 never_used\n"
	       "<heapprof>:       8        128 libfoo.so\n"
	       "<heapprof>:       1        666 *LSanTestLeakingFunc*\n"
	       "<heapprof>: -----------------------------------------------------\n",
	       "the same report through the log");
	hp_suppress_release(&set);
}

/* ---- files ------------------------------------------------------------ */

static void test_files(void)
{
	struct hp_suppress set;
	char path[400], sub[400], fifo[400], big[400];

	hp_suppress_init(&set);
	snprintf(path, sizeof(path), "%s/supp.XXXXXX", dir);
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	ok(f != NULL, "a temporary suppression file");
	if (!f)
		return;
	fputs("# LSan suppressions\nleak:libfoo.so\r\nbogus line\nleak:^make_cache$\n", f);
	fclose(f);
	log_take();
	ok(hp_suppress_read_file(&set, path) == 0 && set.nrules == 2 && set.nbad == 1, "read_file reads it");
	ok(!strcmp(set.rules[0].templ, "libfoo.so") && !strcmp(set.rules[1].templ, "^make_cache$") &&
	   !strcmp(set.rules[1].origin, path) && set.rules[1].line == 4,
	   "its rules, with the path as origin");
	char want[600];
	snprintf(want, sizeof(want), "<heapprof>: %s:3: not a suppression: 'bogus line' (expected leak:PATTERN)\n", path);
	is_str(log_take(), want, "a bad line is reported as PATH:LINE");
	ok(hp_suppress_match(&set, "/usr/lib/libfoo.so.1", "f", NULL) == 0 &&
	   hp_suppress_match(&set, "/bin/app", "make_cache", NULL) == 1,
	   "and they match");

	/* An empty file, a missing one. */
	f = fopen(path, "w");
	fclose(f);
	ok(hp_suppress_read_file(&set, path) == 0 && set.nrules == 2 && !*log_take(),
	   "an empty file adds nothing, quietly");
	snprintf(sub, sizeof(sub), "%s/missing.supp", dir);
	ok(hp_suppress_read_file(&set, sub) == ENOENT && set.nrules == 2, "a missing file: ENOENT");
	snprintf(want, sizeof(want), "<heapprof>: %s: cannot read suppressions: No such file or directory\n", sub);
	is_str(log_take(), want, "one line says so");

	/* Not regular files: a directory, a FIFO (which must not block), a device. */
	ok(hp_suppress_read_file(&set, dir) == EINVAL && set.nrules == 2, "a directory is refused (EINVAL)");
	snprintf(want, sizeof(want), "<heapprof>: %s: not a regular file; suppressions ignored\n", dir);
	is_str(log_take(), want, "with one line");
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ok(mkfifo(fifo, 0600) == 0, "a FIFO");
	alarm(10);   /* a regression would hang here */
	ok(hp_suppress_read_file(&set, fifo) == EINVAL && set.nrules == 2, "a FIFO is refused without waiting");
	alarm(0);
	snprintf(want, sizeof(want), "<heapprof>: %s: not a regular file; suppressions ignored\n", fifo);
	is_str(log_take(), want, "with one line");
	ok(hp_suppress_read_file(&set, "/dev/null") == EINVAL && set.nrules == 2 &&
	   count_lines(log_take()) == 1,
	   "a device is refused, with one line");

	/* Exactly the limit is read; one byte more is not. */
	snprintf(big, sizeof(big), "%s/big.supp", dir);
	f = fopen(big, "w");
	long written = 0;
	int rules = 0;
	char last[32] = "";
	while (written + 32 <= HP_SUPPRESS_MAX_FILE) {
		snprintf(last, sizeof(last), "r%09d", rules++);
		written += fprintf(f, "leak:%s\n", last);   /* 16 bytes */
	}
	while (written < HP_SUPPRESS_MAX_FILE - 1)
		written += fprintf(f, "#");
	written += fprintf(f, "\n");
	fclose(f);
	struct stat st;
	ok(stat(big, &st) == 0 && st.st_size == HP_SUPPRESS_MAX_FILE, "a file of exactly 1 MiB");
	ok(hp_suppress_read_file(&set, big) == 0 && (int)set.nrules == 2 + rules && !*log_take(),
	   "is read (%d rules)", rules);
	ok(!strcmp(set.rules[set.nrules - 1].templ, last) && set.rules[set.nrules - 1].line == (unsigned)rules,
	   "all of it, to the last rule");
	f = fopen(big, "a");
	fputc('\n', f);
	fclose(f);
	size_t had = set.nrules;
	ok(hp_suppress_read_file(&set, big) == EFBIG && set.nrules == had, "one byte more is refused (EFBIG)");
	snprintf(want, sizeof(want), "<heapprof>: %s: larger than 1048576 bytes; suppressions ignored\n", big);
	is_str(log_take(), want, "with one line");
	hp_suppress_release(&set);
}

/* The matcher alone (see the top of this file). */
static int match_lines(void)
{
	char line[4096];

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		char *tab = strchr(line, '\t');
		if (!tab)
			return 2;
		*tab = '\0';
		puts(M(line, tab + 1) ? "1" : "0");
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");

	if (argc == 2 && !strcmp(argv[1], "--match"))
		return match_lines();

	snprintf(dir, sizeof(dir), "%s/heapprof-suppress.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(log_path, sizeof(log_path), "%s/log", dir);
	if (hp_log_configure(log_path, 0, 0) != 0) {
		printf("Bail out! cannot log to %s\n", log_path);
		return 1;
	}
	test_template();
	test_template_exhaustive();
	test_parse();
	test_parse_bad();
	test_several_sources();
	test_match();
	test_hits_and_report();
	test_files();

	hp_log_configure(NULL, 0, 0);
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ok(system(cmd) == 0, "scratch directory removed");
	return done_testing();
}
