/*
 * inifile.c -- reading profiler.ini (see inifile.h).
 *
 * Owns the program name.  Runs at init and on the helper thread when the
 * file changes, inside the guard (inih may call the host allocator; those
 * calls pass through).  Never uses fopen: the file is read with read(2).
 *
 * inih keeps its own settings in process-wide globals that the host
 * program may rely on, so we leave them alone and live within its
 * defaults: lines of at most INI_MAX_LINE - 3 characters, ';' comments.
 * Our reader strips leading blanks, so inih's continuation lines never
 * apply, and hands it only lines it has checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/fmt.h"
#include "conf/inifile.h"
#include "base/log.h"
#include "base/pages.h"
#include "base/sandbox.h"
#include "base/banned.h"

/* Messages per file read, then one line saying the rest were dropped. */
#define MAX_COMPLAINTS 20
/* slurp()'s answer for a directory, a FIFO, a device. */
#define NOT_REGULAR (-1)

enum section_kind { SEC_GLOBAL, SEC_MINE, SEC_OTHER_PROGRAM, SEC_UNKNOWN };

struct ini_reader {
	const char *path;
	const char *prog;
	const char *buf;
	size_t len, pos;
	unsigned lineno;
	bool quiet;
	unsigned complaints;
	enum section_kind section;
	/* The file's two layers: [heapprof] (and no section), [program:NAME]. */
	struct hp_conf_values layer[2];
	uint8_t set[2][HP_CONF_NOPTS];
	unsigned line[2][HP_CONF_NOPTS];
	char fault[2][HP_CONF_NOPTS][HP_CONF_FAULT_MAX];
};

/* A refused setting of gate key d, in our layer (conf.h: the gate fails
 * closed); a setting of it taken clears it (what NULL). */
static void gate_fault(struct ini_reader *r, const struct hp_conf_desc *d, const char *what,
		       const char *why)
{
	char *f = r->fault[r->section == SEC_MINE ? 1 : 0][d - hp_conf_table];

	if (r->section == SEC_OTHER_PROGRAM || r->section == SEC_UNKNOWN || !(d->flags & HP_CONF_GATE))
		return;
	if (!what)
		f[0] = '\0';
	else
		hp_fmt(f, HP_CONF_FAULT_MAX, "%s (%s:%u; %s)", what, r->path, r->lineno, why);
}

static char program[256], invoked[256];

/* The name the program was run by (argv[0]'s last component), which may
 * differ from its file's: gcc runs x86_64-linux-gnu-gcc-12. */
static const char *invoked_as(void)
{
	if (!invoked[0]) {
		char cmd[4096];
		size_t n = 0;
		hp_file_read_all("/proc/self/cmdline", cmd, sizeof(cmd) - 1, &n);
		cmd[n] = '\0';
		const char *base = strrchr(cmd, '/');
		hp_fmt(invoked, sizeof(invoked), "%s", base ? base + 1 : cmd);
	}
	return invoked;
}

const char *hp_inifile_program(void)
{
	if (!program[0]) {
		char exe[PATH_MAX];
		/* Started under a seccomp filter (base/sandbox.h), readlink(2)
		 * may be refused: the name exec was given, symbolic links and
		 * all. */
		const char *execfn = hp_sandbox_on() ? (const char *)getauxval(AT_EXECFN) : NULL;
		ssize_t n = execfn ? (ssize_t)hp_fmt(exe, sizeof(exe), "%s", execfn)
				   : readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 && n < (ssize_t)sizeof(exe) ? n : 0] = '\0';
		const char *base = strrchr(exe, '/');
		hp_fmt(program, sizeof(program), "%s", base ? base + 1 : exe);
	}
	return program;
}

const char *hp_inifile_path(bool *explicit)
{
	const char *p = secure_getenv("HEAPPROF_CONFIG");

	*explicit = p && *p;
	return *explicit ? p : HP_INIFILE_DEFAULT_PATH;
}

HP_PRINTF(2, 3) static void complain(struct ini_reader *r, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	if (++r->complaints > MAX_COMPLAINTS || r->quiet) {
		if (r->quiet)
			return;
		if (r->complaints == MAX_COMPLAINTS + 1)
			hp_log(HP_LOG_WARN, "%s: more problems; only the first %d are shown",
			       r->path, MAX_COMPLAINTS);
		return;
	}
	va_start(ap, fmt);
	hp_fmt_va(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hp_log(HP_LOG_WARN, "%s:%u: %s", r->path, r->lineno, msg);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Classifies a section header line "[...]" (without its brackets). */
static enum section_kind classify_section(struct ini_reader *r, const char *name, size_t n)
{
	while (n && is_blank(name[n - 1]))
		n--;
	while (n && is_blank(*name))
		name++, n--;
	if (n == 8 && !memcmp(name, "heapprof", 8))
		return SEC_GLOBAL;
	if (n > 8 && !memcmp(name, "program:", 8)) {
		/* NAME is a shell pattern (*, ?, [...]) matched against the
		 * program's file name. */
		char pat[256];
		size_t pn = n - 8;
		if (pn >= sizeof(pat)) {
			complain(r, "section name longer than %zu characters", sizeof(pat) - 1);
			return SEC_UNKNOWN;
		}
		memcpy(pat, name + 8, pn);
		pat[pn] = '\0';
		int mine = !fnmatch(pat, r->prog, 0) || (r->prog == program && !fnmatch(pat, invoked_as(), 0));
		return mine ? SEC_MINE : SEC_OTHER_PROGRAM;
	}
	complain(r, "unknown section [%.*s]; expected [heapprof] or [program:NAME]", (int)n, name);
	return SEC_UNKNOWN;
}

/* Checks one line (s, *np: without its newline, leading blanks removed)
 * and sets *np to what inih is to see of it: trailing blanks go, and a
 * comment or blank line becomes empty, whatever its length (inih's buffer
 * holds max characters).  Returns true if inih may see it. */
static bool check_line(struct ini_reader *r, const char *s, size_t *np, size_t max)
{
	size_t n = *np;

	while (n && is_blank(s[n - 1]))
		n--;
	*np = n;
	if (n == 0 || s[0] == ';' || s[0] == '#') {
		*np = 0;
		return true;
	}
	if (n > max) {
		complain(r, "line longer than %zu characters; ignored", max);
		return false;
	}
	if (s[0] == '[') {
		if (s[n - 1] != ']') {
			/* Keep the current section: "[heapprof" means heapprof. */
			complain(r, "malformed section header (expected [name])");
			return false;
		}
		r->section = classify_section(r, s + 1, n - 2);
		return true;
	}
	const char *eq = memchr(s, '=', n);
	const char *colon = memchr(s, ':', n);
	const char *sep = !eq ? colon : !colon ? eq : eq < colon ? eq : colon;
	if (!sep || sep == s) {
		complain(r, "malformed line (expected key = value)");
		return false;
	}
	return true;
}

/* inih's reader: the next checked line of the buffer, numbered. */
static char *next_line(char *str, int num, void *stream)
{
	struct ini_reader *r = stream;

	for (;;) {
		if (r->pos >= r->len)
			return NULL;
		const char *s = r->buf + r->pos;
		const char *nl = memchr(s, '\n', r->len - r->pos);
		size_t n = nl ? (size_t)(nl - s) : r->len - r->pos;
		r->pos += n + (nl ? 1 : 0);
		r->lineno++;
		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
		/* inih needs room for "\r\n\0" in its buffer of num. */
		if (num < 4 || !check_line(r, s, &n, (size_t)num - 3) || n > (size_t)num - 3)
			s = "", n = 0;
		memcpy(str, s, n);
		str[n] = '\n';
		str[n + 1] = '\0';
		return str;
	}
}

static int on_pair(void *user, const char *section, const char *name, const char *value)
{
	struct ini_reader *r = user;
	const struct hp_conf_desc *d = hp_conf_find(name, strlen(name));
	char expect[160];

	(void)section;   /* the reader tracked it, with line numbers */
	if (r->section == SEC_UNKNOWN)
		return 1;
	if (!d) {
		const char *hint = hp_conf_suggest(name, strlen(name));
		if (hint) {
			complain(r, "unknown key '%s' (did you mean '%s'?)", name, hint);
			char what[HP_CONF_FAULT_MAX], why[HP_CONF_FAULT_MAX];
			hp_fmt(what, sizeof(what), "unknown key %s", name);
			hp_fmt(why, sizeof(why), "did you mean %s?", hint);
			gate_fault(r, hp_conf_find(hint, strlen(hint)), what, why);
		}
		else if (hp_conf_is_jemalloc_key(name, strlen(name)))
			complain(r, "'%s' is a jemalloc option; heapprof ignores it", name);
		else
			complain(r, "unknown key '%s'", name);
		return 1;
	}
	int layer = r->section == SEC_MINE ? 1 : 0;
	struct hp_conf_values scratch = r->layer[layer];
	enum hp_conf_status st = hp_conf_set(&scratch, d, value, strlen(value));
	if (st == HP_CONF_OK) {
		gate_fault(r, d, NULL, NULL);
	} else {
		char what[HP_CONF_FAULT_MAX], why[HP_CONF_FAULT_MAX];
		hp_conf_expected(d, expect, sizeof(expect));
		hp_fmt(what, sizeof(what), "%s = %s", name, value);
		hp_fmt(why, sizeof(why), "expected %s", expect);
		gate_fault(r, d, what, why);
	}
	switch (st) {
	case HP_CONF_OK:
		if (r->section == SEC_OTHER_PROGRAM)
			break;   /* checked, not ours */
		hp_conf_copy(&r->layer[layer], &scratch, d);
		r->set[layer][d - hp_conf_table] = 1;
		r->line[layer][d - hp_conf_table] = r->lineno;
		break;
	case HP_CONF_BAD_VALUE:
		hp_conf_expected(d, expect, sizeof(expect));
		complain(r, "invalid value '%s' for %s (expected %s)", value, name, expect);
		break;
	case HP_CONF_OUT_OF_RANGE:
		hp_conf_expected(d, expect, sizeof(expect));
		complain(r, "out-of-range value '%s' for %s (expected %s)", value, name, expect);
		break;
	case HP_CONF_REFUSED: {
		char why[200];
		hp_conf_refusal(d, value, strlen(value), why, sizeof(why));
		hp_conf_expected(d, expect, sizeof(expect));
		complain(r, "refused value '%s' for %s: %s (expected %s)", value, name, why, expect);
		break;
	}
	}
	return 1;
}

/* Reads the whole regular file at path into our own memory. */
static int slurp(const char *path, char **out, size_t *len, size_t *cap)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return NOT_REGULAR;
	}
	if ((uint64_t)st.st_size > HP_INIFILE_MAX_BYTES) {
		close(fd);
		return EFBIG;
	}
	*cap = (size_t)st.st_size + 1;
	char *buf = hp_pages_alloc(*cap);
	if (!buf) {
		close(fd);
		return ENOMEM;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*out = buf;
	*len = got;
	return 0;
}

void hp_inifile_read(struct hp_inifile *ini, const char *path, bool explicit, const char *prog,
		 bool quiet)
{
	struct ini_reader *r = hp_pages_alloc(sizeof(*r));
	uint8_t srcs[HP_CONF_NOPTS];
	char *buf = NULL;
	size_t len = 0, cap = 0;

	hp_conf_defaults(&ini->opts, srcs);
	memset(ini->set, 0, sizeof(ini->set));
	memset(ini->line, 0, sizeof(ini->line));
	memset(ini->fault, 0, sizeof(ini->fault));
	ini->found = false;
	ini->problems = 0;
	hp_fmt(ini->path, sizeof(ini->path), "%s", path);
	if (stat(path, &ini->st) != 0)
		memset(&ini->st, 0, sizeof(ini->st));
	if (!r)
		return;
	int err = slurp(path, &buf, &len, &cap);
	if (err) {
		if (quiet || (err == ENOENT && !explicit))
			;   /* no file is fine: defaults */
		else if (err == NOT_REGULAR)
			hp_log(HP_LOG_WARN, "%s: not a regular file; ignored", path);
		else if (err == EFBIG)
			hp_log(HP_LOG_WARN, "%s: larger than %u bytes; ignored", path, HP_INIFILE_MAX_BYTES);
		else
			hp_log(HP_LOG_WARN, "%s: cannot read: %s", path, strerrordesc_np(err));
		if (err != ENOENT)
			ini->problems++;
		goto out;
	}
	ini->found = true;
	const char *nul = memchr(buf, '\0', len);
	if (nul) {
		unsigned line = 1;
		for (const char *c = buf; c < nul; c++)
			line += *c == '\n';
		if (!quiet)
			hp_log(HP_LOG_WARN, "%s:%u: binary data (a NUL byte); file ignored", path, line);
		ini->problems++;
		goto out;
	}
	r->path = path;
	r->prog = prog;
	r->buf = buf;
	r->len = len;
	r->quiet = quiet;
	r->section = SEC_GLOBAL;
	r->layer[0] = ini->opts;
	r->layer[1] = ini->opts;
	ini_parse_stream(next_line, r, on_pair, r);
	ini->problems = r->complaints;

	/* [heapprof] first, then [program:NAME] over it.  A refused gate
	 * setting follows whatever was taken in its layer (a line taken after
	 * it cleared it). */
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < HP_CONF_NOPTS; i++) {
			if (r->set[l][i]) {
				hp_conf_copy(&ini->opts, &r->layer[l], &hp_conf_table[i]);
				ini->set[i] = 1;
				ini->line[i] = r->line[l][i];
				ini->fault[i][0] = '\0';
			}
			if (r->fault[l][i][0])
				memcpy(ini->fault[i], r->fault[l][i], HP_CONF_FAULT_MAX);
		}
out:
	hp_pages_free(buf, cap);
	hp_pages_free(r, sizeof(*r));
}
