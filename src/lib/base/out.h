/*
 * out.h -- writing to a file descriptor without stdio: all of a buffer at
 * once, or through a small buffered writer.
 *
 * Async-signal-safe in the sense that it touches only its arguments and
 * calls only write(2).
 */
#ifndef HP_OUT_H
#define HP_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

/* Writes all n bytes, retrying on EINTR and short writes.  Returns 0, or
 * the errno of the failing write. */
int hp_out_write_all(int fd, const void *p, size_t n);

/* A buffered writer over a caller-provided buffer.  The first error sticks
 * in err; later calls do nothing, so callers check once at the end. */
struct hp_out {
	int fd;
	int err;
	char *buf;
	size_t len;
	size_t cap;
	uint64_t total;   /* bytes accepted so far */
};

void hp_out_init(struct hp_out *o, int fd, char *buf, size_t cap);
void hp_out_write(struct hp_out *o, const void *p, size_t n);
void hp_out_str(struct hp_out *o, const char *s);
void hp_out_char(struct hp_out *o, char c);
void hp_out_u64(struct hp_out *o, uint64_t v);
void hp_out_hex(struct hp_out *o, uint64_t v);   /* "0x" + lower-case hex */
void hp_out_printf(struct hp_out *o, const char *fmt, ...) HP_PRINTF(2, 3);
/* Writes out what is buffered.  Returns 0 or the sticky errno. */
int hp_out_flush(struct hp_out *o);

#endif
