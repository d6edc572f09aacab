/*
 * conf.c -- option values and the MALLOC_CONF grammar (see conf.h).
 *
 * Owns hp_conf and the source of each value.  Runs at init, before
 * sampling starts; must not call the host allocator or stdio.
 *
 * Grammar (jemalloc's): key:value[,key:value]*, a key is [A-Za-z0-9_]+, a
 * value is anything but ','.  Nothing is trimmed.  Unlike jemalloc, a
 * malformed pair does not end parsing of its source: we report it once and
 * resume after the next comma.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/conf.h"
#include "base/fmt.h"
#include "base/log.h"
#include "base/pages.h"
#include "base/banned.h"

const struct hp_conf_desc hp_conf_table[HP_CONF_NOPTS] = {
#define HP_OPT(n, t, d, mn, mx, ch, fl, h) \
	{ #n, HP_CONF_T_##t, d, mn, mx, ch, fl, h, __builtin_offsetof(struct hp_conf_values, n) },
#include "conf/options.def"
#undef HP_OPT
};

struct hp_conf_values hp_conf;
uint8_t hp_conf_sources[HP_CONF_NOPTS];

/* The gate keys' refused settings (hp_conf_gate_mark); empty: none. */
static char gate_faults[HP_CONF_NOPTS][HP_CONF_FAULT_MAX];

/* jemalloc's options that are not about profiling, and its profiling
 * options that heapprof has no use for: accepted silently. */
static const char *const jemalloc_keys[] = {
	"abort", "abort_conf", "cache_oblivious", "metadata_thp", "trust_madvise",
	"retain", "dss", "narenas", "percpu_arena", "oversize_threshold",
	"background_thread", "max_background_threads", "dirty_decay_ms",
	"muzzy_decay_ms", "lg_extent_max_active_fit", "junk", "zero", "utrace",
	"xmalloc", "tcache", "tcache_max", "lg_tcache_max", "tcache_nslots_small_min",
	"tcache_nslots_small_max", "tcache_nslots_large", "lg_tcache_nslots_mul",
	"tcache_gc_incr_bytes", "tcache_gc_delay_bytes", "lg_tcache_flush_small_div",
	"lg_tcache_flush_large_div", "thp", "stats_print", "stats_print_opts",
	"stats_interval", "stats_interval_opts", "slab_sizes", "hpa", "hpa_slab_max_alloc",
	"hpa_hugification_threshold", "hpa_hugification_threshold_ratio",
	"hpa_dirty_mult", "hpa_sec_nshards", "hpa_sec_max_alloc", "hpa_sec_max_bytes",
	"hpa_sec_bytes_after_flush", "hpa_sec_batch_fill_extra", "hpa_strict_min_purge_interval",
	"hpa_min_purge_interval_ms", "huge_arena_pind_limit", "experimental_infallible_new",
	"mutex_max_spin", "lg_san_uaf_align", "san_guard_small", "san_guard_large",
	"disable_large_size_classes", "process_madvise_max_batch", "zero_realloc",
	"prof_log", "prof_recent_alloc_max", "prof_stats", "prof_sys_thread_name",
	"prof_time_resolution", "prof_unbias", "prof_pid_namespace", "prof_experimental_use_sys_thread_name",
};

static const char *const source_names[HP_CONF_NSOURCES] = {
	"default", "profiler.ini", "MALLOC_CONF", "HEAPPROF_CONF", "API",
};

const char *hp_conf_source_name(enum hp_conf_source src)
{
	return src < HP_CONF_NSOURCES ? source_names[src] : "?";
}

static bool key_is(const char *name, const char *key, size_t len)
{
	return strlen(name) == len && !memcmp(name, key, len);
}

const struct hp_conf_desc *hp_conf_find(const char *key, size_t len)
{
	for (size_t i = 0; i < HP_CONF_NOPTS; i++)
		if (key_is(hp_conf_table[i].name, key, len))
			return &hp_conf_table[i];
	return NULL;
}

bool hp_conf_is_jemalloc_key(const char *key, size_t len)
{
	for (size_t i = 0; i < HP_ARRAY_LEN(jemalloc_keys); i++)
		if (key_is(jemalloc_keys[i], key, len))
			return true;
	return false;
}

/* Optimal string alignment distance, capped: enough for typo hints. */
static unsigned edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
	unsigned d[64 + 1][64 + 1];

	if (la > 64 || lb > 64)
		return 99;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < best)
				best = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const char *hp_conf_suggest(const char *key, size_t len)
{
	const char *best = NULL;
	unsigned best_d = 3;   /* at most two edits */

	for (size_t i = 0; i < HP_CONF_NOPTS; i++) {
		const char *n = hp_conf_table[i].name;
		unsigned d = edit_distance(key, len, n, strlen(n));
		if (d < best_d) {
			best_d = d;
			best = n;
		}
	}
	return best;
}

/* ---- values --------------------------------------------------------- */

static int parse_bool(const char *v, size_t len, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < HP_ARRAY_LEN(yes); i++) {
		if (strlen(yes[i]) == len && !strncasecmp(v, yes[i], len)) {
			*out = true;
			return 0;
		}
		if (strlen(no[i]) == len && !strncasecmp(v, no[i], len)) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

/* A whole-string integer in base 10, 16 (0x) or 8 (leading 0), as
 * jemalloc's malloc_strtoumax accepts; leading '-' allowed. */
static int parse_int(const char *v, size_t len, int64_t *out)
{
	char buf[32];
	char *end;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	long long x = strtoll(buf, &end, 0);
	if (*end != '\0' || end == buf)
		return -1;
	*out = x;
	return 0;
}

/* A byte count with an optional binary suffix: 512, 64k, 10M, 2G, 1T,
 * also written 10MB or 10MiB. */
static int parse_size(const char *v, size_t len, int64_t *out)
{
	char buf[40];
	char *end;

	if (len == 0 || len >= sizeof(buf) || v[0] == '-')
		return -1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	unsigned long long x = strtoull(buf, &end, 10);
	if (end == buf)
		return -1;
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (shift && (!strcasecmp(end, "b") || !strcasecmp(end, "ib")))
		end += strlen(end);
	else if (!shift && !strcasecmp(end, "b"))
		end++;
	if (*end)
		return -1;
	if (x > (0x7fffffffffffffffULL >> shift))
		return 1;   /* too big */
	*out = (int64_t)(x << shift);
	return 0;
}

static const struct {
	const char *name;
	int sig;
} signals[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ILL", SIGILL },
	{ "TRAP", SIGTRAP }, { "ABRT", SIGABRT }, { "IOT", SIGIOT }, { "BUS", SIGBUS },
	{ "FPE", SIGFPE }, { "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "SEGV", SIGSEGV },
	{ "USR2", SIGUSR2 }, { "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
	{ "STKFLT", SIGSTKFLT }, { "CHLD", SIGCHLD }, { "CONT", SIGCONT }, { "STOP", SIGSTOP },
	{ "TSTP", SIGTSTP }, { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU }, { "URG", SIGURG },
	{ "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ }, { "VTALRM", SIGVTALRM }, { "PROF", SIGPROF },
	{ "WINCH", SIGWINCH }, { "IO", SIGIO }, { "POLL", SIGPOLL }, { "PWR", SIGPWR },
	{ "SYS", SIGSYS },
};

/*
 * The signals signal_dump and signal_toggle may take: SIGUSR1, SIGUSR2 and
 * the real-time signals glibc leaves to programs (SIGRTMIN to SIGRTMAX;
 * the two below SIGRTMIN are its own).  Only someone who means it sends
 * one of those.  Every other signal comes from the kernel (SIGPIPE,
 * SIGXFSZ, the faults), the terminal (SIGINT, SIGHUP, SIGWINCH), a timer
 * (SIGALRM), the program's children (SIGCHLD) or whoever stops the program
 * (SIGTERM), and the program relies on its default action: heapprof's
 * handler there would change how it lives or dies (with signal_dump:PIPE,
 * yes | head -1 exits 1 instead of 141; with TERM it no longer stops).
 * The control signal (control/signals.c) is picked among the real-time
 * signals, never the two configured.
 */
static bool signal_usable(int sig)
{
	return sig == SIGUSR1 || sig == SIGUSR2 || (sig >= SIGRTMIN && sig <= SIGRTMAX);
}

/* Why sig, a signal signal_usable refuses, is refused: its sender, or
 * what its default action does for the program. */
static const char *signal_refusal(int sig)
{
	switch (sig) {
	case SIGHUP: return "the terminal sends it when it hangs up, and daemons take it as an order to reload";
	case SIGINT: return "the terminal sends it on Ctrl-C, to end the program";
	case SIGQUIT: return "the terminal sends it on Ctrl-\\, to end the program with a core dump";
	case SIGTERM: return "it is how kill, systemd and docker stop the program";
	case SIGPIPE: return "the kernel sends it on a write to a closed pipe, which ends the program "
			     "(yes | head -1)";
	case SIGALRM: case SIGVTALRM: case SIGPROF: return "timers send it (alarm, setitimer)";
	case SIGWINCH: return "the terminal sends it when it is resized";
	case SIGURG: case SIGIO: return "the kernel sends it for the program's sockets and descriptors";
	case SIGXCPU: case SIGXFSZ: return "the kernel sends it at a resource limit, to end the program";
	case SIGSYS: return "the kernel sends it for a refused system call (seccomp)";
	case SIGPWR: return "init sends it on a power failure";
	case SIGKILL: case SIGSTOP: return "it cannot be caught";
	case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL: case SIGTRAP:
		return "the kernel sends it on a fault, and crash handlers need it";
	case SIGABRT: return "abort() raises it to end the program";
	case SIGCHLD: return "the program's children send it when they end";
	case SIGCONT: case SIGTSTP: case SIGTTIN: case SIGTTOU: return "it is job control";
	}
	if (sig > SIGSYS && sig < SIGRTMIN)
		return "glibc keeps it for its own threads";
	return "it is not one of the signals left to programs";
}

/* 0 ok, -1 not a signal, 1 no such signal, 2 a signal that cannot be
 * used (*out is the signal then). */
static int parse_signal(const char *v, size_t len, int *out)
{
	char buf[32];

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	if (!strcasecmp(buf, "none") || !strcmp(buf, "0")) {
		*out = 0;
		return 0;
	}
	const char *n = !strncasecmp(buf, "SIG", 3) ? buf + 3 : buf;
	int sig = -1;
	char *end;
	if (*n >= '0' && *n <= '9') {
		long x = strtol(n, &end, 10);
		if (*end || x < 1 || x > 1000)
			return -1;
		sig = (int)x;
	} else if (!strncasecmp(n, "RTMIN", 5) || !strncasecmp(n, "RTMAX", 5)) {
		int base = !strncasecmp(n, "RTMIN", 5) ? SIGRTMIN : SIGRTMAX;
		long off = 0;
		if (n[5]) {
			off = strtol(n + 5, &end, 10);
			if (*end || (n[5] != '+' && n[5] != '-'))
				return -1;
			/* Far past any signal: out of range, and no overflow below. */
			if (off < -1000 || off > 1000)
				return 1;
		}
		sig = base + (int)off;
	} else {
		for (size_t i = 0; i < HP_ARRAY_LEN(signals); i++)
			if (!strcasecmp(n, signals[i].name))
				sig = signals[i].sig;
		if (sig < 0)
			return -1;
	}
	if (sig < 1 || sig > SIGRTMAX)
		return 1;
	*out = sig;
	return signal_usable(sig) ? 0 : 2;
}

size_t hp_conf_refusal(const struct hp_conf_desc *d, const char *val, size_t len, char *buf, size_t cap)
{
	char name[32];
	int sig = 0;

	if (d->type != HP_CONF_T_SIGNAL || parse_signal(val, len, &sig) != 2)
		return hp_fmt(buf, cap, "%s", "");
	return hp_fmt(buf, cap, "SIG%s: %s", hp_conf_signal_name(sig, name, sizeof(name)),
		      signal_refusal(sig));
}

const char *hp_conf_signal_name(int sig, char *buf, size_t cap)
{
	if (sig == 0)
		return "none";
	for (size_t i = 0; i < HP_ARRAY_LEN(signals); i++)
		if (signals[i].sig == sig) {
			hp_fmt(buf, cap, "%s", signals[i].name);
			return buf;
		}
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		hp_fmt(buf, cap, "RTMIN+%d", sig - SIGRTMIN);
	else
		hp_fmt(buf, cap, "%d", sig);
	return buf;
}

static int enum_index(const char *choices, const char *v, size_t len)
{
	int idx = 0;

	for (const char *c = choices; *c; idx++) {
		const char *bar = strchrnul(c, '|');
		if ((size_t)(bar - c) == len && !strncasecmp(c, v, len))
			return idx;
		c = *bar ? bar + 1 : bar;
	}
	return -1;
}

enum hp_conf_status hp_conf_set(struct hp_conf_values *o, const struct hp_conf_desc *d,
				const char *val, size_t len)
{
	char *field = (char *)o + d->offset;

	switch (d->type) {
	case HP_CONF_T_BOOL: {
		bool b;
		if (parse_bool(val, len, &b))
			return HP_CONF_BAD_VALUE;
		*(bool *)field = b;
		return HP_CONF_OK;
	}
	case HP_CONF_T_INT: {
		int64_t x;
		if (parse_int(val, len, &x))
			return HP_CONF_BAD_VALUE;
		if (x < d->min || x > d->max)
			return HP_CONF_OUT_OF_RANGE;
		*(int64_t *)field = x;
		return HP_CONF_OK;
	}
	case HP_CONF_T_SIZE: {
		int64_t x;
		int r = parse_size(val, len, &x);
		if (r < 0)
			return HP_CONF_BAD_VALUE;
		if (r > 0 || x < d->min || x > d->max)
			return HP_CONF_OUT_OF_RANGE;
		*(int64_t *)field = x;
		return HP_CONF_OK;
	}
	case HP_CONF_T_SIGNAL: {
		int sig;
		int r = parse_signal(val, len, &sig);
		if (r)
			return r < 0 ? HP_CONF_BAD_VALUE : r == 1 ? HP_CONF_OUT_OF_RANGE : HP_CONF_REFUSED;
		*(int *)field = sig;
		return HP_CONF_OK;
	}
	case HP_CONF_T_STR:
		if ((int64_t)len > d->max || memchr(val, '\0', len))
			return HP_CONF_OUT_OF_RANGE;
		memcpy(field, val, len);
		field[len] = '\0';
		return HP_CONF_OK;
	case HP_CONF_T_ENUM: {
		int i = enum_index(d->choices, val, len);
		if (i < 0)
			return HP_CONF_BAD_VALUE;
		*(int *)field = i;
		return HP_CONF_OK;
	}
	}
	return HP_CONF_BAD_VALUE;
}

size_t hp_conf_format(const struct hp_conf_values *o, const struct hp_conf_desc *d,
		      char *buf, size_t cap)
{
	const char *field = (const char *)o + d->offset;

	switch (d->type) {
	case HP_CONF_T_BOOL:
		return hp_fmt(buf, cap, "%s", *(const bool *)field ? "true" : "false");
	case HP_CONF_T_INT:
		return hp_fmt(buf, cap, "%lld", (long long)*(const int64_t *)field);
	case HP_CONF_T_SIZE: {
		int64_t x = *(const int64_t *)field;
		static const char units[] = "kMGT";
		int u = -1;
		while (u < 3 && x && !(x & 1023)) {
			x >>= 10;
			u++;
		}
		return u < 0 ? hp_fmt(buf, cap, "%lld", (long long)x)
			     : hp_fmt(buf, cap, "%lld%c", (long long)x, units[u]);
	}
	case HP_CONF_T_SIGNAL: {
		char name[32];
		return hp_fmt(buf, cap, "%s", hp_conf_signal_name(*(const int *)field, name, sizeof(name)));
	}
	case HP_CONF_T_STR:
		return hp_fmt(buf, cap, "%s", field);
	case HP_CONF_T_ENUM: {
		int want = *(const int *)field, idx = 0;
		for (const char *c = d->choices; *c; idx++) {
			const char *bar = strchrnul(c, '|');
			if (idx == want)
				return hp_fmt(buf, cap, "%.*s", (int)(bar - c), c);
			c = *bar ? bar + 1 : bar;
		}
		return hp_fmt(buf, cap, "?");
	}
	}
	return 0;
}

size_t hp_conf_expected(const struct hp_conf_desc *d, char *buf, size_t cap)
{
	switch (d->type) {
	case HP_CONF_T_BOOL:
		return hp_fmt(buf, cap, "true or false");
	case HP_CONF_T_INT:
		return hp_fmt(buf, cap, "%lld to %lld", (long long)d->min, (long long)d->max);
	case HP_CONF_T_SIZE:
		return hp_fmt(buf, cap, "a size such as 512, 64k, 10M or 2G");
	case HP_CONF_T_STR:
		return hp_fmt(buf, cap, "at most %lld characters", (long long)d->max);
	case HP_CONF_T_ENUM: {
		size_t n = hp_fmt(buf, cap, "one of ");
		for (const char *c = d->choices; *c && n < cap; c++)
			n += hp_fmt(buf + n, cap - n, "%s", *c == '|' ? ", " : (char[]){ *c, 0 });
		return n;
	}
	case HP_CONF_T_SIGNAL:
		return hp_fmt(buf, cap, "USR1, USR2, RTMIN+0 to RTMIN+%d, or none", SIGRTMAX - SIGRTMIN);
	}
	return 0;
}

static size_t field_size(const struct hp_conf_desc *d)
{
	switch (d->type) {
	case HP_CONF_T_BOOL:
		return sizeof(bool);
	case HP_CONF_T_INT:
	case HP_CONF_T_SIZE:
		return sizeof(int64_t);
	case HP_CONF_T_STR:
		return HP_CONF_STR_MAX;
	default:
		return sizeof(int);
	}
}

void hp_conf_copy(struct hp_conf_values *to, const struct hp_conf_values *from, const struct hp_conf_desc *d)
{
	if (d->type == HP_CONF_T_STR)
		memcpy((char *)to + d->offset, (const char *)from + d->offset,
		       strlen((const char *)from + d->offset) + 1);
	else
		memcpy((char *)to + d->offset, (const char *)from + d->offset, field_size(d));
}

bool hp_conf_equal(const struct hp_conf_values *a, const struct hp_conf_values *b, const struct hp_conf_desc *d)
{
	if (d->type == HP_CONF_T_STR)
		return !strcmp((const char *)a + d->offset, (const char *)b + d->offset);
	return !memcmp((const char *)a + d->offset, (const char *)b + d->offset, field_size(d));
}

void hp_conf_defaults(struct hp_conf_values *o, uint8_t *srcs)
{
	for (size_t i = 0; i < HP_CONF_NOPTS; i++) {
		const struct hp_conf_desc *d = &hp_conf_table[i];
		hp_conf_set(o, d, d->def, strlen(d->def));
		srcs[i] = HP_CONF_SRC_DEFAULT;
	}
}

void hp_conf_gate_mark(const struct hp_conf_desc *d, const char *what)
{
	size_t id = (size_t)(d - hp_conf_table);

	if (id >= HP_CONF_NOPTS)
		return;
	if (!what || !(d->flags & HP_CONF_GATE))
		gate_faults[id][0] = '\0';
	else
		hp_fmt(gate_faults[id], sizeof(gate_faults[id]), "%s", what);
}

const char *hp_conf_gate_fault(enum hp_conf_id id)
{
	return id < HP_CONF_NOPTS && gate_faults[id][0] ? gate_faults[id] : NULL;
}

/* ---- the MALLOC_CONF grammar ---------------------------------------- */

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static void apply_pair(struct hp_conf_values *o, uint8_t *srcs, const char *k, size_t kl,
		       const char *v, size_t vl, enum hp_conf_source src)
{
	const char *sname = hp_conf_source_name(src);
	const struct hp_conf_desc *d = hp_conf_find(k, kl);
	char fault[HP_CONF_FAULT_MAX];

	if (!d) {
		if (hp_conf_is_jemalloc_key(k, kl))
			return;
		const char *hint = hp_conf_suggest(k, kl);
		if (hint)
			hp_log(HP_LOG_WARN, "Invalid conf pair: %.*s:%.*s (%s; did you mean '%s'?)",
			       (int)kl, k, (int)vl, v, sname, hint);
		else
			hp_log(HP_LOG_WARN, "Invalid conf pair: %.*s:%.*s (%s)",
			       (int)kl, k, (int)vl, v, sname);
		/* prof_leak_eror:true meant the gate: it is not configured. */
		if (hint) {
			hp_fmt(fault, sizeof(fault), "unknown key %.*s (%s; did you mean %s?)",
			       (int)kl, k, sname, hint);
			hp_conf_gate_mark(hp_conf_find(hint, strlen(hint)), fault);
		}
		return;
	}
	enum hp_conf_status st = hp_conf_set(o, d, v, vl);
	if (st == HP_CONF_OK) {
		hp_conf_gate_mark(d, NULL);
	} else {
		char expect[128];
		hp_conf_expected(d, expect, sizeof(expect));
		hp_fmt(fault, sizeof(fault), "%.*s:%.*s (%s; expected %s)", (int)kl, k, (int)vl, v,
		       sname, expect);
		hp_conf_gate_mark(d, fault);
	}
	switch (st) {
	case HP_CONF_OK:
		srcs[d - hp_conf_table] = (uint8_t)src;
		break;
	case HP_CONF_BAD_VALUE:
		hp_log(HP_LOG_WARN, "Invalid conf value: %.*s:%.*s (%s)",
		       (int)kl, k, (int)vl, v, sname);
		break;
	case HP_CONF_OUT_OF_RANGE:
		hp_log(HP_LOG_WARN, "Out-of-range conf value: %.*s:%.*s (%s)",
		       (int)kl, k, (int)vl, v, sname);
		break;
	case HP_CONF_REFUSED: {
		char why[200], expect[128];
		hp_conf_refusal(d, v, vl, why, sizeof(why));
		hp_conf_expected(d, expect, sizeof(expect));
		hp_log(HP_LOG_WARN, "Refused conf value: %.*s:%.*s (%s): %s; %.*s takes %s",
		       (int)kl, k, (int)vl, v, sname, why, (int)kl, k, expect);
		break;
	}
	}
}

void hp_conf_parse_string(struct hp_conf_values *o, uint8_t *srcs, const char *s,
			  enum hp_conf_source src)
{
	const char *sname = hp_conf_source_name(src);
	const char *p = s;

	while (*p) {
		const char *k = p;
		while (is_key_char(*p))
			p++;
		size_t kl = (size_t)(p - k);
		if (*p == ':' && kl) {
			const char *v = ++p;
			p = strchrnul(p, ',');
			apply_pair(o, srcs, k, kl, v, (size_t)(p - v), src);
			if (*p == ',') {
				p++;
				if (!*p)
					hp_log(HP_LOG_WARN, "Conf string ends with comma (%s)", sname);
			}
			continue;
		}
		if (!*p && kl) {
			hp_log(HP_LOG_WARN, "Conf string ends with key -- %.*s (%s)",
			       (int)kl, k, sname);
			return;
		}
		/* Malformed: report the pair and resume after the next comma. */
		const char *e = strchrnul(p, ',');
		hp_log(HP_LOG_WARN, "Malformed conf string -- %.*s (%s)",
		       (int)(e - k), k, sname);
		p = *e ? e + 1 : e;
	}
}

void hp_conf_finish(struct hp_conf_values *o, uint8_t *srcs)
{
	if (o->prof_leak_error && !o->prof_leak) {
		o->prof_leak = true;
		srcs[HP_CONF_O_prof_leak] = srcs[HP_CONF_O_prof_leak_error];
	}
	/* leak_check:live summarizes the final dump's snapshot and names the
	 * dump; leak_check:reachable needs no dump, so a prof_final:false
	 * that was asked for stands there.  The gate alone (prof_leak_error
	 * with neither prof_prefix nor prof_final given) writes no dump: its
	 * report is the detail, and a CI run's working tree stays clean. */
	int gate_alone = o->prof_leak_error && srcs[HP_CONF_O_prof_prefix] == HP_CONF_SRC_DEFAULT &&
			 srcs[HP_CONF_O_prof_final] == HP_CONF_SRC_DEFAULT;
	if (o->prof_leak && !o->prof_final && !gate_alone &&
	    !(o->leak_check == HP_CONF_LEAK_REACHABLE && srcs[HP_CONF_O_prof_final] != HP_CONF_SRC_DEFAULT)) {
		if (srcs[HP_CONF_O_prof_final] != HP_CONF_SRC_DEFAULT)
			hp_log(HP_LOG_WARN, "prof_leak needs the final dump: prof_final:false ignored");
		o->prof_final = true;
		srcs[HP_CONF_O_prof_final] = srcs[HP_CONF_O_prof_leak];
	}
	if (!o->prof_prefix[0] && o->prof_final)
		hp_log(HP_LOG_WARN, "prof_prefix is empty: no final dump will be written");
}
