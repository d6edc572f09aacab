/*
 * names.c -- demangling, short names and the allocator's names (see
 * names.h).
 *
 * Owns the list of allocator functions, which is jeprof's
 * RemoveUninterestingFrames list plus glibc's and jemalloc's internal
 * spellings.  Pure string work: no state but the dlopen'ed demangler.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "util.h"

typedef char *demangle_fn(const char *, char *, size_t *, int *);

static demangle_fn *load_demangler(void)
{
	static int tried;
	static demangle_fn *fn;

	if (!tried) {
		tried = 1;
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (h)
			fn = (demangle_fn *)dlsym(h, "__cxa_demangle");
	}
	return fn;
}

char *hp_names_demangle(const char *sym)
{
	if (strncmp(sym, "_Z", 2))
		return NULL;
	demangle_fn *fn = load_demangler();
	if (!fn)
		return NULL;
	/* "_Znwm@@GLIBCXX_3.4": the version is not part of the name. */
	char *plain = hp_util_xstrndup(sym, strcspn(sym, "@"));
	int status = -1;
	char *out = fn(plain, NULL, NULL, &status);
	free(plain);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* ---- short names ----------------------------------------------------- */

/* Length of an operator token's symbol characters after "operator" at
 * s[i], so that "operator<<" keeps its '<' out of template matching. */
static size_t operator_chars(const char *s, size_t i)
{
	size_t j = i;

	if (i < 8 || strncmp(s + i - 8, "operator", 8))
		return 0;
	while (s[j] && strchr("<>=-", s[j]))
		j++;
	return j - i;
}

/* Removes balanced open..close groups, as jeprof's repeated s///g does;
 * after a ')' group also a following " const". */
static void remove_groups(char *s, char open, char close)
{
	size_t stack[64], depth = 0, o = 0, overflow = 0;

	for (size_t i = 0; s[i];) {
		size_t k = open == '<' ? operator_chars(s, i) : 0;
		if (k) {
			memmove(s + o, s + i, k);
			o += k;
			i += k;
			continue;
		}
		char c = s[i];
		if (c == open) {
			if (depth < HP_UTIL_ARRAY_LEN(stack))
				stack[depth++] = o;
			else
				overflow++;
		} else if (c == close && depth && !overflow) {
			o = stack[--depth];
			i++;
			if (close == ')') {
				size_t j = i;
				while (s[j] == ' ')
					j++;
				if (!strncmp(s + j, "const", 5) && !isalnum((unsigned char)s[j + 5]) &&
				    s[j + 5] != '_')
					i = j + 5;
			}
			continue;
		} else if (c == close && overflow) {
			overflow--;
		}
		s[o++] = s[i++];
	}
	s[o] = '\0';
}

static int word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

char *hp_names_short(const char *full)
{
	char *s = hp_util_xstrdup(full);

	remove_groups(s, '(', ')');
	remove_groups(s, '<', '>');
	/* jeprof: s/^.*\s+(\w+::)/$1/ -- drop a leading return type. */
	size_t n = strlen(s);
	for (size_t i = n; i-- > 0;) {
		if (s[i] != ' ' && s[i] != '\t')
			continue;
		size_t j = i + 1;
		while (word_char(s[j]))
			j++;
		if (j > i + 1 && s[j] == ':' && s[j + 1] == ':') {
			memmove(s, s + i + 1, n - i);
			break;
		}
	}
	/* Trailing blanks left where a group was removed. */
	n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
	if (!*s) {
		free(s);
		return hp_util_xstrdup(full);
	}
	return s;
}

/* ---- the allocator --------------------------------------------------- */

static const char *const alloc_names[] = {
	/* jeprof's list (RemoveUninterestingFrames, heap profiles). */
	"calloc", "cfree", "malloc", "newImpl", "void* newImpl", "free", "memalign",
	"posix_memalign", "aligned_alloc", "pvalloc", "valloc", "realloc", "mallocx",
	"rallocx", "xallocx", "dallocx", "sdallocx", "sdallocx_noflags", "tc_calloc",
	"tc_cfree", "tc_malloc", "tc_free", "tc_memalign", "tc_posix_memalign",
	"tc_pvalloc", "tc_valloc", "tc_realloc", "tc_new", "tc_delete", "tc_newarray",
	"tc_deletearray", "tc_new_nothrow", "tc_newarray_nothrow", "do_malloc",
	"::do_malloc", "::do_malloc_or_cpp_alloc", "DoSampledAllocation",
	"simple_alloc::allocate", "__malloc_alloc_template::allocate",
	"__builtin_delete", "__builtin_new", "__builtin_vec_delete", "__builtin_vec_new",
	"operator new", "operator new[]", "malloc_zone_malloc", "malloc_zone_calloc",
	"malloc_zone_valloc", "malloc_zone_realloc", "malloc_zone_memalign",
	"malloc_zone_free", "__start_google_malloc", "__stop_google_malloc",
	"__start_malloc_hook", "__stop_malloc_hook",
	/* More of the family, and C++ delete. */
	"reallocarray", "operator delete", "operator delete[]", "tc_malloc_skip_new_handler",
	/* glibc's own names for them. */
	"__libc_malloc", "__libc_calloc", "__libc_realloc", "__libc_free",
	"__libc_memalign", "__libc_valloc", "__libc_pvalloc", "__libc_reallocarray",
	"__posix_memalign", "__libc_alloc_buffer_allocate", "_mid_memalign",
	/* jemalloc's internals, as its dumps show them. */
	"malloc_default", "imalloc", "imalloc_body", "prof_alloc_prep",
	"prof_backtrace_impl", "prof_backtrace", "prof_tctx_create", "ialloc",
	"ipalloc", "iallocztm", "irealloc_prof", "ialloc_prof", "imalloc_fastpath",
	"do_rallocx", "do_realloc_nonnull_zero", "je_malloc_default",
	"je_prof_backtrace", "je_prof_tctx_create", "je_prof_alloc_prep",
	"je_prof_backtrace_impl", "je_je_malloc_default",
};

/* The name without "@VERSION", " [clone .x]" or ".constprop.0" suffixes,
 * short, and without a "je_" prefix. */
static char *alloc_key(const char *name)
{
	char *s = hp_util_xstrndup(name, strcspn(name, "@"));
	char *clone = strstr(s, " [clone");
	if (clone)
		*clone = '\0';
	/* GCC clone suffixes on C symbols ("foo.constprop.0", "foo.cold"). */
	if (!strchr(s, '(') && !strstr(s, "::")) {
		char *dot = strchr(s, '.');
		if (dot && dot != s)
			*dot = '\0';
	}
	char *k = hp_names_short(s);
	free(s);
	if (strncmp(k, "je_", 3))
		return k;
	char *plain = hp_util_xstrdup(k + 3);
	free(k);
	return plain;
}

int hp_names_is_alloc(const char *name)
{
	/* Mangled operator new/new[]/delete/delete[] in every overload. */
	if (!strncmp(name, "_Znw", 4) || !strncmp(name, "_Zna", 4) ||
	    !strncmp(name, "_Zdl", 4) || !strncmp(name, "_Zda", 4))
		return 1;
	if (strstr(name, "TCMalloc") || !strncmp(name, "tcmalloc::", 10))
		return 1;
	char *k = alloc_key(name);
	int hit = 0;
	for (size_t i = 0; i < HP_UTIL_ARRAY_LEN(alloc_names) && !hit; i++)
		hit = !strcmp(k, alloc_names[i]);
	/* "je_malloc" and friends: the prefix was removed above. */
	free(k);
	return hit;
}
