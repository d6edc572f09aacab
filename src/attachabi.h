/*
 * attachabi.h -- what heapprof attach and detach pass to the library's
 * entry points in the attached process, and what they get back.  Shared
 * by the library (src/lib/control/attach.c) and the command
 * (src/cli/cmd_attach.c); nothing else.
 *
 * The command calls, on one thread of the process stopped at a safe
 * point (src/cli/inject.c):
 *
 *   void heapprof_attach(const char *conf, struct hp_attach_result *out);
 *   void heapprof_detach(struct hp_attach_result *out);
 *
 * conf is the -c options, MALLOC_CONF's syntax, applied as HEAPPROF_CONF
 * would be (the process's environment cannot be changed).  out lies in
 * the thread's stack below its stack pointer; the command reads it when
 * the call has returned.
 */
#ifndef HEAPPROF_ATTACHABI_H
#define HEAPPROF_ATTACHABI_H

#include <stdint.h>

enum hp_attach_status {
	HP_ATTACH_DONE = 1,          /* attached (or detached) */
	HP_ATTACH_ALREADY = 2,       /* already attached (already detached) */
	HP_ATTACH_PRELOADED = 3,     /* heapprof was loaded at start-up */
	HP_ATTACH_FAILED = 4,        /* text says why; nothing changed */
};

struct hp_attach_result {
	int32_t status;              /* 0 until the library has answered */
	uint32_t rewritten;          /* GOT entries rewritten (restored) */
	uint32_t objects;            /* objects whose entries were rewritten */
	uint32_t pad;
	char text[240];
};

/* The library's entry points (exported; called only by the command, on a
 * borrowed thread). */
void heapprof_attach(const char *conf, struct hp_attach_result *out);
void heapprof_detach(struct hp_attach_result *out);

#endif
