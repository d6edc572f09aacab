/*
 * dumpname.c -- dump names, directories and retention (see dumpname.h).
 *
 * Owns the sequence counters.  Runs on dumping threads, under the dump
 * lock; never allocates through the host allocator (directory listings
 * go through getdents64 into our own pages).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/compiler.h"
#include "conf/conf.h"
#include "output/dumpname.h"
#include "base/file.h"
#include "base/fmt.h"
#include "base/log.h"
#include "conf/inifile.h"
#include "base/pages.h"
#include "base/sandbox.h"
#include "base/banned.h"

#define MAX_FILES 65536        /* files of a prefix considered per rotation */
#define NAME_MAX_LEN 255

static unsigned seq;
static unsigned letter_seq[26];
/* The latest time in a name, and whether the clock is behind it now. */
static int64_t last_utc;
static int behind;
/* When this process named its first dump, by the two clocks retention
 * compares files with: CLOCK_REALTIME_COARSE, which file times are taken
 * from (born_ns, in ns), and CLOCK_REALTIME's second, which names are
 * (born_utc, name_time); 0 before.  Retention takes a file of this pid
 * written before for an earlier process's: one whose pid the kernel gave
 * this process again, or the program before an exec.  (The coarse clock
 * reads a few ms late: its second alone, against a name's, once took an
 * earlier file named just after a second began for this process's own.) */
static int64_t born_ns, born_utc;

void hp_dumpname_postfork_child(void)
{
	/* jemalloc's children keep counting from the parent's counters; so do
	 * we (names differ by pid anyway).  The child's dumps are its own
	 * from its first. */
	HP_STORE(&born_ns, 0);
	HP_STORE(&born_utc, 0);
}

/* Notes the time of the process's first dump, before it is named. */
static void note_birth(void)
{
	struct timespec coarse, now;
	int64_t zero = 0;

	if (HP_LOAD(&born_ns))
		return;
	clock_gettime(CLOCK_REALTIME_COARSE, &coarse);
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t ns = (int64_t)coarse.tv_sec * 1000000000 + coarse.tv_nsec;
	(void)HP_CAS(&born_utc, &zero, (int64_t)now.tv_sec);
	zero = 0;
	(void)HP_CAS(&born_ns, &zero, ns ? ns : 1);
}

void hp_dumpname_run_note(void)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!hp_conf.run_pid || hp_sandbox_on() || getpid() != (pid_t)hp_conf.run_pid)
		return;
	size_t n = hp_dumpname_expand(hp_conf.prof_prefix, dir, sizeof(dir));
	char *slash = n ? strrchr(dir, '/') : NULL;
	if (dir[0] != '/' || !slash)
		return;
	slash[1] = '\0';
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		hp_log(HP_LOG_INFO, "the dumps of this run are in %s", dir);
}

size_t hp_dumpname_expand(const char *prefix, char *out, size_t cap)
{
	size_t n = 0;
	struct utsname u;
	int have_uname = 0;

	for (const char *p = prefix; *p; p++) {
		char tmp[300];
		const char *piece = tmp;
		size_t len;
		if (*p != '%' || !p[1]) {
			tmp[0] = *p;
			len = 1;
		} else {
			switch (*++p) {
			case 'p':
				len = hp_fmt(tmp, sizeof(tmp), "%d", hp_sandbox_getpid());
				break;
			case 'e':
				piece = hp_inifile_program();
				len = strlen(piece);
				break;
			case 'h':
				if (!have_uname)
					have_uname = uname(&u) == 0;
				piece = have_uname ? u.nodename : "localhost";
				len = strlen(piece);
				break;
			case '%':
				tmp[0] = '%';
				len = 1;
				break;
			default:   /* unknown: kept as written */
				tmp[0] = '%';
				tmp[1] = *p;
				len = 2;
				break;
			}
		}
		if (n + len + 1 > cap)
			return 0;
		memcpy(out + n, piece, len);
		n += len;
	}
	out[n] = '\0';
	return n;
}

int hp_dumpname_mkdirs(const char *path)
{
	return hp_file_mkdirs(path);
}

/* The time for a new name: the clock's, unless it stepped back behind the
 * last name's.  Names then keep the last name's time, so that they sort
 * (and rotation keeps the newest) in the order they were written; one
 * line says so each time the clock falls behind. */
static int64_t name_time(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	int64_t t = now.tv_sec, last = HP_LOAD(&last_utc);
	/* Atomics: the leak dump at exit may name a file while the helper
	 * thread names another. */
	while (t > last && !HP_CAS(&last_utc, &last, t))
		;
	if (t >= last) {
		HP_STORE(&behind, 0);
		return t;
	}
	if (!HP_XCHG(&behind, 1)) {
		char was[32], is[32];
		hp_fmt_utc(was, last, 0, 1);
		hp_fmt_utc(is, t, 0, 1);
		hp_log(HP_LOG_WARN, "the clock stepped back (%s, after a dump named %s): dump names keep "
		       "%s until it catches up, so that they sort in the order they were written", is, was, was);
	}
	return last;
}

int hp_dumpname_next(const char *prefix, char letter, char *out, size_t cap)
{
	char base[PATH_MAX], ts[32];

	if (!hp_dumpname_expand(prefix, base, sizeof(base)))
		return ENAMETOOLONG;
	note_birth();
	hp_fmt_utc(ts, name_time(), 0, 1);
	unsigned n = HP_ADD(&seq, 1);
	size_t len;
	if (letter == 'f') {
		len = hp_fmt(out, cap, "%s.%d.%u.f.%s.heap", base, hp_sandbox_getpid(), n, ts);
	} else {
		unsigned k = letter >= 'a' && letter <= 'z' ? HP_ADD(&letter_seq[letter - 'a'], 1) : 0;
		len = hp_fmt(out, cap, "%s.%d.%u.%c%u.%s.heap", base, hp_sandbox_getpid(), n, letter, k, ts);
	}
	return len + 1 >= cap ? ENAMETOOLONG : 0;
}

/* ---- matching names against the prefix template --------------------- */

static int all_digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static unsigned long long to_num(const char *s, size_t n)
{
	unsigned long long v = 0;

	for (size_t i = 0; i < n && i < 19; i++)
		v = v * 10 + (unsigned)(s[i] - '0');
	return v;
}

/* The fields of a dump's name that retention reads. */
struct tail {
	int pid;
	unsigned seq;
	int64_t utc;
	char kind;   /* the trigger letter */
};

/* ".<pid>.<seq>.<letter>[n].<ts>.heap" exactly. */
static int parse_tail(const char *s, struct tail *out)
{
	const char *f[5];
	size_t len[5];
	int k = 0;

	if (*s != '.')
		return -1;
	s++;
	size_t total = strlen(s);
	if (total < 5 || strcmp(s + total - 5, ".heap"))
		return -1;
	total -= 5;
	for (const char *p = s; k < 5;) {
		const char *dot = memchr(p, '.', (size_t)(s + total - p));
		f[k] = p;
		len[k] = dot ? (size_t)(dot - p) : (size_t)(s + total - p);
		k++;
		if (!dot)
			break;
		p = dot + 1;
	}
	if (k != 4 || !all_digits(f[0], len[0]) || !all_digits(f[1], len[1]) ||
	    len[2] < 1 || f[2][0] < 'a' || f[2][0] > 'z' || !(len[2] == 1 || all_digits(f[2] + 1, len[2] - 1)) ||
	    len[3] != 16)
		return -1;
	char ts[17];
	memcpy(ts, f[3], 16);
	ts[16] = '\0';
	out->utc = hp_fmt_parse_utc(ts);
	if (out->utc < 0)
		return -1;
	out->pid = (int)to_num(f[0], len[0]);
	out->seq = (unsigned)to_num(f[1], len[1]);
	out->kind = f[2][0];
	return 0;
}

/* Does name match template t (%p: digits, %e/%h: anything without '/',
 * %%: '%') followed by a dump tail?  Backtracks over the wildcards. */
static int match(const char *t, const char *name, struct tail *out)
{
	for (;; t++, name++) {
		if (!*t)
			return parse_tail(name, out);
		if (*t == '%' && (t[1] == 'p' || t[1] == 'e' || t[1] == 'h')) {
			char kind = t[1];
			for (const char *end = name + 1; *end; end++) {
				if (kind == 'p' && (end[-1] < '0' || end[-1] > '9'))
					break;
				if (!match(t + 2, end, out))
					return 0;
			}
			return -1;
		}
		if (*t == '%' && t[1] == '%')
			t++;
		if (*t != *name)
			return -1;
	}
}

/* ---- retention ------------------------------------------------------- */

struct entry {
	int64_t utc;
	int64_t mtime_ns;
	int64_t size;
	unsigned seq;
	int pid;
	uint16_t name_off;
	uint16_t name_len;
	uint32_t chunk;   /* index into the names buffer, in 64 KiB units */
	char kind;        /* the trigger letter, 'a' to 'z' */
	char kept;        /* never deleted: the first of its kind, or just written */
};

/* Newest first: by the time in the name, then by modification time. */
static int newer(const struct entry *a, const struct entry *b)
{
	if (a->utc != b->utc)
		return a->utc > b->utc;
	if (a->mtime_ns != b->mtime_ns)
		return a->mtime_ns > b->mtime_ns;
	return a->seq > b->seq;
}

static void sort_newest_first(struct entry *e, size_t n)
{
	/* Shell sort: no recursion, no allocation, n is small. */
	static const size_t gaps[] = { 1750, 701, 301, 132, 57, 23, 10, 4, 1 };
	for (size_t g = 0; g < HP_ARRAY_LEN(gaps); g++) {
		size_t gap = gaps[g];
		for (size_t i = gap; i < n; i++) {
			struct entry tmp = e[i];
			size_t j = i;
			for (; j >= gap && newer(&tmp, &e[j - gap]); j -= gap)
				e[j] = e[j - gap];
			e[j] = tmp;
		}
	}
}

/* Whether a file of this prefix is this process's own dump: its pid, and
 * written since the process's first dump.  The time in the name never
 * goes back (name_time) and is taken after born_utc, by the same clock: a
 * later second is ours; in the same second, the file's modification time
 * decides, against born_ns, by the clock file times come from, which an
 * earlier process with the same pid could not have reached. */
static int is_mine(int pid, int64_t utc, int64_t mtime_ns)
{
	int64_t born = HP_LOAD(&born_ns), born_s = HP_LOAD(&born_utc);

	if (pid != (int)getpid() || !born)
		return 0;
	if (!born_s)
		born_s = born / 1000000000;
	return utc > born_s || (utc == born_s && mtime_ns >= born);
}

/* Marks the first dump of each kind (the oldest of the process's, as e is
 * sorted newest first): the base every diff and trend of that series
 * needs, which retention never deletes. */
static void mark_firsts(struct entry *e, size_t n)
{
	unsigned seen = 0;   /* one bit per letter */

	for (size_t i = n; i-- > 0;) {
		unsigned bit = 1u << (e[i].kind - 'a');
		if (!(seen & bit))
			e[i].kept = 1;
		seen |= bit;
	}
}

/* Deletes what retention does not keep, newest first: past the newest
 * keep dumps of its kind, or while the process's dumps of every kind
 * would take more than keep_bytes.  The kept ones (marked) stay and count
 * towards the bytes.  Returns the number of files deleted. */
static unsigned delete_old(int dfd, const struct entry *e, size_t n, const char *names,
			   int64_t keep, int64_t keep_bytes)
{
	int64_t of_kind[26] = { 0 }, total = 0;
	unsigned deleted = 0;

	for (size_t i = 0; i < n; i++)
		total += e[i].kept ? e[i].size : 0;
	for (size_t i = 0; i < n; i++) {
		int64_t *count = &of_kind[e[i].kind - 'a'];
		if (e[i].kept) {
			++*count;
			continue;
		}
		if ((keep <= 0 || *count < keep) && (keep_bytes <= 0 || total + e[i].size <= keep_bytes)) {
			++*count;
			total += e[i].size;
			continue;
		}
		if (unlinkat(dfd, names + ((size_t)e[i].chunk << 16) + e[i].name_off, 0) == 0)
			deleted++;
	}
	return deleted;
}

unsigned hp_dumpname_rotate(const char *prefix, int64_t keep, int64_t keep_bytes,
			    const char *just_written)
{
	char expanded[PATH_MAX], dir[PATH_MAX];
	const char *tmpl_base = strrchr(prefix, '/');
	unsigned deleted = 0;

	if (keep <= 0 && keep_bytes <= 0)
		return 0;
	tmpl_base = tmpl_base ? tmpl_base + 1 : prefix;
	if (!hp_dumpname_expand(prefix, expanded, sizeof(expanded)))
		return 0;
	const char *slash = strrchr(expanded, '/');
	if (slash)
		hp_fmt(dir, sizeof(dir), "%.*s", (int)(slash - expanded + (slash == expanded)), expanded);
	else
		hp_fmt(dir, sizeof(dir), ".");
	const char *keep_name = strrchr(just_written, '/');
	keep_name = keep_name ? keep_name + 1 : just_written;

	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	size_t ents_bytes = MAX_FILES * sizeof(struct entry);
	size_t names_bytes = (size_t)MAX_FILES * (NAME_MAX_LEN + 1);
	size_t dbuf_bytes = 64 << 10;
	struct entry *ents = hp_pages_alloc(ents_bytes);
	char *names = hp_pages_alloc(names_bytes);
	char *dbuf = hp_pages_alloc(dbuf_bytes);
	size_t n = 0, names_used = 0;
	if (!ents || !names || !dbuf)
		goto out;

	for (;;) {
		ssize_t got = getdents64(dfd, dbuf, dbuf_bytes);
		if (got <= 0)
			break;
		for (ssize_t off = 0; off < got;) {
			struct dirent64 *d = (struct dirent64 *)(dbuf + off);
			off += d->d_reclen;
			struct tail tl;
			size_t len = strlen(d->d_name);
			if (n >= MAX_FILES || len > NAME_MAX_LEN || match(tmpl_base, d->d_name, &tl))
				continue;
			struct stat st;
			if (tl.pid != (int)getpid() ||
			    fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
				continue;
			int64_t mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
			if (!is_mine(tl.pid, tl.utc, mtime_ns))
				continue;
			memcpy(names + names_used, d->d_name, len + 1);
			ents[n] = (struct entry){
				.utc = tl.utc, .size = st.st_size, .seq = tl.seq, .pid = tl.pid,
				.mtime_ns = mtime_ns,
				.name_off = (uint16_t)(names_used & 0xffff), .chunk = (uint32_t)(names_used >> 16),
				.name_len = (uint16_t)len, .kind = tl.kind,
				.kept = !strcmp(d->d_name, keep_name),
			};
			names_used += len + 1;
			n++;
		}
	}
	sort_newest_first(ents, n);
	mark_firsts(ents, n);
	deleted = delete_old(dfd, ents, n, names, keep, keep_bytes);
out:
	hp_pages_free(ents, ents_bytes);
	hp_pages_free(names, names_bytes);
	hp_pages_free(dbuf, dbuf_bytes);
	close(dfd);
	return deleted;
}
