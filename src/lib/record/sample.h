/*
 * sample.h -- when to sample and what a sample is worth.
 *
 * An allocation of n bytes takes Z = n + 1 bytes of the sampling stream
 * (the one byte more gives malloc(0) the chance of a 1-byte block instead
 * of none).  Each thread counts the stream down from a random wait drawn
 * as floor(X), X exponential with mean R = 2^lg_prof_sample; the
 * allocation holding the sample point, the one that finds the wait below
 * Z, is sampled.  floor(X) is geometric, hence memoryless over whole bytes,
 * so an allocation is sampled with probability exactly 1 - exp(-Z/R)
 * whatever happened before, and 1 / (1 - exp(-Z/R)) objects and n times
 * that many bytes are an unbiased weight for it.  lg 0 is exact mode:
 * every allocation is sampled with weight 1.
 *
 * Counts are kept in fixed point (HP_CNT_ONE per object) so that exact mode
 * is exact and sampled weights keep 10 fractional bits.  Pure functions;
 * safe anywhere.
 */
#ifndef HP_SAMPLE_H
#define HP_SAMPLE_H

#include <stdint.h>

#define HP_CNT_SHIFT 10
#define HP_CNT_ONE   ((uint64_t)1 << HP_CNT_SHIFT)
#define HP_LG_SAMPLE_MAX 40

/* Next wait in stream bytes, >= 0, for lg >= 1 (exact mode never draws). */
uint64_t hp_sample_draw(uint64_t *rng, int lg);

/* The estimate one sampled allocation of size bytes (size + 1 in the
 * stream) stands for, in
 * fixed-point objects and in bytes.  Deterministic: a free recomputes what
 * the allocation added and subtracts exactly that. */
void hp_sample_weight(uint64_t size, int lg, uint64_t *cnt_fp, uint64_t *bytes);

/* A non-zero seed for a thread's generator. */
uint64_t hp_sample_seed(const void *salt);

#endif
