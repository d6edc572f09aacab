/*
 * probes.h -- USDT probes on heapprof's sampler, for OpenTelemetry's
 * memory-profiling contract: the OpenTelemetry eBPF profiler, bpftrace
 * and perf read heapprof's samples from them, with no dump.
 *
 *     otel_memory:alloc(void *ptr, uint64_t size, uint64_t weight_bytes)
 *         a sampled allocation of size bytes at ptr, which stands for
 *         weight_bytes of the program's allocations (the unbiased
 *         estimate's weight; size itself in exact mode)
 *     otel_memory:free(void *ptr, uint64_t size, uint64_t weight_bytes)
 *         a sampled block no longer live (freed, or moved by realloc),
 *         with the figures of its alloc
 *
 * Each probe site is on the sampled slow path, never on malloc's or
 * free's fast path, and behind its semaphore: a nop and a test of a word
 * nobody writes until a tracer attaches (sys/sdt.h's, with the semaphore
 * the tracer increments).
 */
#ifndef HP_RECORD_PROBES_H
#define HP_RECORD_PROBES_H

#define _SDT_HAS_SEMAPHORES 1
/* Arguments in registers: with sys/sdt.h's default ("nor") the compiler
 * may keep the block's address in a stack slot for the probe, a stale
 * copy the leak scan would later find in a thread that reuses the stack
 * (a lost block taken for reachable). */
#define STAP_SDT_ARG_CONSTRAINT r
#include <sys/sdt.h>

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Incremented by each tracer attached to the probe (record/probes.c). */
extern volatile unsigned short otel_memory_alloc_semaphore, otel_memory_free_semaphore;

#define HP_PROBE_ALLOC(ptr, size, weight)                                                        \
	do {                                                                                     \
		if (__builtin_expect(otel_memory_alloc_semaphore != 0, 0))                       \
			STAP_PROBE3(otel_memory, alloc, (ptr), (uint64_t)(size), (uint64_t)(weight)); \
	} while (0)

#define HP_PROBE_FREE(ptr, size, weight)                                                         \
	do {                                                                                     \
		if (__builtin_expect(otel_memory_free_semaphore != 0, 0))                        \
			STAP_PROBE3(otel_memory, free, (ptr), (uint64_t)(size), (uint64_t)(weight)); \
	} while (0)

#pragma GCC visibility pop

#endif
