/*
 * topstacks.h -- the few call stacks of one dump that hold the most of one
 * value (live bytes, bytes at the peak, allocations), as lines of text:
 * what heapprof check names when a process goes over a budget.
 */
#ifndef HP_REPORT_TOPSTACKS_H
#define HP_REPORT_TOPSTACKS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Reads the dump at path, symbolizes it, and appends to *out (a malloc'd
 * string, grown) up to top lines "<indent><value>  leaf <- caller <- ...",
 * largest first, of value vi (enum hp_value).  Dies with status 1 on an
 * unreadable dump, as the report commands do; *total is the dump's sum of
 * the value over its stacks.
 */
void hp_topstacks(const char *path, int vi, size_t top, const char *indent, char **out,
		  int64_t *total);

#endif
