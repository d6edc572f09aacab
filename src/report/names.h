/*
 * names.h -- function names as text: demangling, jeprof's short names,
 * and which names belong to the allocator (frames to trim).
 */
#ifndef HP_REPORT_NAMES_H
#define HP_REPORT_NAMES_H

#include <stddef.h>

/*
 * The demangled form of a C++ symbol ("_Z..."), malloc'd, or NULL when it
 * is not one or libstdc++ is not available.  Uses libstdc++'s
 * __cxa_demangle, loaded once with dlopen: the command is C and does not
 * link libstdc++.  A "@VERSION" or "@@VERSION" suffix is ignored.
 */
char *hp_names_demangle(const char *sym);

/*
 * jeprof's short function name (ShortFunctionName): argument lists,
 * template arguments and a leading return type removed, so that
 * "std::vector<int>::push_back(int const&)" becomes
 * "std::vector::push_back" and overloads share one line.  malloc'd.
 */
char *hp_names_short(const char *full);

/*
 * Whether a frame named name (mangled, demangled or short; with or
 * without "@VERSION" or GCC clone suffixes such as ".constprop.0") is part
 * of the allocator: malloc and its family, operator new/delete in every
 * spelling, jemalloc's and tcmalloc's entry points and internals.
 */
int hp_names_is_alloc(const char *name);

#endif
