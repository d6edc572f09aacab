/*
 * supfile.c -- a suppression file as heapprof check reads it (see
 * supfile.h).  The grammar and the matching are the library's
 * (src/lib/leak/suppress.c), written again here because the command and
 * the library share no code: a change to one is a change to both, and
 * t/0615-leak-suppress.t runs the same files through each.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supfile.h"
#include "util.h"

#define SUPFILE_MAX (1u << 20)
#define QUOTE_LEN 200

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The template of a trimmed line (everything after "leak:", blanks
 * included, as LeakSanitizer takes it), or NULL when the line is not a
 * rule: empty and anchors-only templates are refused as the library
 * refuses them. */
static const char *templ_of(const char *s, size_t n, size_t *tn)
{
	if (n < 5 || memcmp(s, "leak:", 5) != 0 || memchr(s, '\0', n))
		return NULL;
	s += 5;
	n -= 5;
	if (n == 0 || (n == 1 && (s[0] == '^' || s[0] == '$')) || (n == 2 && s[0] == '^' && s[1] == '$'))
		return NULL;
	*tn = n;
	return s;
}

static void complain(struct hp_buf *b, const char *path, unsigned line, const char *s, size_t n)
{
	hp_buf_printf(b, "%s:%u: not a suppression: '", path, line);
	for (size_t i = 0; i < n && i < QUOTE_LEN; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\0')
			hp_buf_str(b, "\\0");
		else if ((c < 0x20 && c != '\t') || c == 0x7f)
			hp_buf_printf(b, "\\x%02x", c);
		else
			hp_buf_char(b, (char)c);
	}
	hp_buf_printf(b, "%s' (expected leak:PATTERN)\n", n > QUOTE_LEN ? "..." : "");
}

static void parse(struct hp_supfile *s, const char *path, const char *text, size_t len,
		  struct hp_buf *complaints)
{
	unsigned line = 0;

	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *b = p, *e = nl ? nl : end;
		size_t tn;

		p = nl ? nl + 1 : end;
		line++;
		while (b < e && blank(*b))
			b++;
		while (e > b && blank(e[-1]))
			e--;
		if (b == e || *b == '#')
			continue;
		const char *t = templ_of(b, (size_t)(e - b), &tn);
		if (!t) {
			s->nbad++;
			complain(complaints, path, line, b, (size_t)(e - b));
			continue;
		}
		hp_util_grow(&s->rules, &s->cap, s->nrules + 1, sizeof(*s->rules));
		s->rules[s->nrules++] = (struct hp_supfile_rule){ hp_util_xstrndup(t, tn), line };
	}
}

const char *hp_supfile_read(struct hp_supfile *s, const char *path, struct hp_buf *complaints)
{
	struct stat st;
	const char *why = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return strerror(errno);
	if (fstat(fd, &st) != 0) {
		why = strerror(errno);
	} else if (!S_ISREG(st.st_mode)) {
		why = "not a regular file";
	} else if ((uint64_t)st.st_size > SUPFILE_MAX) {
		why = "larger than 1 MiB";
	} else {
		char *text = hp_util_xmalloc((size_t)st.st_size + 1);
		size_t got = 0;
		while (got < (size_t)st.st_size) {
			ssize_t n = read(fd, text + got, (size_t)st.st_size - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				if (n < 0)
					why = strerror(errno);
				break;
			}
			got += (size_t)n;
		}
		if (!why)
			parse(s, path, text, got, complaints);
		free(text);
	}
	close(fd);
	return why;
}

/*
 * LeakSanitizer's TemplateMatch, as the library's (suppress.c): pieces cut
 * at '*' and '$', each at its first occurrence after the previous one (no
 * backtracking); a leading '^' makes the first a prefix; a '$' ends the
 * template where it stands, matching when the subject is used up or a
 * '*' came right before it.
 */
static int template_match(const char *t, const char *s)
{
	int start = 0, star = 0;

	if (*t == '^') {
		start = 1;
		t++;
	}
	while (*t) {
		if (*t == '*') {
			t++;
			start = 0;
			star = 1;
			continue;
		}
		if (*t == '$')
			return !*s || star;
		size_t seg = strcspn(t, "*$");
		const char *at = memmem(s, strlen(s), t, seg);
		if (!at || (start && at != s))
			return 0;
		s = at + seg;
		t += seg;
		start = star = 0;
	}
	return 1;
}

int hp_supfile_match(const struct hp_supfile *s, const char *subject)
{
	if (!subject || !*subject)
		return -1;
	for (size_t i = 0; i < s->nrules; i++)
		if (template_match(s->rules[i].templ, subject))
			return (int)i;
	return -1;
}

void hp_supfile_release(struct hp_supfile *s)
{
	for (size_t i = 0; i < s->nrules; i++)
		free(s->rules[i].templ);
	free(s->rules);
	memset(s, 0, sizeof(*s));
}
