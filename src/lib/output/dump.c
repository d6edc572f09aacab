/*
 * dump.c -- writing a dump: the two formats, automatic dumps (see dump.h).
 *
 * Owns the dump lock (which changes of options also take, so that a dump
 * never sees half a change) and the live bytes at the previous dump, for
 * the log line.  Names, directories and retention are dumpname.c's, the
 * sequence counters too.  Runs on the thread that
 * asked for the dump (the exit handler, the helper thread, an API caller)
 * inside the guard.  It reads counters without stopping anyone: no lock
 * that malloc or free takes is held while a dump runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "conf/conf.h"
#include "output/dump.h"
#include "output/dumpname.h"
#include "base/file.h"
#include "base/fmt.h"
#include "record/switches.h"
#include "base/out.h"
#include "base/maths.h"
#include "base/pages.h"
#include "base/log.h"
#include "base/sandbox.h"
#include "record/sample.h"
#include "output/totals.h"
#include "output/agehist.h"
#include "output/statefile.h"
#include "output/dumpsyms.h"
#include "output/buildid.h"
#include "record/stacktab.h"
#include "record/threads.h"
#include "record/tls.h"
#include "output/bell.h"
#include "base/banned.h"

#define OUT_BUF (64u << 10)

/* Live bytes at this process's previous dump, for the growth figure. */
static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t previous_live = -1;

/* y >= 0 to the nearest integer, saturated. */
static uint64_t round_u64(double y)
{
	return y >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)(y + 0.5);
}

void hp_dump_preimage(double cnt, double bytes, double rate, double dither,
		      uint64_t *cnt_in, uint64_t *bytes_in)
{
	*cnt_in = 0;
	*bytes_in = 0;
	/* A row of zero bytes (malloc(0)) would make readers divide by zero
	 * (jeprof dies): such blocks are left out. */
	if (!(cnt > 0) || !(bytes > 0))
		return;
	/* Exact mode: every allocation was recorded, and the rows say so as
	 * they are.  Scaling them would count 20 one-byte blocks as 31. */
	if (rate <= 1) {
		*cnt_in = round_u64(cnt);
		*bytes_in = round_u64(bytes);
		if (*cnt_in == 0)
			*cnt_in = 1;
		return;
	}
	double avg = bytes / cnt;
	double c = cnt * -hp_maths_expm1(-avg / rate);
	uint64_t k;
	if (dither < 0) {
		/* Readers reject a count of 0 with bytes. */
		k = round_u64(c);
		if (k == 0)
			k = 1;
	} else {
		double f = c + dither;   /* >= 0: truncation is floor */
		k = f >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)f;
		if (k == 0)
			return;
	}
	*cnt_in = k;
	*bytes_in = round_u64((double)k * avg);
	if (*bytes_in == 0)
		*bytes_in = 1;   /* readers divide by bytes */
}

void hp_dump_row_read(uint64_t cnt_in, uint64_t bytes_in, double rate, uint64_t *objs,
		      uint64_t *bytes)
{
	if (!cnt_in || !bytes_in || rate <= 1) {
		*objs = cnt_in;
		*bytes = bytes_in;
		return;
	}
	double scale = 1 / -hp_maths_expm1(-((double)bytes_in / (double)cnt_in) / rate);
	*objs = round_u64((double)cnt_in * scale);
	*bytes = round_u64((double)bytes_in * scale);
}

struct row {
	uint64_t c, b, ac, ab;
};

/* Where a row is in the dump, for its dither: its stack (0: the total)
 * and its thread's uid + 1 (0: every thread). */
static uint64_t row_key(uint32_t st, uint32_t uid_plus_1)
{
	return (uint64_t)st | (uint64_t)uid_plus_1 << 32;
}

/* The dither of one field of a row (hp_dump_preimage): uniform in
 * [0, 1), a hash of the snapshot's salt and the row's place, so that it
 * is independent of what was sampled, and the same in every dump of the
 * process (a stack that did not change reads the same).  Salt 0: to the
 * nearest (the leak dump). */
static double dither_of(const struct hp_totals *s, uint64_t key, int accum)
{
	if (!s->dither_salt)
		return HP_DUMP_NEAREST;
	uint64_t x = s->dither_salt ^ (key << 1 | (uint64_t)accum);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return (double)(x >> 11) * 0x1.0p-53;
}

static void row_of(const struct hp_totals *s, const struct hp_counts *k, double rate, int accum,
		   uint64_t key, struct row *r)
{
	hp_dump_preimage(hp_totals_objects(k->live_cnt), (double)k->live_bytes, rate,
			 dither_of(s, key, 0), &r->c, &r->b);
	r->ac = r->ab = 0;
	if (accum)
		hp_dump_preimage(hp_totals_objects((int64_t)k->accum_cnt),
				 (double)k->accum_bytes, rate, dither_of(s, key, 1), &r->ac, &r->ab);
}

static int row_empty(const struct row *r)
{
	return !r->c && !r->ac;
}

static void put_counts(struct hp_out *o, const struct row *r)
{
	hp_out_u64(o, r->c);
	hp_out_str(o, ": ");
	hp_out_u64(o, r->b);
	hp_out_str(o, " [");
	hp_out_u64(o, r->ac);
	hp_out_str(o, ": ");
	hp_out_u64(o, r->ab);
	hp_out_char(o, ']');
}

static void put_frames(struct hp_out *o, uint32_t stack_id)
{
	const struct hp_stack *st = hp_stacktab_get(stack_id);

	hp_out_char(o, '@');
	struct hp_stack_frames it = st ? hp_stacktab_frames_of(st) : (struct hp_stack_frames){ 0 };
	for (uint32_t i = 0; st && i < st->depth; i++) {
		hp_out_char(o, ' ');
		hp_out_hex(o, hp_stacktab_next(&it));
	}
	hp_out_char(o, '\n');
}

/* ---- heapprof's own lines ------------------------------------------- */

/* Objects, to the nearest one, from a fixed-point count. */
static uint64_t objs_of(int64_t cnt_fp)
{
	return cnt_fp > 0 ? ((uint64_t)cnt_fp + HP_CNT_ONE / 2) >> HP_CNT_SHIFT : 0;
}

/* When the dump was taken, to the nanosecond (the name has the second):
 * `heapprof trend` measures growth between dumps a second apart. */
static void put_time(struct hp_out *o)
{
	struct timespec now;
	char frac[10];

	clock_gettime(CLOCK_REALTIME, &now);
	hp_out_str(o, "# heapprof time: ");
	hp_out_u64(o, (uint64_t)now.tv_sec);
	for (int i = 8, ns = (int)now.tv_nsec; i >= 0; i--, ns /= 10)
		frac[i] = (char)('0' + ns % 10);
	frac[9] = '\n';
	hp_out_char(o, '.');
	hp_out_write(o, frac, sizeof(frac));
}

/* After the header: the process's peak and temporary allocations. */
static void put_extra_header(struct hp_out *o, const struct hp_totals *s,
			     const struct hp_agehist *ages)
{
	hp_out_str(o, "# heapprof peak: ");
	hp_out_u64(o, objs_of(s->total.peak_cnt));
	hp_out_str(o, ": ");
	hp_out_u64(o, s->peak > 0 ? (uint64_t)s->peak : 0);
	if (s->peak_moving)
		hp_out_str(o, " moving");
	hp_out_str(o, "\n# heapprof temporary: ");
	hp_out_u64(o, objs_of((int64_t)s->total.tmp_cnt));
	hp_out_str(o, ": ");
	hp_out_u64(o, objs_of((int64_t)s->total.accum_cnt));
	hp_out_char(o, '\n');
	put_time(o);
	if (ages)
		hp_agehist_put_uptime(o, ages);
	/* heapprof attach: what was allocated before is not in any figure. */
	if (HP_LOAD(&hp_switches.attached) == HP_ATTACH_ON) {
		char when[40];
		hp_fmt_utc(when, HP_LOAD(&hp_switches.attached_at), 0, 0);
		hp_out_str(o, "# heapprof attached: ");
		hp_out_str(o, when);
		hp_out_str(o, ": allocations since then only\n");
	}
}

/* A stack's peak and temporary figures; frames when it has no row. */
static void put_extra(struct hp_out *o, const struct hp_counts *k, uint32_t st, int frames)
{
	if (!hp_conf.dump_peak)
		return;
	hp_out_str(o, "# peak: ");
	hp_out_u64(o, objs_of(k->peak_cnt));
	hp_out_str(o, ": ");
	hp_out_u64(o, k->peak_bytes > 0 ? (uint64_t)k->peak_bytes : 0);
	hp_out_str(o, " temporary: ");
	hp_out_u64(o, objs_of((int64_t)k->tmp_cnt));
	hp_out_str(o, ": ");
	hp_out_u64(o, objs_of((int64_t)k->accum_cnt));
	if (frames) {
		hp_out_char(o, ' ');
		put_frames(o, st);
	} else {
		hp_out_char(o, '\n');
	}
}

/* Whether k's figures (live, and allocated with accum) have no bytes to
 * make a row of: objects of zero bytes, or none.  Every other stack has
 * its row, of zeros when its rounding gave no object (hp_dump_preimage),
 * so that its age line and peak still have a row to follow. */
static int no_bytes(const struct hp_counts *k, int accum)
{
	return (k->live_cnt <= 0 || k->live_bytes <= 0) &&
	       (!accum || !k->accum_cnt || !k->accum_bytes);
}

/* The stacks that have no row but held part of the peak or made
 * temporary allocations. */
static void put_extra_rowless(struct hp_out *o, const struct hp_totals *s, int accum)
{
	if (!hp_conf.dump_peak)
		return;
	for (uint32_t st = 1; st <= s->nstacks; st++) {
		const struct hp_counts *k = &s->by_stack[st];
		if (no_bytes(k, accum) && (k->peak_cnt > 0 || k->tmp_cnt > 0))
			put_extra(o, k, st, 1);
	}
}

/* The stacks whose blocks are all of zero bytes (malloc(0)): a row of
 * objects without bytes makes jeprof divide by zero, so their objects go
 * on a line of heapprof's own.  (A stack whose row rounded to no object
 * has bytes, and its row of zeros.) */
static void put_zero_size(struct hp_out *o, const struct hp_totals *s, int accum)
{
	for (uint32_t st = 1; st <= s->nstacks; st++) {
		const struct hp_counts *k = &s->by_stack[st];
		uint64_t live = objs_of(k->live_cnt), all = accum ? objs_of((int64_t)k->accum_cnt) : 0;
		if ((!live && !all) || !no_bytes(k, accum))
			continue;
		hp_out_str(o, "# zero-size: ");
		hp_out_u64(o, live);
		hp_out_str(o, ": ");
		hp_out_u64(o, all);
		hp_out_char(o, ' ');
		put_frames(o, st);
	}
}

struct maps_copy {
	struct hp_out *o;
	size_t bytes;
};

static void put_chunk(const char *buf, size_t n, void *arg)
{
	struct maps_copy *m = arg;

	hp_out_write(m->o, buf, n);
	m->bytes += n;
}

/* Without /proc (a chroot, a container that does not mount it), the
 * loader's list of objects stands in: one line per loaded segment, in
 * /proc/self/maps' layout, so that the dump can still be symbolized where
 * the objects are.  The program's own path is the one it was started by
 * (AT_EXECFN), when absolute. */
static int put_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct hp_out *o = arg;
	const char *path = info->dlpi_name;
	char line[64 + PATH_MAX];

	(void)size;
	if (!path || !*path)
		path = (const char *)getauxval(AT_EXECFN);
	if (!path || path[0] != '/')
		return 0;   /* the vDSO, or a program started by a relative path */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !ph->p_filesz)
			continue;
		/* The part mapped from the file: a segment's zero-filled tail
		 * (.bss) is anonymous memory in /proc/self/maps too. */
		uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
		uintptr_t lo = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		uintptr_t hi = (info->dlpi_addr + ph->p_vaddr + ph->p_filesz + page - 1) & ~(page - 1);
		size_t n = hp_fmt(line, sizeof(line), "%lx-%lx %c%c%cp %08lx 00:00 0 %s\n",
				  (unsigned long)lo, (unsigned long)hi, ph->p_flags & PF_R ? 'r' : '-',
				  ph->p_flags & PF_W ? 'w' : '-', ph->p_flags & PF_X ? 'x' : '-',
				  (unsigned long)(ph->p_offset & ~(page - 1)), path);
		hp_out_write(o, line, n);
	}
	return 0;
}

/* The calling thread's view first: once main has called pthread_exit,
 * /proc/self/maps (the main thread's) reads empty. */
static void put_maps(struct hp_out *o)
{
	static int told;
	struct maps_copy m = { o, 0 };

	hp_out_str(o, "\nMAPPED_LIBRARIES:\n");
	int err = hp_file_each_chunk("/proc/thread-self/maps", put_chunk, &m);
	if (err && !m.bytes)
		err = hp_file_each_chunk("/proc/self/maps", put_chunk, &m);
	if (m.bytes)
		return;
	if (!HP_XCHG(&told, 1))
		hp_log(HP_LOG_INFO, "cannot read /proc/self/maps (%s): dumps list the loaded objects "
		       "from the dynamic loader instead", strerrordesc_np(err ? err : ENODATA));
	dl_iterate_phdr(put_segments, o);
}

static void write_gperftools(struct hp_out *o, const struct hp_totals *s,
			     double rate, int accum, const struct hp_agehist *ages)
{
	struct row tot = { 0, 0, 0, 0 }, r;

	for (uint32_t st = 1; st <= s->nstacks; st++) {
		row_of(s, &s->by_stack[st], rate, accum, row_key(st, 0), &r);
		tot.c += r.c;
		tot.b += r.b;
		tot.ac += r.ac;
		tot.ab += r.ab;
	}
	hp_out_str(o, "heap profile: ");
	put_counts(o, &tot);
	/* Exact mode: gperftools' own type for exact counts, which jeprof and
	 * pprof take as they are (they would scale heap_v2/1). */
	if (rate <= 1) {
		hp_out_str(o, " @ heapprofile\n");
	} else {
		hp_out_str(o, " @ heap_v2/");
		hp_out_u64(o, (uint64_t)rate);
		hp_out_char(o, '\n');
	}
	put_extra_header(o, s, ages);
	for (uint32_t st = 1; st <= s->nstacks; st++) {
		if (no_bytes(&s->by_stack[st], accum))
			continue;
		row_of(s, &s->by_stack[st], rate, accum, row_key(st, 0), &r);
		put_counts(o, &r);
		hp_out_char(o, ' ');
		put_frames(o, st);
		put_extra(o, &s->by_stack[st], st, 0);
		if (ages)
			hp_agehist_put_stack(o, ages, st);
	}
	put_extra_rowless(o, s, accum);
	put_zero_size(o, s, accum);
}

/* Thread names go on the header rows; keep them on one printable line. */
static void put_name(struct hp_out *o, const char *name)
{
	char clean[HP_NAME_MAX];
	size_t n = strnlen(name, HP_NAME_MAX - 1);

	for (size_t i = 0; i < n; i++)
		clean[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
	if (n) {
		hp_out_char(o, ' ');
		hp_out_write(o, clean, n);
	}
}

static const struct hp_thread *thread_by_uid(uint32_t uid)
{
	for (const struct hp_thread *t = hp_threads_list(); t; t = t->next)
		if (t->uid == uid)
			return t;
	return NULL;
}

static void put_thread_row(struct hp_out *o, uint32_t uid, const struct row *r)
{
	hp_out_str(o, "  t");
	hp_out_u64(o, uid);
	hp_out_str(o, ": ");
	put_counts(o, r);
}

/* One stack's per-thread rows: its contexts merged by thread uid. */
static void put_stack_threads(struct hp_out *o, const struct hp_totals *s,
			      uint32_t st, double rate, int accum)
{
	uint32_t lo = s->first[st], hi = s->first[st + 1];

	for (uint32_t i = lo; i < hi; i++) {
		const struct hp_counters *c = hp_counters_at(s->ctx_sorted[i]);
		int seen = 0;
		/* Merge contexts of the same thread (other rates, re-created
		 * maps); print the thread at its first context only. */
		for (uint32_t j = lo; j < i && !seen; j++)
			seen = hp_counters_at(s->ctx_sorted[j])->thread == c->thread;
		if (seen)
			continue;
		struct hp_counts sum = { 0 }, k;
		for (uint32_t j = i; j < hi; j++) {
			const struct hp_counters *d = hp_counters_at(s->ctx_sorted[j]);
			if (d->thread != c->thread)
				continue;
			hp_totals_read(s, d, &k);
			sum.live_cnt += k.live_cnt;
			sum.live_bytes += k.live_bytes;
			sum.accum_cnt += k.accum_cnt;
			sum.accum_bytes += k.accum_bytes;
		}
		struct row r;
		row_of(s, &sum, rate, accum, row_key(st, c->thread + 1), &r);
		if (row_empty(&r))
			continue;
		put_thread_row(o, c->thread, &r);
		hp_out_char(o, '\n');
	}
}

static void write_jemalloc(struct hp_out *o, const struct hp_totals *s,
			   double rate, int accum, const struct hp_agehist *ages)
{
	struct row r;

	hp_out_str(o, "heap_v2/");
	hp_out_u64(o, (uint64_t)rate);
	hp_out_str(o, "\n  t*: ");
	row_of(s, &s->total, rate, accum, row_key(0, 0), &r);
	put_counts(o, &r);
	hp_out_char(o, '\n');
	for (uint32_t uid = 0; uid < s->nthreads; uid++) {
		const struct hp_thread *t = thread_by_uid(uid);
		row_of(s, &s->by_thread[uid], rate, accum, row_key(0, uid + 1), &r);
		if (row_empty(&r) && (!t || HP_LOAD(&t->exited)))
			continue;
		put_thread_row(o, uid, &r);
		if (t)
			put_name(o, t->name);
		hp_out_char(o, '\n');
	}
	put_extra_header(o, s, ages);
	for (uint32_t st = 1; st <= s->nstacks; st++) {
		if (no_bytes(&s->by_stack[st], accum))
			continue;
		row_of(s, &s->by_stack[st], rate, accum, row_key(st, 0), &r);
		put_frames(o, st);
		hp_out_str(o, "  t*: ");
		put_counts(o, &r);
		hp_out_char(o, '\n');
		put_stack_threads(o, s, st, rate, accum);
		put_extra(o, &s->by_stack[st], st, 0);
		if (ages)
			hp_agehist_put_stack(o, ages, st);
	}
	put_extra_rowless(o, s, accum);
	put_zero_size(o, s, accum);
}

/* A dump of s, with the ages of its stacks when ages is not NULL. */
static int write_dump(const char *path, const struct hp_totals *s, int format, int accum,
		      const struct hp_agehist *ages)
{
	struct hp_file f;
	struct hp_out o;
	double rate = hp_maths_pow2(s->lg);
	char *buf = hp_pages_alloc(OUT_BUF);

	if (!buf)
		return ENOMEM;
	int err = hp_file_create(&f, path);
	if (err)
		goto out;
	hp_out_init(&o, f.fd, buf, OUT_BUF);
	if (hp_conf.dump_symbols)
		hp_dumpsyms_write(&o, s, accum);
	if (format == HP_CONF_DUMP_JEMALLOC)
		write_jemalloc(&o, s, rate, accum, ages);
	else
		write_gperftools(&o, s, rate, accum, ages);
	hp_buildid_write(&o);
	put_maps(&o);
	err = hp_out_flush(&o);
	if (err)
		hp_file_abort(&f);
	else
		err = hp_file_commit(&f);
out:
	hp_pages_free(buf, OUT_BUF);
	return err;
}

int hp_dump_write(const char *path, const struct hp_totals *s, int format, int accum)
{
	return write_dump(path, s, format, accum, NULL);
}

/* Under the dump lock, inside the guard.  A high-water dump ('u') shows
 * the heap at its peak, and has no ages (they are the blocks' of now). */
static int dump_locked(const char *path, char trigger, struct hp_totals *keep)
{
	struct hp_totals s;
	struct hp_agehist a = { 0 };

	hp_threads_refresh_names();
	int err = hp_totals_take(&s);
	if (err)
		return err;
	if (trigger == 'u')
		hp_totals_at_peak(&s);
	else
		(void)hp_agehist_take(&a, &s);   /* none without prof_age, or memory */
	err = write_dump(path, &s, hp_conf.dump_format, hp_conf.prof_accum, a.h ? &a : NULL);
	hp_agehist_release(&a);
	if (!err && keep)
		*keep = s;
	else
		hp_totals_release(&s);
	return err;
}

static const char *trigger_name(char t, unsigned flags)
{
	if (t == 's' && (flags & HP_DUMP_ASKED))
		return flags & HP_DUMP_SIGNAL ? "signal, heapprof dump" : "heapprof dump";
	switch (t) {
	case 'f': return "final";
	case 'i': return "interval";
	case 'u': return "high-water";
	case 't': return "timer";
	case 's': return "signal";
	case 'm': return "API";
	case 'h': return "threshold";
	}
	return "?";
}

static void log_dump(int level, const char *path, char trigger, unsigned flags,
		     const struct hp_totals *s)
{
	char live[32], delta[40];
	uint64_t contexts = 0, objects = 0, sum = 0;
	double rate = hp_maths_pow2(s->lg);

	/* The figures heapprof report (and jeprof) will give for this dump:
	 * its rows as a reader scales them, row by row, rounded as it rounds
	 * (the rows are integers: a few sampled blocks stand for a
	 * fractional estimate that they cannot hold exactly). */
	for (uint32_t st = 1; st <= s->nstacks; st++) {
		struct row r;
		uint64_t o, b;
		row_of(s, &s->by_stack[st], rate, 0, row_key(st, 0), &r);
		if (!r.c) {
			/* Rounded to no object (a row of zeros), or all of
			 * zero bytes (put_zero_size) */
			uint64_t zero = no_bytes(&s->by_stack[st], 0) ? objs_of(s->by_stack[st].live_cnt) : 0;
			contexts += zero > 0;
			objects += zero;
			continue;
		}
		hp_dump_row_read(r.c, r.b, rate, &o, &b);
		contexts++;
		objects += o;
		sum += b;
	}
	int64_t bytes = sum > INT64_MAX ? INT64_MAX : (int64_t)sum;
	hp_fmt_bytes(live, sizeof(live), bytes);
	if (previous_live < 0) {
		hp_fmt(delta, sizeof(delta), "first dump");
	} else {
		size_t n = hp_fmt(delta, sizeof(delta), "%s", bytes >= previous_live ? "+" : "");
		n += hp_fmt_bytes(delta + n, sizeof(delta) - n, bytes - previous_live);
		hp_fmt(delta + n, sizeof(delta) - n, " since the previous dump");
	}
	previous_live = bytes;
	hp_log((enum hp_log_level)level, "dump %s (%s): ~%s live in %llu object%s, %llu context%s, %s", path,
	       trigger_name(trigger, flags), live, (unsigned long long)objects, objects == 1 ? "" : "s",
	       (unsigned long long)contexts, contexts == 1 ? "" : "s", delta);
}

void hp_dump_log(int level, const char *path, char trigger, const struct hp_totals *s)
{
	log_dump(level, path, trigger, 0, s);
}

int hp_dump_auto(char trigger, unsigned flags, char *path, size_t cap,
		 struct hp_totals *keep)
{
	struct hp_tls *t = &hp_tls;
	struct hp_totals s;
	int err;

	path[0] = '\0';
	hp_tls_guard_enter(t);
	hp_dump_lock();
	if (!hp_conf.prof_prefix[0]) {
		err = ENOENT;
		goto out;
	}
	err = hp_dumpname_next(hp_conf.prof_prefix, trigger, path, cap);
	if (!err)
		err = hp_dumpname_mkdirs(path);
	if (!err)
		err = dump_locked(path, trigger, &s);
	if (err) {
		char why[PATH_MAX + 200];
		static int refusal_told;
		hp_fmt(why, sizeof(why), "dump failed (%s): %s: %s", trigger_name(trigger, flags),
		       path[0] ? path : hp_conf.prof_prefix, strerrordesc_np(err));
		/* A filter refuses every dump alike: said once. */
		if (!hp_sandbox_on() || !hp_sandbox_refusal(err))
			hp_log(HP_LOG_ERROR, "%s", why);
		else if (!HP_XCHG(&refusal_told, 1))
			hp_log(HP_LOG_ERROR, "%s: refused by the program's seccomp filter; further refusals "
			       "are not reported (heapprof(7): SANDBOXES)", why);
		if (trigger == 's')
			hp_bell_note_failure(why);
		goto out;
	}
	if (!(flags & HP_DUMP_QUIET))
		log_dump(HP_LOG_INFO, path, trigger, flags, &s);
	hp_dumpname_rotate(hp_conf.prof_prefix, hp_conf.dump_keep, hp_conf.dump_keep_bytes, path);
	hp_statefile_note_dump(path);
	if (keep)
		*keep = s;
	else
		hp_totals_release(&s);
out:
	hp_dump_unlock();
	hp_tls_guard_leave(t);
	return err;
}

int hp_dump_path(const char *path)
{
	struct hp_tls *t = &hp_tls;
	int err;

	hp_tls_guard_enter(t);
	hp_dump_lock();
	err = dump_locked(path, 'm', NULL);
	if (!err)
		hp_statefile_note_dump(path);
	hp_dump_unlock();
	hp_tls_guard_leave(t);
	return err;
}

void hp_dump_lock(void)
{
	pthread_mutex_lock(&dump_lock);
}

void hp_dump_unlock(void)
{
	pthread_mutex_unlock(&dump_lock);
}

void hp_dump_postfork_child(void)
{
	pthread_mutex_init(&dump_lock, NULL);
	previous_live = -1;
	hp_dumpname_postfork_child();
}
