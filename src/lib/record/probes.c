/*
 * probes.c -- the semaphores of the USDT probes (see probes.h): in the
 * section tracers find them by, zero until one attaches.
 */
#include <stdint.h>

#include "record/probes.h"
#include "base/banned.h"

volatile unsigned short otel_memory_alloc_semaphore __attribute__((section(".probes"), used));
volatile unsigned short otel_memory_free_semaphore __attribute__((section(".probes"), used));
