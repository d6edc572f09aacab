/*
 * verdictfile.c -- the leak verdict as a file (see verdictfile.h).
 *
 * Owns nothing between calls.  The verdict is written once, in the exit
 * handler, inside the guard, after the other threads went on; the
 * registration at start-up and in a fork child: text goes through
 * base/out.c into a base/file.c temporary, renamed into place when
 * complete.
 *
 * In leak/: called by verdict.c and leak.c; of its own layer it takes
 * only verdict.h's counts (a type), and of output/ the dump lock and
 * prof_prefix's expansion (output/dump.h, output/dumpname.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/file.h"
#include "base/fmt.h"
#include "base/log.h"
#include "base/pages.h"
#include "conf/conf.h"
#include "leak/verdict.h"
#include "leak/verdictfile.h"
#include "output/dump.h"
#include "output/dumpname.h"
#include "base/banned.h"

#define CMDLINE_MAX 4096

static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* The rest of a line: control bytes become '?'. */
static void put_text(struct hp_out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hp_out_char(o, is_control((unsigned char)s[i]) ? '?' : s[i]);
}

/* One space-separated field: space, control bytes and '\' as \xHH. */
static void put_field(struct hp_out *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c <= ' ' || c == 0x7f || c == '\\') {
			char e[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };
			hp_out_write(o, e, sizeof(e));
		} else {
			hp_out_char(o, (char)c);
		}
	}
}

static void put_program(struct hp_out *o)
{
	char exe[PATH_MAX];
	/* The thread's own link: main's reads nothing once it has exited. */
	ssize_t n = readlink("/proc/thread-self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	hp_out_str(o, "program=");
	put_text(o, exe, n > 0 ? (size_t)n : 0);
	hp_out_char(o, '\n');
}

/* /proc/self/cmdline: arguments separated by NULs, each ending in one. */
static void put_cmdline(struct hp_out *o)
{
	char buf[CMDLINE_MAX];
	size_t n;

	/* A longer command line is cut (EFBIG): the rest is not needed. */
	hp_file_read_all("/proc/self/cmdline", buf, sizeof(buf), &n);
	while (n && buf[n - 1] == '\0')
		n--;
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	hp_out_str(o, "cmdline=");
	put_text(o, buf, n);
	hp_out_char(o, '\n');
}

/* The verdict into a memfd, for courier_send; 0 or an errno value.
 * why is the errno that kept it from its directory. */
static int courier_open(struct hp_verdictfile *vf, const char *prefix, int why)
{
	char name[PATH_MAX];
	size_t n = hp_fmt(name, sizeof(name), "%s.sock", prefix);

	if (n + 1 >= sizeof(name))
		return ENAMETOOLONG;
	/* The abstract name: the path's last HP_VERDICTFILE_SOCK_MAX bytes. */
	size_t from = n > HP_VERDICTFILE_SOCK_MAX ? n - HP_VERDICTFILE_SOCK_MAX : 0;
	memcpy(vf->f.tmp, name + from, n - from + 1);
	int fd = memfd_create("heapprof-verdict", MFD_CLOEXEC);
	if (fd >= 0)
		fd = hp_file_fd_above_stdio(fd);
	if (fd < 0)
		return errno;
	vf->f.fd = fd;
	memcpy(vf->f.dst, name, n + 1);
	vf->courier = why;
	return 0;
}

/* Sends the memfd to the socket in one datagram and closes it. */
static int courier_send(struct hp_verdictfile *vf)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char byte = 'v';
	struct iovec iov = { &byte, 1 };
	size_t n = strlen(vf->f.tmp);
	struct msghdr m = { .msg_name = &a,
			    .msg_namelen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n),
			    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	int err = 0;

	memcpy(a.sun_path + 1, vf->f.tmp, n);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &vf->f.fd, sizeof(int));
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || sendmsg(s, &m, MSG_NOSIGNAL) != 1)
		err = errno ? errno : EIO;
	if (s >= 0)
		close(s);
	close(vf->f.fd);
	return err;
}

/* The process that registered (hp_verdictfile_register), or 0. */
static pid_t registered;

/*
 * Whether the registration this process made is gone: whoever reads the
 * verdicts (heapprof check) has ended and removed its directory, with
 * the registration in it, while this process still ran (a daemon the
 * command started).  Then no verdict is written: creating the directory
 * again would leave it, and the verdict, where nobody removes them.
 * Only ENOENT says so: a process that dropped privileges cannot look
 * (EACCES) and sends its verdict by courier.
 */
static int registration_gone(const char *prefix)
{
	char path[PATH_MAX];
	struct stat st;

	if (HP_LOAD(&registered) != getpid() ||
	    hp_fmt(path, sizeof(path), "%s.%d.started", prefix, (int)getpid()) + 1 >= sizeof(path))
		return 0;
	return lstat(path, &st) != 0 && errno == ENOENT;
}

/* A writer for <prof_prefix, expanded>.<pid>.<suffix>, or NULL:
 * prof_prefix is empty or was not given, or an error (logged). */
static struct hp_verdictfile *open_file(const char *suffix)
{
	char prefix[PATH_MAX], path[PATH_MAX];
	struct hp_verdictfile *vf;
	size_t n = 0;
	int empty;

	/* Options change under the dump lock (control/settings.c).  Only
	 * where prof_prefix was given (heapprof check gives it): the default
	 * prefix is the working directory, which a leak gate leaves alone. */
	hp_dump_lock();
	empty = !hp_conf.prof_prefix[0] || hp_conf_sources[HP_CONF_O_prof_prefix] == HP_CONF_SRC_DEFAULT;
	if (!empty)
		n = hp_dumpname_expand(hp_conf.prof_prefix, prefix, sizeof(prefix));
	hp_dump_unlock();
	if (empty)
		return NULL;
	if (suffix[0] == 'v' && n && registration_gone(prefix)) {
		hp_log(HP_LOG_DEBUG, "no leak verdict: the registration %s.%d.started is gone (heapprof check "
		       "ended before this process)", prefix, (int)getpid());
		return NULL;
	}
	int err = n ? 0 : ENAMETOOLONG;
	if (!err && hp_fmt(path, sizeof(path), "%s.%d.%s", prefix, (int)getpid(), suffix) + 1 >= sizeof(path))
		err = ENAMETOOLONG;
	if (!err)
		err = hp_dumpname_mkdirs(path);
	vf = err && err != EACCES && err != EPERM ? NULL : hp_pages_alloc(sizeof(*vf));
	if (vf)
		vf->courier = 0;
	if (!err && !vf)
		err = ENOMEM;
	if (!err)
		err = hp_file_create(&vf->f, path);
	/* Privileges dropped since start-up: heapprof check's courier. */
	if (vf && (err == EACCES || err == EPERM) && suffix[0] == 'v' && courier_open(vf, prefix, err) == 0)
		err = 0;
	if (err) {
		/* The registration is said only at log_level:debug: the exit
		 * says the same of the verdict, which is what counts. */
		hp_log(suffix[0] == 'v' ? HP_LOG_ERROR : HP_LOG_DEBUG, "cannot write the leak %s %s.%d.%s: %s",
		       suffix[0] == 'v' ? "verdict" : "registration",
		       n ? prefix : "(prof_prefix)", (int)getpid(), suffix, strerrordesc_np(err));
		if (vf)
			hp_pages_free(vf, sizeof(*vf));
		return NULL;
	}
	vf->live = 0;
	hp_out_init(&vf->o, vf->f.fd, vf->buf, sizeof(vf->buf));
	return vf;
}

/* What both files open with: the process. */
static void put_process(struct hp_out *o)
{
	hp_out_printf(o, "pid=%d\n", (int)getpid());
	put_program(o);
	put_cmdline(o);
}

void hp_verdictfile_register(void)
{
	struct hp_verdictfile *vf = open_file("started");

	if (!vf)
		return;
	hp_out_str(&vf->o, "heapprof-started 1\n");
	put_process(&vf->o);
	int err = hp_out_flush(&vf->o);
	if (err)
		hp_file_abort(&vf->f);
	else
		err = hp_file_commit(&vf->f);
	if (err)
		hp_log(HP_LOG_DEBUG, "cannot write the leak registration %s: %s", vf->f.dst,
		       strerrordesc_np(err));
	HP_STORE(&registered, err ? 0 : getpid());
	hp_pages_free(vf, sizeof(*vf));
}

struct hp_verdictfile *hp_verdictfile_begin(int status)
{
	struct hp_verdictfile *vf = open_file("verdict");

	if (!vf)
		return NULL;
	hp_out_str(&vf->o, "heapprof-verdict 1\n");
	put_process(&vf->o);
	hp_out_printf(&vf->o, "status=%d\n", status);
	/* Said only when configured (a [program:NAME] section, say): then it,
	 * not heapprof check's own choice, decides whether this one counts.
	 * A refused leak_gate (leak_gate = ture) counts the process: a gate
	 * fails closed, never leaves a process out on a typo (conf.h). */
	if (hp_conf_gate_fault(HP_CONF_O_leak_gate))
		hp_out_printf(&vf->o, "gate=on\n");
	else if (hp_conf_sources[HP_CONF_O_leak_gate] != HP_CONF_SRC_DEFAULT)
		hp_out_printf(&vf->o, "gate=%s\n", hp_conf.leak_gate ? "on" : "off");
	return vf;
}

void hp_verdictfile_counts(struct hp_verdictfile *vf, const struct hp_verdict *v)
{
	if (v->sampled_lg)
		hp_out_printf(&vf->o, "sampled=%d blocks=%llu\n", v->sampled_lg,
			      (unsigned long long)v->sampled_blocks);
	hp_out_printf(&vf->o, "direct_bytes=%llu direct_objects=%llu indirect_bytes=%llu indirect_objects=%llu\n",
		      (unsigned long long)v->direct_bytes, (unsigned long long)v->direct_objects,
		      (unsigned long long)v->indirect_bytes, (unsigned long long)v->indirect_objects);
	hp_out_printf(&vf->o, "suppressed_bytes=%llu suppressed_objects=%llu\n",
		      (unsigned long long)v->suppressed_bytes, (unsigned long long)v->suppressed_objects);
	hp_out_printf(&vf->o, "threads=%u threads_stopped=%u\n", v->threads, v->threads_stopped);
}

void hp_verdictfile_suppression(struct hp_verdictfile *vf, uint64_t count, uint64_t bytes,
				const char *templ)
{
	hp_out_printf(&vf->o, "suppression %llu %llu ", (unsigned long long)count,
		      (unsigned long long)bytes);
	put_text(&vf->o, templ, strlen(templ));
	hp_out_char(&vf->o, '\n');
}

void hp_verdictfile_leak(struct hp_verdictfile *vf, int direct, uint64_t bytes, uint64_t objects)
{
	hp_out_printf(&vf->o, "leak %s %llu %llu\n", direct ? "direct" : "indirect",
		      (unsigned long long)bytes, (unsigned long long)objects);
}

void hp_verdictfile_frame(struct hp_verdictfile *vf, uintptr_t pc, const char *object,
			  uintptr_t addr, const char *function)
{
	hp_out_printf(&vf->o, "frame 0x%lx ", (unsigned long)pc);
	if (object && *object)
		put_field(&vf->o, object);
	else
		hp_out_char(&vf->o, '-');
	hp_out_printf(&vf->o, " 0x%lx ", (unsigned long)(object && *object ? addr : 0));
	if (function && *function)
		put_text(&vf->o, function, strlen(function));
	else
		hp_out_char(&vf->o, '-');
	hp_out_char(&vf->o, '\n');
}

void hp_verdictfile_leak_end(struct hp_verdictfile *vf)
{
	hp_out_str(&vf->o, "end\n");
}

/* The verdict is in place: the registration beside it has done its work
 * (a process that never gets this far leaves it for heapprof check). */
static void forget_registration(const char *verdict)
{
	char path[PATH_MAX];
	size_t n = strlen(verdict), k = sizeof(".verdict") - 1;

	if (n < k || n - k + sizeof(".started") > sizeof(path))
		return;
	memcpy(path, verdict, n - k);
	memcpy(path + n - k, ".started", sizeof(".started"));
	unlink(path);
}

int hp_verdictfile_commit(struct hp_verdictfile *vf)
{
	int err = hp_out_flush(&vf->o);

	if (vf->courier) {
		int e = courier_send(vf);
		err = err ? err : e;
		/* No heapprof check listening: said as without the courier. */
		if (err)
			hp_log(HP_LOG_ERROR, "cannot write the leak verdict %.*s.%d.verdict: %s",
			       (int)(strlen(vf->f.dst) - sizeof(".sock") + 1), vf->f.dst, (int)getpid(),
			       strerrordesc_np(vf->courier));
		hp_pages_free(vf, sizeof(*vf));
		return err;
	}
	if (err)
		hp_file_abort(&vf->f);
	else
		err = hp_file_commit(&vf->f);
	if (err)
		hp_log(HP_LOG_ERROR, "cannot write the leak verdict %s: %s", vf->f.dst, strerrordesc_np(err));
	else if (!vf->live)
		forget_registration(vf->f.dst);
	hp_pages_free(vf, sizeof(*vf));
	return err;
}

void hp_verdictfile_error(int status, const char *why)
{
	struct hp_verdictfile *vf = hp_verdictfile_begin(status);

	if (!vf)
		return;
	hp_out_str(&vf->o, "error=");
	put_text(&vf->o, why, strlen(why));
	hp_out_char(&vf->o, '\n');
	hp_verdictfile_commit(vf);
}

/* ---- the verdict of a leak check of the running process -------------- */

struct hp_verdictfile *hp_verdictfile_begin_live(const char *path, uint32_t seq, uint64_t pause_us,
						 int64_t attached_at, int blocks)
{
	struct hp_verdictfile *vf = hp_pages_alloc(sizeof(*vf));
	int err = vf ? hp_file_create(&vf->f, path) : ENOMEM;

	if (err) {
		hp_log(HP_LOG_DEBUG, "cannot write the leak check's verdict %s: %s", path, strerrordesc_np(err));
		if (vf)
			hp_pages_free(vf, sizeof(*vf));
		return NULL;
	}
	vf->courier = 0;
	vf->live = 1;
	hp_out_init(&vf->o, vf->f.fd, vf->buf, sizeof(vf->buf));
	hp_out_str(&vf->o, "heapprof-verdict 1\n");
	put_process(&vf->o);
	hp_out_str(&vf->o, "status=0\n");
	hp_out_printf(&vf->o, "live=%u pause_us=%llu attached_at=%lld blocks=%d\n", (unsigned)seq,
		      (unsigned long long)pause_us, (long long)attached_at, blocks ? 1 : 0);
	return vf;
}

void hp_verdictfile_unstopped(struct hp_verdictfile *vf, int tid, const char *name)
{
	hp_out_printf(&vf->o, "unstopped %d ", tid);
	put_text(&vf->o, name, strlen(name));
	hp_out_char(&vf->o, '\n');
}

void hp_verdictfile_block(struct hp_verdictfile *vf, uintptr_t addr, uint64_t size)
{
	hp_out_printf(&vf->o, "block 0x%lx %llu\n", (unsigned long)addr, (unsigned long long)size);
}

void hp_verdictfile_error_line(struct hp_verdictfile *vf, const char *why)
{
	hp_out_str(&vf->o, "error=");
	put_text(&vf->o, why, strlen(why));
	hp_out_char(&vf->o, '\n');
}
