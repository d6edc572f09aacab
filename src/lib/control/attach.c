/*
 * attach.c -- heapprof attach and detach, the library's side: the two
 * entry points the command calls inside the process (src/attachabi.h).
 *
 * Owns the order of things.  Attach: the GOT entries first (next/got.c),
 * then the options, the helper thread and the state file
 * (control/lifecycle.c), sampling last.  Detach: the GOT entries first, so that no new call comes,
 * then the rest.  Runs on a thread of the program's that the command
 * stopped at a safe point (no allocator or loader lock held), with the
 * program's signal mask; every other thread runs meanwhile.  Never
 * unloads anything: code may still run in the library after a detach (a
 * thread inside heapprof's malloc at that moment, a pointer to it the
 * program kept).
 *
 * Also owns the host's dump directory of a process in a container
 * (heapprof_attach_fd): the one descriptor heapprof keeps between tasks,
 * on a high number, from the attach that passed it to the detach; and
 * the socket it comes through, between the command's two calls.  What a
 * command killed between its calls left is closed by the next attach or
 * detach.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "attachabi.h"
#include "base/compiler.h"
#include "base/fmt.h"
#include "base/log.h"
#include "control/lifecycle.h"
#include "next/got.h"
#include "next/next.h"
#include "record/sampled.h"
#include "record/switches.h"
#include "record/tls.h"
#include "stack/unwpipe.h"
#include "base/banned.h"

static void answer(struct hp_attach_result *out, int status, const char *text)
{
	hp_fmt(out->text, sizeof(out->text), "%s", text ? text : "");
	HP_STORE_REL(&out->status, status);
}

static int host_dir = -1;   /* heapprof_attach_fd's directory, or -1 */
static int pending = -1;    /* its socket, connected and not read yet */

/* Closes *fdp unless it is -1. */
static void drop(int *fdp)
{
	int fd = HP_LOAD(fdp);

	if (fd >= 0 && HP_CAS(fdp, &fd, -1))
		close(fd);
}

/* Closes the host's dump directory, if one was passed. */
static void drop_host_dir(void)
{
	drop(&host_dir);
}

/* At an attach: what a command killed between its calls left (a socket
 * it never sent on; a directory its prefix does not name) is closed. */
static void drop_leftovers(const char *conf)
{
	char want[48];
	int fd = HP_LOAD(&host_dir);

	drop(&pending);
	hp_fmt(want, sizeof(want), "/proc/self/fd/%d/", fd);
	if (fd >= 0 && (!conf || !strstr(conf, want)))
		drop_host_dir();
}

static void answer_fd(struct hp_attach_fd *out, int status, int fd, const char *text)
{
	hp_fmt(out->text, sizeof(out->text), "%s", text ? text : "");
	out->fd = fd;
	HP_STORE_REL(&out->status, status);
}

/* The descriptor an SCM_RIGHTS message queued on conn carries, or -1. */
static int take_fd(int conn)
{
	char byte;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf,
			    .msg_controllen = sizeof(c.buf) };
	int fd = -1;

	memset(c.buf, 0, sizeof(c.buf));
	if (recvmsg(conn, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1)
		return -1;
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
	    h->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(h), sizeof(fd));
	return fd;
}

HP_EXPORT void heapprof_attach_fd(const char *sock, int conn, struct hp_attach_fd *out)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	if (conn < 0) {
		if (!sock || strlen(sock) >= sizeof(a.sun_path)) {
			answer_fd(out, HP_ATTACH_FAILED, -1, "no socket path, or too long a one");
			return;
		}
		memcpy(a.sun_path, sock, strlen(sock) + 1);
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
			int err = errno;
			if (s >= 0)
				close(s);
			answer_fd(out, HP_ATTACH_FAILED, -1, strerrordesc_np(err));
			return;
		}
		drop(&pending);
		HP_STORE(&pending, s);
		answer_fd(out, HP_ATTACH_DONE, s, "");
		return;
	}
	if (conn != HP_LOAD(&pending)) {
		answer_fd(out, HP_ATTACH_FAILED, -1, "not the socket heapprof connected");
		return;
	}
	int fd = take_fd(conn);
	drop(&pending);
	if (fd >= 0 && HP_LOAD(&hp_switches.attached) == HP_ATTACH_ON) {
		/* The running profile's prefix names the descriptor it has. */
		close(fd);
		answer_fd(out, HP_ATTACH_ALREADY, -1, "attached already");
		return;
	}
	if (fd < 0) {
		answer_fd(out, HP_ATTACH_FAILED, -1, "no directory came on the socket");
		return;
	}
	/* Out of the way of the numbers a program picks (dup2 onto 3..). */
	int high = fcntl(fd, F_DUPFD_CLOEXEC, 500);
	if (high >= 0) {
		close(fd);
		fd = high;
	}
	drop_host_dir();
	HP_STORE(&host_dir, fd);
	answer_fd(out, HP_ATTACH_DONE, fd, "");
}

HP_EXPORT void heapprof_attach(const char *conf, struct hp_attach_result *out)
{
	const char *why;
	unsigned objects = 0;
	struct hp_tls *t = &hp_tls;

	if (!hp_next_dlopened()) {
		answer(out, HP_ATTACH_PRELOADED, "loaded at start-up");
		return;
	}
	if (HP_LOAD(&hp_switches.attached) == HP_ATTACH_ON) {
		answer(out, HP_ATTACH_ALREADY, "attached already");
		return;
	}
	drop_leftovers(conf);
	/* The GOT entries first: until start-up has published its switches,
	 * heapprof's entries forward every call unrecorded, as before a
	 * preloaded constructor; and libunwind's validation pipe, opened
	 * during start-up's first walk, must come through pipe2's. */
	hp_tls_guard_enter(t);
	out->rewritten = hp_got_route(&objects);
	out->objects = objects;
	hp_unwpipe_open();
	hp_tls_guard_leave(t);
	if (hp_lifecycle_attach(conf, &why) != 0) {
		hp_tls_guard_enter(t);
		hp_unwpipe_shut();
		hp_got_restore();
		hp_tls_guard_leave(t);
		drop_host_dir();
		answer(out, HP_ATTACH_FAILED, why);
		return;
	}
	hp_log(HP_LOG_INFO, "attached: %u GOT entries of %u objects routed to heapprof; "
	       "allocations before now are not counted", out->rewritten, objects);
	answer(out, HP_ATTACH_DONE, "");
}

HP_EXPORT void heapprof_detach(struct hp_attach_result *out)
{
	struct hp_tls *t = &hp_tls;

	if (!hp_next_dlopened()) {
		answer(out, HP_ATTACH_PRELOADED, "loaded at start-up");
		return;
	}
	if (HP_LOAD(&hp_switches.attached) != HP_ATTACH_ON) {
		drop_leftovers(NULL);
		answer(out, HP_ATTACH_ALREADY, "not attached");
		return;
	}
	hp_tls_guard_enter(t);
	if (!hp_unwpipe_shut())
		hp_log(HP_LOG_WARN, "detach: a stack walk did not end within 1 s; libunwind's "
		       "validation pipe may stay open");
	out->rewritten = hp_got_restore();
	hp_tls_guard_leave(t);
	hp_sampled_drain_deferred();   /* frees this thread put off: nothing would do them now */
	hp_lifecycle_detach();
	drop_host_dir();
	hp_log(HP_LOG_INFO, "detached: %u GOT entries restored; heapprof stays loaded, inert",
	       out->rewritten);
	answer(out, HP_ATTACH_DONE, "");
}
