/*
 * dump.h -- heap profile files.
 *
 * Two text layouts, both headed by the sampling rate R = 2^lg_prof_sample:
 *
 *   gperftools (default; read by jeprof and go tool pprof)
 *     heap profile: <objs>: <bytes> [<objs>: <bytes>] @ heap_v2/<R>
 *     (exact mode, R = 1: "@ heapprofile", gperftools' exact counts)
 *     <objs>: <bytes> [<objs>: <bytes>] @ 0x<pc> 0x<pc> ...
 *     ...
 *     (blank line)
 *     MAPPED_LIBRARIES:
 *     <the process's /proc/self/maps>
 *
 *   jemalloc (jemalloc's threaded heap_v2 layout, read by jeprof)
 *     heap_v2/<R>
 *       t*: <objs>: <bytes> [<objs>: <bytes>]
 *       t<uid>: <objs>: <bytes> [<objs>: <bytes>] <thread name>
 *     @ 0x<pc> ...
 *       t*: ...
 *       t<uid>: ...
 *     (blank line, then MAPPED_LIBRARIES: as above)
 *
 * Readers scale every row by 1/(1 - exp(-(bytes/objs)/R)).  Our estimates
 * are already unbiased per allocation, so each row holds the pre-image
 * that this scaling maps back onto our estimate (jemalloc >= 5.3 does the
 * same), to within the rounding of the row's integers.  In exact mode
 * (R = 1) rows hold the exact counts, which every reader takes as they
 * are in the gperftools layout ("@ heapprofile"); in the jemalloc layout
 * heapprof report does, while jeprof scales them (counting blocks under
 * about 37 bytes more than once, as it does jemalloc's own exact dumps).
 * Blocks of zero
 * bytes are left out: a row "N: 0" makes jeprof divide by zero.  The
 * [objs: bytes] pair is cumulative with prof_accum and 0: 0 otherwise.
 */
#ifndef HP_DUMP_H
#define HP_DUMP_H

#include <stddef.h>
#include <stdint.h>

struct hp_totals;

/* Writes a dump of s to path (atomically, mode 0600) in the given
 * dump_format.  Returns 0 or an errno value. */
int hp_dump_write(const char *path, const struct hp_totals *s, int format, int accum);

/* Takes a snapshot and writes it under an automatic name (dumpname.h) for
 * the trigger letter: f final, i interval, u high-water, t timer, s
 * signal, m API, h threshold.  The name is copied to path.  Logs the dump
 * with a summary (unless HP_DUMP_QUIET), applies retention, updates the
 * state file.  Returns 0, ENOENT when prof_prefix is empty, or an errno
 * value (logged).  Dumps are serialised.  With keep non-NULL and success,
 * the snapshot the dump was written from is handed to the caller, who
 * releases it. */
#define HP_DUMP_QUIET 1u
/* A signal dump ('s') that heapprof dump asked for through its control
 * file: logged as "(heapprof dump)", or "(signal, heapprof dump)" with
 * HP_DUMP_SIGNAL when signal_dump arrived for the same dump. */
#define HP_DUMP_ASKED 2u
#define HP_DUMP_SIGNAL 4u
int hp_dump_auto(char trigger, unsigned flags, char *path, size_t cap,
		 struct hp_totals *keep);

/* The log line for a dump written quietly, at the given log level. */
void hp_dump_log(int level, const char *path, char trigger, const struct hp_totals *s);

/* Writes a dump to an explicit path (the API's heapprof_dump(path)). */
int hp_dump_path(const char *path);

/* The reader's scaling, inverted: integer (objs, bytes) that jeprof's and
 * pprof's 1/(1-exp(-avg/R)) maps back to the estimates (cnt, bytes) at a
 * sampled rate R, and (cnt, bytes) as they are in exact mode (R = 1).
 *
 * At a sampled rate the count the scaling needs, cnt (1 - exp(-avg/R)),
 * is a real number, and rounding it is not harmless: a stack with one
 * sample of s bytes needs about s/(s+1) of an object (the sample point
 * takes s + 1 bytes of the stream, record/sample.h), so that rounding to
 * the nearest reads 1/s more objects, whatever the rate; real programs
 * have many such stacks (gcc's cc1 read 7% more objects).  So the count
 * is rounded down or up at random, up with the probability of its
 * fraction: with dither uniform in [0, 1), floor(count + dither), which
 * is the count on average, and bytes_in is that count times avg, so that
 * the reader's average size is the estimate's.  The reading is then
 * unbiased in objects and bytes, row by row.  A row that rounds to no
 * object has none (0, 0): a stack with one small sample reads nothing
 * now and then, as often as its figures require (the dump still writes
 * its row, of zeros, which its age line and peak follow).
 *
 * dither HP_DUMP_NEAREST: the nearest count, at least one object (the
 * leak dump: every leak has its row, at the price of that bias).
 * Blocks of zero bytes make no row.  Exposed for the unit tests. */
#define HP_DUMP_NEAREST (-1.0)
void hp_dump_preimage(double cnt, double bytes, double rate, double dither,
		      uint64_t *cnt_in, uint64_t *bytes_in);

/* What a reader (heapprof report, jeprof) makes of a row (cnt_in,
 * bytes_in) at rate R: the scaling above, rounded as heapprof report
 * rounds; R = 1 as it is.  The log line of a dump sums these, so that it
 * agrees with the report of that dump. */
void hp_dump_row_read(uint64_t cnt_in, uint64_t bytes_in, double rate, uint64_t *objs,
		      uint64_t *bytes);

/* The dump lock: dumps hold it while they write, and the control side
 * (control/settings.c) while it changes options, so a dump never sees
 * half a change.  Never taken inside malloc. */
void hp_dump_lock(void);
void hp_dump_unlock(void);

/* In a fork child: a fresh lock (the parent's may have been held by a
 * thread that does not exist here). */
void hp_dump_postfork_child(void);

#endif
