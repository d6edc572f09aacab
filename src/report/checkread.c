/*
 * checkread.c -- heapprof check's verdict files: reading and symbolizing
 * them (see check.h).
 *
 * Owns the parsing of the layout the library writes
 * (src/lib/leak/verdictfile.c), which is the only place that knows it
 * besides this file.  A verdict file is trusted no more than a dump:
 * every line is checked, strings are cleaned, sizes are bounded.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "check.h"
#include "input.h"
#include "maps.h"
#include "module.h"
#include "names.h"
#include "symbolize.h"
#include "util.h"

/* ---- reading ----------------------------------------------------------- */

struct reader {
	struct hp_check_proc *p;
	struct hp_strtab *strs;
	int lineno;
};

/* "line N: what", valid until the next failure. */
static const char *fail(struct reader *r, const char *what)
{
	static char err[160];

	snprintf(err, sizeof(err), "line %d: %s", r->lineno, what);
	return err;
}

/* "key=value": the value when line starts with key=, else NULL. */
static const char *value_of(const char *line, const char *key)
{
	size_t n = strlen(key);

	return !strncmp(line, key, n) && line[n] == '=' ? line + n + 1 : NULL;
}

/* A decimal count, or with hex a "0x" address; *end after it. */
static int parse_u64(const char *s, int hex, uint64_t *out, const char **end)
{
	char *e;

	if (hex && (s[0] != '0' || s[1] != 'x'))
		return -1;
	s += hex ? 2 : 0;
	if (!isxdigit((unsigned char)*s) || (!hex && !isdigit((unsigned char)*s)))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &e, hex ? 16 : 10);
	if (errno)
		return -1;
	*out = v;
	*end = e;
	return 0;
}

/* "k1=N k2=N ...": each key in turn, then the end of the line. */
static int parse_counts(const char *line, const char *const *keys, uint64_t *const *vals, size_t n)
{
	const char *s = line;

	for (size_t i = 0; i < n; i++) {
		size_t kl = strlen(keys[i]);
		if (i && *s++ != ' ')
			return -1;
		if (strncmp(s, keys[i], kl) || s[kl] != '=')
			return -1;
		if (parse_u64(s + kl + 1, 0, vals[i], &s))
			return -1;
	}
	return *s ? -1 : 0;
}

/* Undoes the library's \xHH escapes of an object path. */
static char *unescape(const char *s, size_t n)
{
	char *out = hp_util_xmalloc(n + 1);
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' &&
		    isxdigit((unsigned char)s[i + 2]) && isxdigit((unsigned char)s[i + 3])) {
			char hex[3] = { s[i + 2], s[i + 3], '\0' };
			out[k++] = (char)strtoul(hex, NULL, 16);
			i += 3;
		} else {
			out[k++] = s[i];
		}
	}
	out[k] = '\0';
	return out;
}

static const char *intern_clean_n(struct hp_strtab *t, const char *s, size_t n)
{
	char *clean = hp_strtab_sanitize(s, n);
	const char *out = hp_strtab_intern_str(t, clean);

	free(clean);
	return out;
}

/* "frame 0xPC OBJECT 0xADDR FUNCTION" */
static const char *parse_frame(struct reader *r, const char *s, struct hp_check_leak *l)
{
	struct hp_check_frame f = { 0 };
	const char *e;

	if (parse_u64(s, 1, &f.pc, &e) || *e != ' ')
		return fail(r, "a frame's program counter");
	s = e + 1;
	const char *sp = strchr(s, ' ');
	if (!sp || sp == s)
		return fail(r, "a frame's object");
	if (!(sp - s == 1 && *s == '-')) {
		char *path = unescape(s, (size_t)(sp - s));
		f.module = hp_strtab_intern_clean(r->strs, path);
		free(path);
	}
	if (parse_u64(sp + 1, 1, &f.addr, &e) || *e != ' ' || !e[1])
		return fail(r, "a frame's address");
	if (strcmp(e + 1, "-"))
		f.function = hp_strtab_intern_clean(r->strs, e + 1);
	if (l->nframes >= HP_INPUT_FRAMES_MAX)
		return fail(r, "too many frames");
	hp_util_grow(&l->frames, &l->cap, l->nframes + 1, sizeof(*l->frames));
	l->frames[l->nframes++] = f;
	return NULL;
}

/* Lines after status=: the counts (or error=), then the leak blocks. */
static const char *parse_body(struct reader *r, char *line, int *state, struct hp_check_leak **cur)
{
	struct hp_check_proc *p = r->p;
	const char *v;

	switch (*state) {
	case 0:   /* the totals, or why there are none */
		if ((v = value_of(line, "error"))) {
			p->error = hp_strtab_intern_clean(r->strs, v);
			*state = 4;
			return NULL;
		}
		if ((v = value_of(line, "gate")) && !p->gate) {
			if (strcmp(v, "on") && strcmp(v, "off"))
				return fail(r, "expected gate=on or gate=off");
			p->gate = !strcmp(v, "on") ? 1 : -1;
			return NULL;
		}
		if (!strncmp(line, "live=", 5) && !p->live) {
			uint64_t seq, pause, at, blocks;
			if (parse_counts(line, (const char *const[]){ "live", "pause_us", "attached_at", "blocks" },
					 (uint64_t *const[]){ &seq, &pause, &at, &blocks }, 4) || !seq ||
			    seq > UINT32_MAX || at > INT64_MAX || blocks > 1)
				return fail(r, "expected live=N pause_us=N attached_at=N blocks=0|1");
			p->live = (unsigned)seq;
			p->live_blocks = (int)blocks;
			p->pause_us = pause;
			p->attached_at = (int64_t)at;
			return NULL;
		}
		if (!strncmp(line, "sampled=", 8) && !p->sampled_lg) {
			uint64_t lg, blocks;
			if (parse_counts(line, (const char *const[]){ "sampled", "blocks" },
					 (uint64_t *const[]){ &lg, &blocks }, 2) || lg < 1 || lg > 62)
				return fail(r, "expected sampled=LG blocks=N");
			p->sampled_lg = (int)lg;
			p->sampled_blocks = blocks;
			return NULL;
		}
		if (parse_counts(line, (const char *const[]){ "direct_bytes", "direct_objects",
				 "indirect_bytes", "indirect_objects" },
				 (uint64_t *const[]){ &p->direct_bytes, &p->direct_objects,
				 &p->indirect_bytes, &p->indirect_objects }, 4))
			return fail(r, "expected direct_bytes=... or error=");
		*state = 1;
		return NULL;
	case 1:
		if (parse_counts(line, (const char *const[]){ "suppressed_bytes", "suppressed_objects" },
				 (uint64_t *const[]){ &p->suppressed_bytes, &p->suppressed_objects }, 2))
			return fail(r, "expected suppressed_bytes=...");
		*state = 2;
		return NULL;
	case 2: {
		uint64_t t, ts;
		if (parse_counts(line, (const char *const[]){ "threads", "threads_stopped" },
				 (uint64_t *const[]){ &t, &ts }, 2) || t > UINT32_MAX || ts > t)
			return fail(r, "expected threads=...");
		p->threads = (unsigned)t;
		p->threads_stopped = (unsigned)ts;
		*state = 3;
		return NULL;
	}
	case 3:   /* between blocks */
		if (!strncmp(line, "suppression ", 12) && !p->nleaks) {
			struct hp_check_supp su;
			const char *e;
			if (parse_u64(line + 12, 0, &su.count, &e) || *e != ' ' ||
			    parse_u64(e + 1, 0, &su.bytes, &e) || *e != ' ' || !e[1])
				return fail(r, "expected suppression COUNT BYTES TEMPLATE");
			if (p->nsupps >= HP_CHECK_LEAKS_MAX)
				return fail(r, "too many suppressions");
			su.templ = hp_strtab_intern_clean(r->strs, e + 1);
			hp_util_grow(&p->supps, &p->supps_cap, p->nsupps + 1, sizeof(*p->supps));
			p->supps[p->nsupps++] = su;
			return NULL;
		}
		if (!strncmp(line, "unstopped ", 10) && p->live && !p->nleaks) {
			struct hp_check_thread t;
			uint64_t tid;
			const char *e;
			if (parse_u64(line + 10, 0, &tid, &e) || *e != ' ' || !e[1] || !tid || tid > INT32_MAX)
				return fail(r, "expected unstopped TID NAME");
			if (p->nunstopped >= HP_CHECK_LEAKS_MAX)
				return fail(r, "too many threads");
			t.tid = (long)tid;
			t.name = hp_strtab_intern_clean(r->strs, e + 1);
			hp_util_grow(&p->unstopped, &p->unstopped_cap, p->nunstopped + 1, sizeof(*p->unstopped));
			p->unstopped[p->nunstopped++] = t;
			return NULL;
		}
		if (!strncmp(line, "leak ", 5)) {
			struct hp_check_leak l = { 0 };
			const char *s = line + 5, *e;
			if (!strncmp(s, "direct ", 7)) {
				l.direct = 1;
				s += 7;
			} else if (!strncmp(s, "indirect ", 9)) {
				s += 9;
			} else {
				return fail(r, "expected leak direct|indirect");
			}
			if (parse_u64(s, 0, &l.bytes, &e) || *e != ' ' || parse_u64(e + 1, 0, &l.objects, &e) || *e)
				return fail(r, "a leak's bytes and objects");
			if (p->nleaks >= HP_CHECK_LEAKS_MAX)
				return fail(r, "too many leaks");
			hp_util_grow(&p->leaks, &p->cap, p->nleaks + 1, sizeof(*p->leaks));
			p->leaks[p->nleaks] = l;
			*cur = &p->leaks[p->nleaks++];
			*state = 5;
			return NULL;
		}
		return fail(r, "expected leak");
	case 5:   /* in a block */
		if (!strcmp(line, "end")) {
			*state = 3;
			return NULL;
		}
		if (!strncmp(line, "frame ", 6) && !(*cur)->nblocks)
			return parse_frame(r, line + 6, *cur);
		if (!strncmp(line, "block ", 6) && p->live_blocks) {
			struct hp_check_leak *l = *cur;
			struct hp_check_block b;
			const char *e;
			if (parse_u64(line + 6, 1, &b.addr, &e) || *e != ' ' || parse_u64(e + 1, 0, &b.size, &e) || *e)
				return fail(r, "expected block 0xADDR SIZE");
			if (l->nblocks >= HP_CHECK_BLOCKS_MAX)
				return fail(r, "too many blocks");
			hp_util_grow(&l->blocks, &l->blocks_cap, l->nblocks + 1, sizeof(*l->blocks));
			l->blocks[l->nblocks++] = b;
			return NULL;
		}
		return fail(r, "expected frame or end");
	default:
		return fail(r, "unexpected line after error=");
	}
}

void hp_check_release(struct hp_check_proc *p)
{
	for (size_t j = 0; j < p->nleaks; j++) {
		free(p->leaks[j].frames);
		free(p->leaks[j].blocks);
	}
	free(p->leaks);
	free(p->supps);
	free(p->unstopped);
	for (size_t j = 0; j < p->nover; j++)
		free(p->over[j].stacks);
	free(p->over);
	memset(p, 0, sizeof(*p));
}

const char *hp_check_read(const char *path, struct hp_check_proc *p, struct hp_strtab *strs)
{
	static const char *const head[] = { "pid", "program", "cmdline", "status" };
	struct reader r = { .p = p, .strs = strs };
	struct hp_check_leak *cur = NULL;
	struct stat st;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int state = 0;
	const char *err = NULL;

	p->path = hp_strtab_intern_str(strs, path);
	FILE *f = fopen(path, "re");
	if (!f)
		return strerror(errno);
	if (fstat(fileno(f), &st) == 0) {
		p->written = st.st_mtim;
		if ((uint64_t)st.st_size > HP_CHECK_FILE_MAX) {
			fclose(f);
			return "too big for a verdict";
		}
	}
	while (!err && (n = getline(&line, &cap, f)) >= 0) {
		r.lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (strlen(line) != (size_t)n) {
			err = fail(&r, "a NUL byte");
			break;
		}
		if (r.lineno == 1) {
			if (!strcmp(line, "heapprof-started 1"))
				p->missing = 1;
			else if (strcmp(line, "heapprof-verdict 1"))
				err = fail(&r, "not a heapprof verdict (version 1)");
			continue;
		}
		if (p->missing && r.lineno > 4) {
			err = fail(&r, "expected the end of a registration");
			break;
		}
		if (r.lineno <= 5) {
			const char *v = value_of(line, head[r.lineno - 2]);
			char want[32];
			snprintf(want, sizeof(want), "expected %s=", head[r.lineno - 2]);
			if (!v) {
				err = fail(&r, want);
			} else if (r.lineno == 2 || r.lineno == 5) {
				char *e;
				errno = 0;
				long x = strtol(v, &e, 10);
				if (errno || *e || e == v || x > INT32_MAX || x < (r.lineno == 2 ? 1 : INT32_MIN))
					err = fail(&r, want);
				else if (r.lineno == 2)
					p->pid = x;
				else
					p->status = (int)x;
			} else if (r.lineno == 3) {
				p->program = intern_clean_n(strs, v, strlen(v));
			} else {
				p->cmdline = intern_clean_n(strs, v, strlen(v));
			}
			continue;
		}
		err = parse_body(&r, line, &state, &cur);
	}
	free(line);
	if (!err && ferror(f))
		err = strerror(errno ? errno : EIO);
	fclose(f);
	if (!err && p->missing && r.lineno != 4)
		err = "the registration ends early";
	else if (!err && p->missing)
		;   /* the lines are all a registration has */
	else if (!err && state == 5)
		err = "the file ends inside a leak";
	else if (!err && state < 3)
		err = "the file ends early";
	if (!err) {
		const char *slash = strrchr(p->program, '/');
		p->name = slash ? slash + 1 : p->program;
	}
	return err;
}

uint64_t hp_check_bytes(const struct hp_check_proc *p)
{
	return p->direct_bytes + p->indirect_bytes;
}

uint64_t hp_check_objects(const struct hp_check_proc *p)
{
	return p->direct_objects + p->indirect_objects;
}

/* ---- symbolizing ------------------------------------------------------- */

struct symbolizing {
	struct hp_strtab *strs;
	struct hp_modtab mods;
	struct hp_symbolizer *sym;
	struct hp_input in;	/* a stand-in for a dump: its serial and time */
};

/* The module for an object path, by the file's device and inode now. */
static struct hp_module *module_for(struct symbolizing *z, const char *path)
{
	struct hp_map m = { .kind = HP_MAP_FILE, .path = path };
	struct stat st;

	if (stat(path, &st) == 0) {
		m.inode = st.st_ino;
		m.dev_major = major(st.st_dev);
		m.dev_minor = minor(st.st_dev);
	}
	return hp_module_get(&z->mods, &m);
}

static const char *demangled(struct symbolizing *z, const char *name)
{
	char *dm = hp_names_demangle(name);

	if (!dm)
		return name;
	const char *out = hp_strtab_intern_clean(z->strs, dm);
	free(dm);
	return out;
}

/* Frame i of a leak, from the file, onto out. */
static void symbolize_frame(struct symbolizing *z, const struct hp_check_frame *f, size_t i,
			    struct hp_check_leak *out)
{
	struct hp_symres r[HP_SYMBOLIZE_INLINE_MAX];
	size_t n = 0;

	if (f->module) {
		struct hp_module *mod = module_for(z, f->module);
		/* Callers' frames are return addresses: look up the call. */
		uint64_t addr = i && f->addr ? f->addr - 1 : f->addr;
		if (!hp_module_check(&z->mods, mod, &z->in))
			n = hp_symbolize_lookup(z->sym, mod, addr, r);
	}
	if (!n) {
		hp_util_grow(&out->frames, &out->cap, out->nframes + 1, sizeof(*out->frames));
		out->frames[out->nframes++] = *f;
		return;
	}
	for (size_t k = 0; k < n; k++) {
		struct hp_check_frame g = *f;
		g.function = demangled(z, r[k].name);
		g.file = r[k].file;
		g.line = r[k].line;
		g.inlined = k + 1 < n;
		hp_util_grow(&out->frames, &out->cap, out->nframes + 1, sizeof(*out->frames));
		out->frames[out->nframes++] = g;
	}
}

void hp_check_symbolize(struct hp_check_proc *procs, size_t n, int all, struct hp_strtab *strs,
			const char *const *debug_dirs, size_t ndirs)
{
	struct symbolizing z = { .strs = strs };

	z.mods.strs = strs;
	z.mods.debug_dirs = debug_dirs;
	z.mods.ndebug_dirs = ndirs;
	z.sym = hp_symbolize_new(strs, debug_dirs, ndirs);
	for (size_t k = 0; k < n; k++) {
		struct hp_check_proc *p = &procs[k];
		if (!all && !p->counted)
			continue;
		/* Objects are checked against the time each verdict was
		 * written: one rebuilt since shows offsets, not wrong names. */
		z.in.serial = k + 1;
		z.in.written = p->written;
		for (size_t j = 0; j < p->nleaks; j++) {
			struct hp_check_leak *l = &p->leaks[j];
			struct hp_check_leak out = *l;
			out.frames = NULL;
			out.nframes = out.cap = 0;
			for (size_t i = 0; i < l->nframes; i++)
				symbolize_frame(&z, &l->frames[i], i, &out);
			free(l->frames);
			*l = out;
		}
	}
	for (size_t i = 0; i < z.mods.n; i++)
		hp_symbolize_forget(z.mods.mods[i]);
	hp_modtab_release(&z.mods);
	hp_symbolize_free(z.sym);
}
