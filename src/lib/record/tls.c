/*
 * tls.c -- the per-thread state the fast path reads (see tls.h).
 *
 * Owns hp_tls.  Nothing else: the guard and the fast test are inline
 * functions in tls.h.
 */
#include "record/tls.h"
#include "base/banned.h"

/* Countdown 0: a thread's first allocation takes the slow path. */
__thread struct hp_tls hp_tls __attribute__((tls_model("initial-exec"))) = { .ahead = UINT64_MAX };
