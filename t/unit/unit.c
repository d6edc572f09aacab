/*
 * unit.c -- unit tests of the library's modules, linked against its
 * objects (not the interposer), printing TAP.  Run by t/0100-unit.t.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/conf.h"
#include "output/dump.h"
#include "base/file.h"
#include "base/fmt.h"
#include "base/out.h"
#include "base/maths.h"
#include "record/live.h"
#include "base/log.h"
#include "next/next.h"
#include "record/sample.h"
#include "record/stacktab.h"

#include "tap.h"

/* ---- fmt ---- */

static void test_fmt(void)
{
	char b[64];

	hp_fmt(b, sizeof(b), "%d|%5d|%-5d|%05d|%u|%x|%lld", -42, 7, 7, -7, 42u, 255u, -9000000000LL);
	is_str(b, "-42|    7|7    |-0007|42|ff|-9000000000", "fmt: integers, widths, flags");
	const char *volatile null = NULL;   /* hp_fmt prints "(null)" */
	hp_fmt(b, sizeof(b), "%s|%.3s|%5s|%-4s|%c|%%|%s", "abc", "abcdef", "ab", "x", 'z', null);
	is_str(b, "abc|abc|   ab|x   |z|%|(null)", "fmt: strings and precision");
	hp_fmt(b, sizeof(b), "%p %zu %lu", (void *)0x1234, (size_t)18446744073709551615ULL, 0ul);
	is_str(b, "0x1234 18446744073709551615 0", "fmt: pointers and size_t");
	size_t n = hp_fmt(b, 8, "%s", "0123456789");
	ok(n == 7 && !strcmp(b, "0123456"), "fmt: truncates and terminates");
}

/* ---- conf ---- */

static void test_conf(void)
{
	struct hp_conf_values o;
	uint8_t src[HP_CONF_NOPTS];

	hp_conf_defaults(&o, src);
	ok(o.lg_prof_sample == 19 && o.prof && !o.prof_leak && !strcmp(o.prof_prefix, "heapprof") &&
	   o.prof_bt_max == 128 && o.lg_prof_interval == -1 && o.dump_format == HP_CONF_DUMP_GPERFTOOLS,
	   "conf: defaults");
	hp_conf_parse_string(&o, src, "lg_prof_sample:0x0a,prof_leak:on,prof_prefix:/tmp/a b,dump_format:jemalloc",
			     HP_CONF_SRC_MALLOC_CONF);
	ok(o.lg_prof_sample == 10 && o.prof_leak && !strcmp(o.prof_prefix, "/tmp/a b") &&
	   o.dump_format == HP_CONF_DUMP_JEMALLOC, "conf: values parsed");
	ok(src[HP_CONF_O_lg_prof_sample] == HP_CONF_SRC_MALLOC_CONF && src[HP_CONF_O_prof] == HP_CONF_SRC_DEFAULT,
	   "conf: sources recorded key by key");
	hp_conf_parse_string(&o, src, "lg_prof_sample:99,prof_leak:maybe", HP_CONF_SRC_HEAPPROF_CONF);
	ok(o.lg_prof_sample == 10 && o.prof_leak, "conf: bad values leave the old ones");
	hp_conf_parse_string(&o, src, "lg_prof_sample:3", HP_CONF_SRC_HEAPPROF_CONF);
	ok(o.lg_prof_sample == 3 && src[HP_CONF_O_lg_prof_sample] == HP_CONF_SRC_HEAPPROF_CONF, "conf: later source wins");
	hp_conf_finish(&o, src);
	ok(o.prof_final, "conf: prof_leak implies prof_final");
	const char *s = hp_conf_suggest("prof_acum", 9);
	ok(s && !strcmp(s, "prof_accum"), "conf: suggestion for a typo");
	ok(hp_conf_suggest("zzzzzzzz", 8) == NULL, "conf: no suggestion for nonsense");
	char v[64];
	hp_conf_format(&o, hp_conf_find("dump_format", 11), v, sizeof(v));
	is_str(v, "jemalloc", "conf: format an enum back");
}

/* ---- pre-images: jeprof's and pprof's scaling maps them back ---- */

static void test_preimage(void)
{
	int bad = 0;
	double worst = 0;

	for (int lg = 0; lg <= 24; lg += 4) {
		double R = ldexp(1, lg);
		for (double cnt = 1; cnt < 1e7; cnt *= 7.3) {
			for (double avg = 1; avg < 1e7; avg *= 5.1) {
				double bytes = cnt * avg;
				/* Estimates exist only in multiples of what one
				 * sample stands for: at least one sample's worth. */
				double samples = cnt * -expm1(-avg / R);
				if (samples < 1)
					continue;
				uint64_t ci, bi;
				hp_dump_preimage(cnt, bytes, R, &ci, &bi);
				if (!ci || !bi) {
					bad++;
					continue;
				}
				double scale = 1 / (1 - exp(-((double)bi / ci) / R));
				double rb = bi * scale, rel = fabs(rb - bytes) / bytes;
				/* Integer pre-images lose precision only when the
				 * sampled count is small: rounding each field by
				 * half a unit moves the result by at most about
				 * that fraction of it. */
				double bound = 0.5 / (double)ci + 0.5 / (double)bi + 1e-9;
				if (rel > bound)
					bad++;
				if (rel > worst && ci > 100)
					worst = rel;
			}
		}
	}
	ok(bad == 0, "preimage: readers' scaling recovers the estimate within rounding");
	ok(worst < 5e-3, "preimage: error below 0.5%% once 100 samples back a row (worst %.2g)", worst);
	uint64_t ci, bi;
	hp_dump_preimage(80, 3235840, 1, &ci, &bi);
	ok(ci == 80 && bi == 3235840, "preimage: identity in exact mode");
}

/* ---- sampling ---- */

static void test_sampling(void)
{
	uint64_t c, b;

	hp_sample_weight(100, 0, &c, &b);
	ok(c == HP_CNT_ONE && b == 100, "weight: exact mode counts 1 object, its size");
	hp_sample_weight(0, 0, &c, &b);
	ok(c == HP_CNT_ONE && b == 0, "weight: exact mode counts malloc(0) as an object");
	hp_sample_weight(64, 19, &c, &b);
	double p = -expm1(-64.0 / 524288.0);
	ok(fabs((double)c / HP_CNT_ONE - 1 / p) < 0.01 && fabs((double)b - 64 / p) < 1,
	   "weight: 1/(1-exp(-Z/R)) per allocation");
	hp_sample_weight(1 << 30, 19, &c, &b);
	ok(c == HP_CNT_ONE && b == (1u << 30), "weight: huge blocks count once");
	/* The series used below x = 1/64 and expm1 above agree with the
	 * formula everywhere: each field is the exact value rounded to the
	 * nearest integer (off by more than a half by at most 1e-9 of it). */
	double worst = 0;
	for (int lg = 1; lg <= 30; lg++)
		for (uint64_t z = 1; z < ((uint64_t)1 << (lg + 6)); z = z * 5 / 4 + 1) {
			hp_sample_weight(z, lg, &c, &b);
			double w = 1 / -expm1(-(double)z / ldexp(1, lg));
			double wc = w * HP_CNT_ONE, wb = w * (double)z;
			double e = (fabs((double)c - wc) - 0.5) / wc, eb = (fabs((double)b - wb) - 0.5) / wb;
			if (e > worst)
				worst = e;
			if (eb > worst)
				worst = eb;
		}
	ok(worst < 1e-9, "weight: 1/(1-exp(-Z/R)) rounded, for every size and rate (worst excess %.1g)", worst);

	/* hpmath against libm: log over (0, 1] and beyond, expm1 everywhere. */
	double worst_log = 0, worst_expm1 = 0;
	for (double x = 0x1.0p-60; x < 1e6; x *= 1.0137) {
		double e = fabs(hp_maths_ln(x) - log(x)) / (fabs(log(x)) + 1e-300);
		if (x != 1.0 && e > worst_log)
			worst_log = e;
	}
	for (double x = -50; x < 50; x += 0.00731) {
		double e = fabs(hp_maths_expm1(x) - expm1(x)) / fabs(expm1(x));
		if (e > worst_expm1)
			worst_expm1 = e;
	}
	for (double x = 1e-12; x < 1; x *= 1.21) {
		double e = fabs(hp_maths_expm1(-x) - expm1(-x)) / fabs(expm1(-x));
		if (e > worst_expm1)
			worst_expm1 = e;
	}
	ok(worst_log < 1e-14 && worst_expm1 < 1e-14 && hp_maths_ln(1.0) == 0 && hp_maths_expm1(0) == 0,
	   "hpmath: log and expm1 within 1e-14 of libm (worst %.1g and %.1g)", worst_log, worst_expm1);
	ok(hp_maths_pow2(0) == 1 && hp_maths_pow2(19) == 524288 && hp_maths_pow2(-3) == 0.125 && hp_maths_round(2.5) == 3 &&
	   hp_maths_round(-2.5) == -3 && hp_maths_round(2.49) == 2, "hpmath: pow2 and round");

	uint64_t rng = hp_sample_seed(&rng), n = 400000;
	double sum = 0, below = 0, R = 4096;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t w = hp_sample_draw(&rng, 12);
		sum += (double)w;
		below += w <= 1000;
	}
	double mean = sum / n, se = R / sqrt((double)n);
	ok(fabs(mean - (R + 0.5)) < 5 * se, "draw: mean wait %.1f ~ 2^12 (5 standard errors)", mean);
	double pb = 1 - exp(-1000 / R), sp = sqrt(pb * (1 - pb) / n);
	ok(fabs(below / n - pb) < 5 * sp, "draw: P(wait <= 1000) = %.4f ~ 1-exp(-1000/R) = %.4f", below / n, pb);
}

/* ---- the live table against a reference model ---- */

static void test_live(void)
{
	enum { N = 60000 };
	static uintptr_t keys[N];
	static int present[N];
	uint64_t rng = 12345, size;
	uint32_t ctx;
	int bad = 0;

	/* Addresses packed into few pages: long clusters in few shards. */
	for (int i = 0; i < N; i++)
		keys[i] = 0x7f0000000000ULL + (uintptr_t)i * 16;
	for (int round = 0; round < 600000; round++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		int i = (int)(rng % N);
		if (present[i]) {
			if (hp_live_remove((void *)keys[i], &size, &ctx) != HP_LIVE_REMOVED ||
			    size != (uint64_t)i || ctx != (uint32_t)(i % 1000))
				bad++;
			present[i] = 0;
		} else {
			if (!hp_live_insert((void *)keys[i], (uint64_t)i, (uint32_t)(i % 1000)))
				bad++;
			present[i] = 1;
		}
	}
	ok(bad == 0, "live: 600000 random inserts and removes agree with the model");
	int live = 0, found = 0, wrong = 0;
	for (int i = 0; i < N; i++) {
		int f = hp_live_find((void *)keys[i], &size, &ctx);
		live += present[i];
		found += f;
		wrong += f != present[i] || (f && size != (uint64_t)i);
	}
	ok(!wrong && (uint64_t)live == hp_live_records(), "live: every key found iff present (%d live)", live);
	int maybe_missing = 0;
	for (int i = 0; i < N; i++)
		if (present[i] && !hp_filter_maybe((void *)keys[i]))
			maybe_missing++;
	ok(!maybe_missing, "live: the page filter never says no for a live block");
	for (int i = 0; i < N; i++)
		if (present[i])
			hp_live_remove((void *)keys[i], &size, &ctx);
	ok(hp_live_records() == 0, "live: empty after removing everything");
	int stale = 0;
	for (int i = 0; i < N; i += 256)
		stale += hp_filter_maybe((void *)keys[i]);
	ok(!stale, "live: the filter drains to zero");
	ok(hp_live_remove((void *)keys[0], &size, &ctx) == HP_LIVE_ABSENT, "live: removing an absent key");
}

/* Two threads insert and remove blocks whose pages alias modulo 4 GiB,
 * so that they share filter bytes: those bytes are written with plain
 * stores under the shard lock, which is only safe if aliased pages share
 * a shard.  A lost update leaves a byte non-zero (or zero under a live
 * block). */
enum { ALIAS_KEYS = 4096, ALIAS_ROUNDS = 400000 };
static int alias_bad;

static void *alias_worker(void *arg)
{
	uintptr_t base = (uintptr_t)arg;
	uint64_t size;
	uint32_t ctx;

	for (int r = 0; r < ALIAS_ROUNDS; r++) {
		uintptr_t k = base + (uintptr_t)(r % ALIAS_KEYS) * 48;
		if (!hp_live_insert((void *)k, 1, 1) || !hp_filter_maybe((void *)k))
			__atomic_add_fetch(&alias_bad, 1, __ATOMIC_RELAXED);
		if (hp_live_remove((void *)k, &size, &ctx) != HP_LIVE_REMOVED)
			__atomic_add_fetch(&alias_bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_live_aliases(void)
{
	uintptr_t a = 0x7e0000000000ULL, b = a + (1ULL << 32);
	pthread_t t1, t2;

	pthread_create(&t1, NULL, alias_worker, (void *)a);
	pthread_create(&t2, NULL, alias_worker, (void *)b);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	int stale = 0;
	for (uintptr_t k = a; k < a + ALIAS_KEYS * 48; k += 4096)
		stale += hp_filter_maybe((void *)k);
	ok(!alias_bad && !stale && hp_live_records() == 0,
	   "live: two threads on pages 4 GiB apart (shared filter bytes): %d errors, %d stale bytes",
	   alias_bad, stale);
}

/* ---- the stack table ---- */

static void test_stacktab(void)
{
	enum { N = 20000 };
	static uint32_t ids[N];
	uintptr_t f[8];
	int bad = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < N; i++) {
			uint32_t depth = 1 + (uint32_t)(i % 8);
			for (uint32_t d = 0; d < depth; d++)
				f[d] = 0x400000 + (uintptr_t)i * 64 + d;
			uint32_t id = hp_stacktab_intern(f, depth, hp_stacktab_hash(f, depth));
			if (pass == 0)
				ids[i] = id;
			else if (id != ids[i])
				bad++;
			const struct hp_stack *s = hp_stacktab_get(id);
			if (!s || s->depth != depth || memcmp(s->frames, f, depth * sizeof(*f)))
				bad++;
		}
	}
	ok(bad == 0 && hp_stacktab_count() == N, "stacktab: %d stacks interned once each, ids stable", N);
}

/* ---- the bootstrap pool (used only while dlsym resolves the chain) ---- */

static void test_pool(void)
{
	char *a = hp_next_pool_alloc(100, 16);
	char *b = hp_next_pool_alloc(10, 4096);

	ok(a && b && hp_next_pool_owns(a) && hp_next_pool_owns(b) && !hp_next_pool_owns(&a),
	   "pool: blocks are recognised by address");
	ok(((uintptr_t)a % 16) == 0 && ((uintptr_t)b % 4096) == 0, "pool: alignment honoured");
	ok(hp_next_pool_size(a) == 100 && hp_next_pool_size(b) == 10, "pool: sizes remembered");
	ok(hp_filter_maybe(a) && hp_filter_maybe(b), "pool: its pages send free() to the slow path");
	memset(a, 7, 100);
	char *c = hp_next_pool_realloc(a, 200);
	ok(c && !hp_next_pool_owns(c) && c[99] == 7, "pool: realloc moves the block out, with its data");
	ok(hp_next_pool_alloc((size_t)1 << 30, 16) == NULL, "pool: an oversized request fails cleanly");
}

/* ---- files: never through a planted symlink ---- */

static void test_file(void)
{
	char dir[] = "/tmp/heapprof-unit.XXXXXX";
	char victim[256], dst[256], tmp[256];
	struct hp_file f;

	ok(mkdtemp(dir) != NULL, "file: scratch directory");
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	FILE *v = fopen(victim, "w");
	fputs("precious\n", v);
	fclose(v);
	snprintf(dst, sizeof(dst), "%s/out.heap", dir);
	/* Symlinks at the final name and at every temporary name this
	 * process could use next. */
	symlink(victim, dst);
	for (int k = 0; k < 64; k++) {
		snprintf(tmp, sizeof(tmp), "%s/.out.heap.%d.%d.tmp", dir, (int)getpid(), k);
		symlink(victim, tmp);
	}
	int err = hp_file_create(&f, dst);
	if (!err) {
		hp_out_write_all(f.fd, "dump\n", 5);
		err = hp_file_commit(&f);
	}
	char buf[64] = "";
	FILE *r = fopen(victim, "r");
	fgets(buf, sizeof(buf), r);
	fclose(r);
	struct stat st;
	ok(!err && !strcmp(buf, "precious\n"), "file: the symlinks' target is untouched");
	ok(!lstat(dst, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
	   "file: the dump replaced the planted link with a regular file, mode 0600");
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ok(system(cmd) == 0, "file: cleaned up");
}

int main(void)
{
	hp_log_set_level(-1);   /* the parser's messages are expected here */
	test_fmt();
	test_conf();
	test_preimage();
	test_sampling();
	test_live();
	test_live_aliases();
	test_stacktab();
	test_pool();
	test_file();
	return done_testing();
}
