/*
 * attachct.h -- heapprof attach's side of a process in a container:
 * another root or mount namespace (cmd_attach.c's design note, 1b).
 * Before the process is stopped: the copies of libheapprof.so and of the
 * libraries the container lacks, staged in a private directory of its own
 * (stage.h); the host's directory of an absolute -c prof_prefix the
 * process cannot see, opened, with the socket in that private directory
 * it is passed through.  Once it is stopped: the directory sent on the
 * connection the process made (heapprof_attach_fd, attachabi.h).
 */
#ifndef HP_CLI_ATTACHCT_H
#define HP_CLI_ATTACHCT_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "needed.h"
#include "stage.h"

struct hp_attachct {
	bool stage;                  /* the stage directory is made */
	bool pass_dir;               /* prof_prefix's directory is passed */
	char hostdir[PATH_MAX];      /* that directory, here */
	char base[PATH_MAX];         /* prof_prefix after it */
	int dirfd;                   /* its descriptor, -1 */
	int listen;                  /* the socket it goes through, -1 */
	char sock[PATH_MAX];         /* the socket's path in the process */
	struct hp_stage st;
	/* What the process is to load, in that order, libheapprof.so last
	 * (n 0: nothing staged): paths as it names them, and the host's. */
	char path[HP_NEEDED_MAX + 1][PATH_MAX];
	char from[HP_NEEDED_MAX + 1][PATH_MAX];
	int n;
	char why[PATH_MAX * 2 + 256]; /* when a step failed: one line */
};

/*
 * Everything before process pid is stopped.  hidden: it does not see lib
 * at lib's path; loaded: a libheapprof is mapped in it already; conf: the
 * -c list.  Stages the library when hidden and not loaded; passes the
 * directory of conf's last prof_prefix when it is absolute, the process's
 * filesystem is not ours and it does not see that directory (made when
 * missing, for the process's user; refused when that user cannot write
 * it).  Returns 0, or 1 with c->why; hp_attachct_release in both cases.
 */
int hp_attachct_prepare(struct hp_attachct *c, pid_t pid, const char *lib, bool hidden, bool loaded,
			const char *conf);

/* Sends the directory on the connection the process made to the socket
 * (queued: it does not wait).  0, or -1 with errno. */
int hp_attachct_send_dir(struct hp_attachct *c);

/* Removes the stage directory and closes the descriptors.  Safe twice. */
void hp_attachct_release(struct hp_attachct *c);

#endif
