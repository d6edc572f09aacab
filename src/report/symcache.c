/*
 * symcache.c -- the symbolizer's answers kept on disk (see symcache.h).
 *
 * Owns the cache directory's discovery and the files' format:
 *
 *   heapprof-symcache 1
 *   @<address, hex> <frames>
 *   <name> TAB <file> TAB <line> TAB <declaration's file> TAB <its line>
 *   ...
 *
 * one line per frame, innermost first; an unknown file is empty.  The
 * strings are the symbolizer's, which never hold a control character
 * (strtab.h's hp_strtab_intern_clean).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "index.h"
#include "symcache.h"
#include "util.h"

#define MAGIC "heapprof-symcache 1\n"
#define FILE_MAX ((off_t)64 << 20)
#define FILES_KEPT 1000          /* the most recently used */
#define TMP_STALE_SECONDS 3600   /* a temporary older is a crashed run's */

/* Creates each missing directory of path (0700). */
static void make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	mkdir(path, 0700);
}

/* The directory, when it is usable: a directory, not a link, the user's,
 * and writable by nobody else. */
static char *cache_dir(void)
{
	const char *e = getenv("HEAPPROF_CACHE"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	struct hp_buf b = { 0 };
	struct stat st;

	if (e && !*e)
		return NULL;
	if (e)
		hp_buf_str(&b, e);
	else if (x && x[0] == '/')
		hp_buf_str(&b, x), hp_buf_str(&b, "/heapprof");
	else if (h && h[0] == '/')
		hp_buf_str(&b, h), hp_buf_str(&b, "/.cache/heapprof");
	else
		return NULL;
	hp_buf_str(&b, "/symbols");
	make_dirs(b.p);
	if (lstat(b.p, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		hp_buf_release(&b);
		return NULL;
	}
	return b.p;
}

char *hp_symcache_path(const char *build_id, const char *identity)
{
	if (!build_id || !*build_id || strspn(build_id, "0123456789abcdef") != strlen(build_id))
		return NULL;
	char *dir = cache_dir();
	if (!dir)
		return NULL;
	struct hp_buf b = { 0 };
	char h[20];
	snprintf(h, sizeof(h), "%016llx", (unsigned long long)hp_index_hash_bytes(identity, strlen(identity), 0));
	hp_buf_str(&b, dir);
	hp_buf_char(&b, '/');
	hp_buf_str(&b, build_id);
	hp_buf_char(&b, '-');
	hp_buf_str(&b, h);
	hp_buf_str(&b, ".sym");
	free(dir);
	return b.p;
}

/* The whole file, NUL-terminated, or NULL. */
static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char *p = NULL;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_size > 0 &&
	    st.st_size < FILE_MAX) {
		size_t n = (size_t)st.st_size, got = 0;
		p = hp_util_xmalloc(n + 1);
		while (got < n) {
			ssize_t r = read(fd, p + got, n - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		p[got] = '\0';
		*len = got;
	}
	close(fd);
	return p;
}

/* The next tab- or newline-ended field of *s, NUL-terminated in place;
 * NULL when the line ended before it. */
static char *field(char **s, char end)
{
	char *f = *s, *e = f;

	while (*e && *e != '\t' && *e != '\n')
		e++;
	if (*e != end)
		return NULL;
	*e = '\0';
	*s = e + 1;
	return f;
}

static int number(const char *f, int *out)
{
	char *end;
	long v = strtol(f, &end, 10);

	if (!*f || *end || v < 0 || v > 0x7fffffff)
		return 0;
	*out = (int)v;
	return 1;
}

/* One frame's line into r (strs NULL: only checked); 0 when it does
 * not parse. */
static int frame_line(char **s, struct hp_strtab *strs, struct hp_symres *r)
{
	char *name = field(s, '\t'), *file = name ? field(s, '\t') : NULL;
	char *line = file ? field(s, '\t') : NULL, *dfile = line ? field(s, '\t') : NULL;
	char *dline = dfile ? field(s, '\n') : NULL;

	if (!dline || !*name || !number(line, &r->line) || !number(dline, &r->decl_line))
		return 0;
	if (!strs)
		return 1;   /* only checked */
	r->name = hp_strtab_intern(strs, name, strlen(name));
	r->file = *file ? hp_strtab_intern(strs, file, strlen(file)) : NULL;
	r->decl_file = *dfile ? hp_strtab_intern(strs, dfile, strlen(dfile)) : NULL;
	return 1;
}

size_t hp_symcache_load(const char *path, struct hp_strtab *strs,
			void (*put)(void *ctx, uint64_t vaddr, const struct hp_symres *res, size_t n),
			void *ctx)
{
	size_t len = 0, count = 0;
	char *text = path ? slurp(path, &len) : NULL;
	struct hp_symres res[HP_SYMBOLIZE_INLINE_MAX];

	if (!text)
		return 0;
	char *s = text;
	if (strncmp(s, MAGIC, strlen(MAGIC)) != 0)
		goto out;
	s += strlen(MAGIC);
	/* Parsed whole first: a file cut short or damaged gives nothing. */
	for (int pass = 0; pass < 2; pass++) {
		char *copy = pass ? NULL : hp_util_xstrdup(s), *p = pass ? s : copy;
		int ok = 1;
		while (*p && ok) {
			char *end;
			if (*p != '@')
				ok = 0;
			else {
				uint64_t vaddr = strtoull(p + 1, &end, 16);
				unsigned long n = end > p + 1 && *end == ' ' ? strtoul(end + 1, &end, 10) : 0;
				ok = *end == '\n' && n <= HP_SYMBOLIZE_INLINE_MAX;
				p = end + 1;
				for (unsigned long i = 0; ok && i < n; i++)
					ok = frame_line(&p, pass ? strs : NULL, &res[i]);
				if (ok && pass)
					put(ctx, vaddr, res, n), count++;
			}
		}
		free(copy);
		if (!ok)
			break;
	}
out:
	free(text);
	if (count)
		utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW);   /* used: kept longer */
	return count;
}

struct aged {
	char *name;
	time_t mtime;
};

static int older_first(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;

	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* Keeps the directory of path to the FILES_KEPT files most recently
 * used, and removes the temporaries of runs that died writing. */
static void prune(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = hp_util_xstrndup(path, (size_t)(slash - path));
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct aged *v = NULL;
	size_t n = 0, cap = 0;
	time_t now = time(NULL);
	struct dirent *e;

	free(dir);
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (ends_with(e->d_name, ".tmp")) {
			if (now - st.st_mtime > TMP_STALE_SECONDS)
				unlinkat(dfd, e->d_name, 0);
		} else if (ends_with(e->d_name, ".sym")) {
			hp_util_grow(&v, &cap, n + 1, sizeof(*v));
			v[n++] = (struct aged){ hp_util_xstrdup(e->d_name), st.st_mtime };
		}
	}
	if (n > FILES_KEPT) {
		hp_util_sort(v, n, sizeof(*v), older_first);
		for (size_t i = 0; i < n - FILES_KEPT; i++)
			unlinkat(dfd, v[i].name, 0);
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	closedir(d);
}

void hp_symcache_save(const char *path, hp_symcache_next next, void *ctx)
{
	struct hp_buf tmp = { 0 };
	char suffix[64];
	uint64_t vaddr;
	const struct hp_symres *res;
	size_t n;

	if (!path)
		return;
	snprintf(suffix, sizeof(suffix), ".%ld.%lx.tmp", (long)getpid(), (unsigned long)random());
	hp_buf_str(&tmp, path);
	hp_buf_str(&tmp, suffix);
	int fd = open(tmp.p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		hp_buf_release(&tmp);
		return;
	}
	fputs(MAGIC, f);
	while (next(ctx, &vaddr, &res, &n)) {
		fprintf(f, "@%llx %zu\n", (unsigned long long)vaddr, n);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s\t%s\t%d\t%s\t%d\n", res[i].name, res[i].file ? res[i].file : "", res[i].line,
				res[i].decl_file ? res[i].decl_file : "", res[i].decl_line);
	}
	int bad = ferror(f);
	if (fclose(f) != 0 || bad || rename(tmp.p, path) != 0)
		unlink(tmp.p);
	else
		prune(path);
	hp_buf_release(&tmp);
}
