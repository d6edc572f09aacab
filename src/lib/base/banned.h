/*
 * banned.h -- turns the calls that are unsafe inside the profiler into
 * compile errors.  Included last by every library module except the
 * interposer (intercept/) and the next-allocator resolver (next/next.c), which
 * exist precisely to forward to the allocator.
 *
 * Why: profiler code runs inside malloc, inside fork handlers and at exit.
 * Calling the host allocator from there recurses into ourselves; stdio
 * takes locks and allocates; opendir, qsort and localtime allocate behind
 * our back.  Use hp_pages/hp_arena for memory, hp_fmt/hp_out for text,
 * getdents64 for directories.
 */
#ifndef HP_BANNED_H
#define HP_BANNED_H

#define HP_BANNED(f) sorry_##f##_is_banned_in_the_profiler

#undef malloc
#define malloc(...) HP_BANNED(malloc)
#undef calloc
#define calloc(...) HP_BANNED(calloc)
#undef realloc
#define realloc(...) HP_BANNED(realloc)
#undef free
#define free(...) HP_BANNED(free)
#undef strdup
#define strdup(...) HP_BANNED(strdup)
#undef strndup
#define strndup(...) HP_BANNED(strndup)
#undef printf
#define printf(...) HP_BANNED(printf)
#undef fprintf
#define fprintf(...) HP_BANNED(fprintf)
#undef sprintf
#define sprintf(...) HP_BANNED(sprintf)
#undef snprintf
#define snprintf(...) HP_BANNED(snprintf)
#undef vsnprintf
#define vsnprintf(...) HP_BANNED(vsnprintf)
#undef fopen
#define fopen(...) HP_BANNED(fopen)
#undef fdopen
#define fdopen(...) HP_BANNED(fdopen)
#undef opendir
#define opendir(...) HP_BANNED(opendir)
#undef qsort
#define qsort(...) HP_BANNED(qsort)
#undef localtime
#define localtime(...) HP_BANNED(localtime)
#undef localtime_r
#define localtime_r(...) HP_BANNED(localtime_r)
#undef strerror
#define strerror(...) HP_BANNED(strerror)
#undef ini_parse
#define ini_parse(...) HP_BANNED(ini_parse)

#endif
