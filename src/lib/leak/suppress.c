/*
 * suppress.c -- LeakSanitizer-format leak suppressions (see suppress.h).
 *
 * Owns the rules of each set and the text they point into.  Runs where
 * the leak gate runs (at exit, inside the guard) and wherever a set is
 * built; must not use stdio or the host allocator (memory is
 * base/pages.c's, text goes through base/fmt.c and base/log.c), and
 * matching must not write anything, so that it may run anywhere.
 *
 * A set is an array of rules (grown by doubling, copied) and a list of
 * text blocks, one per source parsed, each holding the origin's name and
 * the templates of that source: a rule's pointers into its block stay
 * valid when the array moves.
 *
 * In leak/, at its bottom: verdict.c calls it; it calls nothing above
 * base/, so the unit tests and the fuzz target take it alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/fmt.h"
#include "base/log.h"
#include "base/pages.h"
#include "leak/suppress.h"
#include "base/banned.h"

#define TYPE_PREFIX "leak:"
#define TYPE_PREFIX_LEN (sizeof(TYPE_PREFIX) - 1)
/* The bad line quoted in a warning is cut here (hp_log cuts at 1 KiB). */
#define QUOTE_MAX 200

/* The text of one source: its origin's name, then its templates, each
 * NUL-terminated.  Mapped as one run of pages. */
struct hp_suppress_text {
	struct hp_suppress_text *next;
	size_t size;   /* mapped, this header included */
	char data[];
};

void hp_suppress_init(struct hp_suppress *set)
{
	memset(set, 0, sizeof(*set));
}

void hp_suppress_release(struct hp_suppress *set)
{
	if (set->rules)
		hp_pages_free(set->rules, set->cap * sizeof(*set->rules));
	for (struct hp_suppress_text *t = set->texts, *next; t; t = next) {
		next = t->next;
		hp_pages_free(t, t->size);
	}
	hp_suppress_init(set);
}

/* ---- reading lines -------------------------------------------------- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

struct cursor {
	const char *p, *end;
	unsigned line;
};

/* The next line that is neither blank nor a comment, trimmed: [*s, *s+*n).
 * False at the end of the text. */
static bool next_line(struct cursor *c, const char **s, size_t *n)
{
	while (c->p < c->end) {
		const char *b = c->p;
		const char *nl = memchr(b, '\n', (size_t)(c->end - b));
		const char *e = nl ? nl : c->end;

		c->p = nl ? nl + 1 : c->end;
		c->line++;
		while (b < e && is_blank(*b))
			b++;
		while (e > b && is_blank(e[-1]))
			e--;
		if (b == e || *b == '#')
			continue;
		*s = b;
		*n = (size_t)(e - b);
		return true;
	}
	return false;
}

/* The template of a rule line (trimmed, n > 0), or false if the line is
 * not a rule.  The template is everything after "leak:", blanks
 * included, as LeakSanitizer takes it: "leak: foo" looks for " foo". */
static bool rule_template(const char *s, size_t n, const char **t, size_t *tn)
{
	if (n < TYPE_PREFIX_LEN || memcmp(s, TYPE_PREFIX, TYPE_PREFIX_LEN) != 0 || memchr(s, '\0', n))
		return false;
	s += TYPE_PREFIX_LEN;
	n -= TYPE_PREFIX_LEN;
	/* Empty or anchors only: LeakSanitizer takes "leak:" and "leak:^"
	 * for "every leak" and "leak:$", "leak:^$" for none; each is surely
	 * a slip, and a gate does not pass on one. */
	if (n == 0 || (n == 1 && (s[0] == '^' || s[0] == '$')) || (n == 2 && s[0] == '^' && s[1] == '$'))
		return false;
	*t = s;
	*tn = n;
	return true;
}

/* ---- building a set ------------------------------------------------- */

/* Room for n rules in all.  Returns 0 or ENOMEM. */
static int reserve(struct hp_suppress *set, size_t n)
{
	if (n <= set->cap)
		return 0;
	if (n > INT_MAX)
		return ENOMEM;   /* rules are named by int indices */
	size_t cap = set->cap ? set->cap * 2 : 64;
	if (cap < n)
		cap = n;
	struct hp_suppress_rule *rules = hp_pages_alloc(cap * sizeof(*rules));
	if (!rules)
		return ENOMEM;
	if (set->rules) {
		memcpy(rules, set->rules, set->nrules * sizeof(*rules));
		hp_pages_free(set->rules, set->cap * sizeof(*rules));
	}
	set->rules = rules;
	set->cap = cap;
	return 0;
}

/* s[0 .. n) made visible into q (room for 4 bytes a byte): a NUL byte as
 * \0, any other control byte but a tab as \xHH, so that a line refused for a byte
 * the terminal does not show never looks valid.  Returns the length. */
static size_t quote(char *q, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\0') {
			q[k++] = '\\';
			q[k++] = '0';
		} else if ((c < 0x20 && c != '\t') || c == 0x7f) {
			q[k++] = '\\';
			q[k++] = 'x';
			q[k++] = hex[c >> 4];
			q[k++] = hex[c & 15];
		} else {
			q[k++] = (char)c;
		}
	}
	return k;
}

static void complain(const char *origin, unsigned line, const char *s, size_t n, unsigned *complaints)
{
	if (++*complaints > HP_SUPPRESS_MAX_COMPLAINTS) {
		if (*complaints == HP_SUPPRESS_MAX_COMPLAINTS + 1)
			hp_log(HP_LOG_WARN,
			       "%s: more lines that are not suppressions; only the first %d are shown",
			       origin, HP_SUPPRESS_MAX_COMPLAINTS);
		return;
	}
	char q[QUOTE_MAX * 4 + 1];
	size_t qn = quote(q, s, n > QUOTE_MAX ? QUOTE_MAX : n);
	hp_log(HP_LOG_WARN, "%s:%u: not a suppression: '%.*s%s' (expected leak:PATTERN)", origin, line,
	       (int)qn, q, n > QUOTE_MAX ? "..." : "");
}

int hp_suppress_parse(struct hp_suppress *set, const char *origin, const char *text, size_t len)
{
	struct cursor c = { text, text + len, 0 };
	size_t origin_len = strlen(origin), nnew = 0, bytes, n, tn;
	const char *s, *t;

	/* First pass, quiet: how many rules, how much text. */
	bytes = sizeof(struct hp_suppress_text) + origin_len + 1;
	while (next_line(&c, &s, &n)) {
		if (rule_template(s, n, &t, &tn)) {
			nnew++;
			bytes += tn + 1;
		}
	}
	struct hp_suppress_text *block = NULL;
	if (nnew) {
		if (set->nrules + nnew < nnew || reserve(set, set->nrules + nnew) ||
		    !(block = hp_pages_alloc(bytes))) {
			hp_log(HP_LOG_ERROR, "%s: no memory for %zu suppressions; ignored", origin, nnew);
			return ENOMEM;
		}
		block->size = bytes;
		block->next = set->texts;
		set->texts = block;
		memcpy(block->data, origin, origin_len + 1);
	}

	/* Second pass: keep the rules, report the rest. */
	char *w = block ? block->data + origin_len + 1 : NULL;
	unsigned complaints = 0;
	c = (struct cursor){ text, text + len, 0 };
	while (next_line(&c, &s, &n)) {
		if (!rule_template(s, n, &t, &tn)) {
			set->nbad++;
			if (!set->quiet)
				complain(origin, c.line, s, n, &complaints);
			continue;
		}
		struct hp_suppress_rule *r = &set->rules[set->nrules++];
		memcpy(w, t, tn);
		w[tn] = '\0';
		*r = (struct hp_suppress_rule){ .templ = w, .origin = block->data, .line = c.line,
						.len = (uint32_t)tn };
		w += tn + 1;
	}
	return 0;
}

/* Reads all of fd (a regular file of size bytes) into pages.  Returns 0
 * or an errno value; *got may be less than size if the file shrank. */
static int slurp(int fd, size_t size, char **buf, size_t *got)
{
	*got = 0;
	*buf = hp_pages_alloc(size);
	if (!*buf)
		return ENOMEM;
	while (*got < size) {
		ssize_t n = read(fd, *buf + *got, size - *got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;
			hp_pages_free(*buf, size);
			*buf = NULL;
			return err;
		}
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

int hp_suppress_read_file(struct hp_suppress *set, const char *path)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int err = 0;

	/* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	 * writer, at exit, for ever.  The fstat below refuses it. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		hp_log(HP_LOG_WARN, "%s: cannot read suppressions: %s", path, strerrordesc_np(err));
		return err;
	}
	if (fstat(fd, &st) != 0) {
		err = errno;
		hp_log(HP_LOG_WARN, "%s: cannot read suppressions: %s", path, strerrordesc_np(err));
	} else if (!S_ISREG(st.st_mode)) {
		err = EINVAL;
		hp_log(HP_LOG_WARN, "%s: not a regular file; suppressions ignored", path);
	} else if ((uint64_t)st.st_size > HP_SUPPRESS_MAX_FILE) {
		err = EFBIG;
		hp_log(HP_LOG_WARN, "%s: larger than %u bytes; suppressions ignored", path,
		       HP_SUPPRESS_MAX_FILE);
	} else if (st.st_size > 0) {
		err = slurp(fd, (size_t)st.st_size, &buf, &got);
		if (err)
			hp_log(HP_LOG_WARN, "%s: cannot read suppressions: %s", path, strerrordesc_np(err));
	}
	close(fd);
	if (buf) {
		err = hp_suppress_parse(set, path, buf, got);
		hp_pages_free(buf, (size_t)st.st_size);
	}
	return err;
}

int hp_suppress_add_builtin(struct hp_suppress *set)
{
	/* Deliberately empty: entries for the runtimes' one-time and cache
	 * allocations come one by one, each with its reason, as
	 * hp_suppress_parse(set, "<built-in>", ...) of a static string. */
	(void)set;
	return 0;
}

/* ---- matching ------------------------------------------------------- */

/*
 * LeakSanitizer's TemplateMatch (sanitizer_common), to the letter.  The
 * template is read left to right in pieces cut at '*' and '$'.  Each piece
 * is looked for at its first occurrence after where the previous one
 * ended, and never again elsewhere: there is no backtracking.  A leading
 * '^' makes the first piece a prefix (unless a '*' comes first).  A '$'
 * ends the template wherever it stands (what follows is never read): the
 * subject must be used up there, unless a '*' came right before it.  So
 * "foo$" does not match "foofoo" (the first "foo" is not at the end), and
 * "a$b" means "a$".  t[0 .. tn) holds no NUL; sn > 0.
 */
static bool template_match(const char *t, size_t tn, const char *s, size_t sn)
{
	const char *te = t + tn, *se = s + sn;
	bool start = false, star = false;

	if (t < te && *t == '^') {
		start = true;
		t++;
	}
	while (t < te) {
		if (*t == '*') {
			t++;
			start = false;
			star = true;
			continue;
		}
		if (*t == '$')
			return s == se || star;
		size_t seg = 0;
		while (t + seg < te && t[seg] != '*' && t[seg] != '$')
			seg++;
		/* Anchored, the first occurrence must be at s: no need to look
		 * further. */
		const char *at = !start ? memmem(s, (size_t)(se - s), t, seg)
			: (size_t)(se - s) >= seg && !memcmp(s, t, seg) ? s : NULL;
		if (!at)
			return false;
		s = at + seg;
		t += seg;
		start = star = false;
	}
	return true;
}

bool hp_suppress_template_match(const char *templ, const char *subject)
{
	if (!subject || !*subject)
		return false;
	return template_match(templ, strlen(templ), subject, strlen(subject));
}

static bool rule_matches(const struct hp_suppress_rule *r, const char *s, size_t sn)
{
	return template_match(r->templ, r->len, s, sn);
}

int hp_suppress_match(const struct hp_suppress *set, const char *module, const char *function,
		      const char *file)
{
	const char *subjects[3] = { module ? module : HP_SUPPRESS_UNKNOWN_MODULE, function, file };

	for (int k = 0; k < 3; k++) {
		const char *s = subjects[k];
		if (!s || !*s)
			continue;
		size_t sn = strlen(s);
		for (size_t i = 0; i < set->nrules; i++)
			if (rule_matches(&set->rules[i], s, sn))
				return (int)i;
	}
	return -1;
}

int hp_suppress_match_stack(const struct hp_suppress *set, const struct hp_suppress_frame *frames,
			    size_t n)
{
	if (!set->nrules)
		return -1;
	for (size_t f = 0; f < n; f++) {
		int i = hp_suppress_match(set, frames[f].module, frames[f].function, frames[f].file);
		if (i >= 0)
			return i;
	}
	return -1;
}

void hp_suppress_hit(struct hp_suppress *set, int rule, uint64_t count, uint64_t bytes)
{
	if (rule < 0 || (size_t)rule >= set->nrules)
		return;
	HP_ADD(&set->rules[rule].hits, count);
	HP_ADD(&set->rules[rule].bytes, bytes);
}

int hp_suppress_next_used(const struct hp_suppress *set, int after)
{
	for (size_t i = after < 0 ? 0 : (size_t)after + 1; i < set->nrules; i++)
		if (HP_LOAD(&set->rules[i].hits))
			return (int)i;
	return -1;
}

/* ---- the report ----------------------------------------------------- */

static const char rule_line[] = "-----------------------------------------------------";

/* Where report lines go: a caller's buffer, or the log. */
struct sink {
	char *buf;
	size_t cap, len;   /* len: the full length, past cap when truncated */
	bool to_log;
	enum hp_log_level level;
};

static void put(struct sink *k, const char *p, size_t n)
{
	if (k->cap && k->len < k->cap - 1) {
		size_t room = k->cap - 1 - k->len;
		memcpy(k->buf + k->len, p, n < room ? n : room);
	}
	k->len += n;
}

/* One line: head then tail. */
static void line(struct sink *k, const char *head, const char *tail)
{
	if (k->to_log) {
		hp_log(k->level, "%s%s", head, tail);
		return;
	}
	put(k, head, strlen(head));
	put(k, tail, strlen(tail));
	put(k, "\n", 1);
}

static void report(const struct hp_suppress *set, struct sink *k)
{
	char counts[64];
	int i = hp_suppress_next_used(set, -1);

	if (i < 0)
		return;
	line(k, rule_line, "");
	line(k, "Suppressions used:", "");
	line(k, "  count      bytes template", "");
	for (; i >= 0; i = hp_suppress_next_used(set, i)) {
		const struct hp_suppress_rule *r = &set->rules[i];
		hp_fmt(counts, sizeof(counts), "%7llu %10llu ", (unsigned long long)HP_LOAD(&r->hits),
		       (unsigned long long)HP_LOAD(&r->bytes));
		line(k, counts, r->templ);
	}
	line(k, rule_line, "");
}

size_t hp_suppress_format_report(const struct hp_suppress *set, char *buf, size_t cap)
{
	struct sink k = { .buf = buf, .cap = cap };

	report(set, &k);
	if (cap)
		buf[k.len < cap ? k.len : cap - 1] = '\0';
	return k.len;
}

void hp_suppress_log_report(const struct hp_suppress *set, enum hp_log_level level)
{
	struct sink k = { .to_log = true, .level = level };

	report(set, &k);
}
