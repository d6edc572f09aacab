/*
 * conf.h -- options: the table in options.def, their values, and the
 * MALLOC_CONF grammar.
 *
 * Sources are applied in order of precedence, lowest first: built-in
 * defaults, MALLOC_CONF, HEAPPROF_CONF (same syntax; overrides MALLOC_CONF
 * key by key so that a program that also runs jemalloc keeps MALLOC_CONF
 * for jemalloc).  A bad pair prints one line and parsing goes on with the
 * next pair; nothing here can fail the host (a refused key of the leak
 * gate is noted for leak/leak.c: hp_conf_gate_fault).
 *
 * Not thread-safe: parsing happens at init, before sampling starts.
 */
#ifndef HP_CONF_H
#define HP_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HP_CONF_STR_MAX 4096
#define HP_CONF_LIVE    1u
/* A key of the leak gate: a refused value of it fails the gate closed
 * (hp_conf_gate_fault) instead of keeping the default. */
#define HP_CONF_GATE    2u
/* Room for a refused gate pair as hp_conf_gate_fault keeps it. */
#define HP_CONF_FAULT_MAX 160

enum hp_conf_type { HP_CONF_T_BOOL, HP_CONF_T_INT, HP_CONF_T_SIZE, HP_CONF_T_STR, HP_CONF_T_ENUM, HP_CONF_T_SIGNAL };

#define HP_CONF_FIELD_BOOL(n)   bool n;
#define HP_CONF_FIELD_INT(n)    int64_t n;
#define HP_CONF_FIELD_SIZE(n)   int64_t n;
#define HP_CONF_FIELD_STR(n)    char n[HP_CONF_STR_MAX];
#define HP_CONF_FIELD_ENUM(n)   int n;
#define HP_CONF_FIELD_SIGNAL(n) int n;   /* 0: none */

struct hp_conf_values {
#define HP_OPT(name, type, def, min, max, choices, flags, help) HP_CONF_FIELD_##type(name)
#include "conf/options.def"
#undef HP_OPT
};

enum hp_conf_id {
#define HP_OPT(name, type, def, min, max, choices, flags, help) HP_CONF_O_##name,
#include "conf/options.def"
#undef HP_OPT
	HP_CONF_NOPTS
};

/* Values of the ENUM options. */
enum { HP_CONF_DUMP_GPERFTOOLS = 0, HP_CONF_DUMP_JEMALLOC = 1 };
enum { HP_CONF_LEAK_LIVE = 0, HP_CONF_LEAK_REACHABLE = 1 };
enum { HP_CONF_AGE_SAMPLED = 0, HP_CONF_AGE_TRUE = 1, HP_CONF_AGE_FALSE = 2 };
enum { HP_CONF_HELPER_AUTO = 0, HP_CONF_HELPER_START = 1, HP_CONF_HELPER_NEVER = 2 };

struct hp_conf_desc {
	const char *name;
	enum hp_conf_type type;
	const char *def;
	int64_t min, max;
	const char *choices;
	unsigned flags;
	const char *help;
	size_t offset;
};

/* Where a value came from, lowest precedence first. */
enum hp_conf_source {
	HP_CONF_SRC_DEFAULT = 0,
	HP_CONF_SRC_INI,
	HP_CONF_SRC_MALLOC_CONF,
	HP_CONF_SRC_HEAPPROF_CONF,
	HP_CONF_SRC_API,
	HP_CONF_NSOURCES
};

extern const struct hp_conf_desc hp_conf_table[HP_CONF_NOPTS];
/* The values in force, and the source of each. */
extern struct hp_conf_values hp_conf;
extern uint8_t hp_conf_sources[HP_CONF_NOPTS];

const char *hp_conf_source_name(enum hp_conf_source src);

/* The option named by key[0..len), or NULL. */
const struct hp_conf_desc *hp_conf_find(const char *key, size_t len);

enum hp_conf_status {
	HP_CONF_OK = 0,
	HP_CONF_BAD_VALUE,     /* "Invalid conf value" */
	HP_CONF_OUT_OF_RANGE,  /* "Out-of-range conf value" */
	HP_CONF_REFUSED,       /* "Refused conf value": a signal whose sender or
				* default action the program relies on */
};

/* Why a value was refused, for messages: "true/false", "0 to 40"... */
size_t hp_conf_expected(const struct hp_conf_desc *d, char *buf, size_t cap);

/* Why hp_conf_set refused val[0..len) for d (HP_CONF_REFUSED): "SIGPIPE:
 * the kernel sends it on a write to a closed pipe, ...".  Empty for a
 * value it did not refuse.  Returns the length. */
size_t hp_conf_refusal(const struct hp_conf_desc *d, const char *val, size_t len, char *buf, size_t cap);

/* Parses val[0..len) for option d into o.  On error o is unchanged. */
enum hp_conf_status hp_conf_set(struct hp_conf_values *o, const struct hp_conf_desc *d,
				const char *val, size_t len);

/* Formats the value of option d in o as it would be written in
 * MALLOC_CONF.  Returns the length. */
size_t hp_conf_format(const struct hp_conf_values *o, const struct hp_conf_desc *d,
		      char *buf, size_t cap);

/* True if key names one of jemalloc's own (non-heapprof) options, which
 * are accepted and ignored so that MALLOC_CONF can be shared. */
bool hp_conf_is_jemalloc_key(const char *key, size_t len);

/* The closest option name to key if one is near, else NULL. */
const char *hp_conf_suggest(const char *key, size_t len);

/* Applies a MALLOC_CONF-syntax string from src to o, recording sources
 * in srcs.  Prints one message per bad pair and continues. */
void hp_conf_parse_string(struct hp_conf_values *o, uint8_t *srcs, const char *s,
			  enum hp_conf_source src);

/*
 * The leak gate's keys (HP_CONF_GATE) whose setting in force could not be
 * taken: a refused value, or an unknown key whose closest name is the
 * gate key.  Every other key keeps its default after one warning; a gate
 * key cannot (prof_leak_error:ture would switch the gate off), so
 * leak/leak.c fails the process at exit instead.  A later source, or a
 * later line, that sets the key properly clears it.  At start-up only,
 * like the environment.
 *
 * hp_conf_gate_mark records what (the pair and its source, cut to
 * HP_CONF_FAULT_MAX) for d, or clears d's fault when what is NULL or d is
 * not a gate key.  hp_conf_gate_fault returns option id's fault, or NULL.
 */
void hp_conf_gate_mark(const struct hp_conf_desc *d, const char *what);
const char *hp_conf_gate_fault(enum hp_conf_id id);

/* Fills o with the defaults. */
void hp_conf_defaults(struct hp_conf_values *o, uint8_t *srcs);

/* Applies implications between options (prof_leak_error implies
 * prof_leak, which implies prof_final) and warns about conflicts. */
void hp_conf_finish(struct hp_conf_values *o, uint8_t *srcs);

/* Copies option d's value from one set to another. */
void hp_conf_copy(struct hp_conf_values *to, const struct hp_conf_values *from, const struct hp_conf_desc *d);
/* True if option d has the same value in a and b. */
bool hp_conf_equal(const struct hp_conf_values *a, const struct hp_conf_values *b, const struct hp_conf_desc *d);

/* A signal's name without "SIG" ("USR1"), or "none" for 0. */
const char *hp_conf_signal_name(int sig, char *buf, size_t cap);

#endif
