/*
 * dumpsyms.h -- the "--- symbol" section of a dump (dump_symbols:true).
 *
 * jeprof's symbolized-profile layout: "--- symbol", "binary=<program>",
 * one "0x<address> <function>" line per address the stacks use (the first
 * frame's as written, the callers' minus one, as jeprof looks them up),
 * "---", then "--- heap" and the profile.
 */
#ifndef HP_DUMPSYMS_H
#define HP_DUMPSYMS_H

#include "base/fmt.h"

#pragma GCC visibility push(hidden)

struct hp_totals;

/* Writes the section and the "--- heap" line that follows it.  Returns
 * the output's error state. */
int hp_dumpsyms_write(struct hp_out *out, const struct hp_totals *s, int accum);

#pragma GCC visibility pop

#endif
