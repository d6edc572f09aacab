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
void heapprof_attach_fd(const char *sock, int conn, struct hp_attach_fd *out);
 *
 * conf is the -c options, MALLOC_CONF's syntax, applied as HEAPPROF_CONF
 * would be (the process's environment cannot be changed).  out lies in
 * the thread's stack below its stack pointer; the command reads it when
 * the call has returned.
 *
 * A process whose root is not the command's (a container) is first given
 * a descriptor of the host's dump directory, before heapprof_attach,
 * over a unix socket the command listens on inside the process's own
 * filesystem, in two calls that never block:
 *
 *   void heapprof_attach_fd(const char *sock, int conn, struct hp_attach_fd *out);
 *
 * conn < 0: connects to sock (the process's path) and gives the socket's
 * descriptor in out->fd; the command then accepts and sends the
 * directory (SCM_RIGHTS).  conn >= 0: takes the directory from that
 * socket (already queued: MSG_DONTWAIT), closes the socket, keeps the
 * directory on a high descriptor (closed by heapprof_detach, or by the
 * next heapprof_attach_fd) and gives its number in out->fd: the command
 * then names it in prof_prefix as /proc/self/fd/N/...  A socket or
 * directory a command killed between these calls left is closed by the
 * next heapprof_attach (unless its conf names that directory) or
 * heapprof_detach.
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

struct hp_attach_fd {
	int32_t status;              /* 0 until the library has answered */
	int32_t fd;                  /* the descriptor, in the process */
	char text[240];              /* HP_ATTACH_FAILED: why */
};

/* The library's entry points (exported; called only by the command, on a
 * borrowed thread). */
void heapprof_attach(const char *conf, struct hp_attach_result *out);
void heapprof_detach(struct hp_attach_result *out);
void heapprof_attach_fd(const char *sock, int conn, struct hp_attach_fd *out);

#endif
