/*
 * stage.h -- heapprof attach's private directory inside the filesystem of
 * a process in another mount namespace (a container), reached through
 * /proc/PID/root: the copies of libheapprof.so and of the libraries the
 * container lacks, which the process then loads by absolute path, and the
 * socket that hands it the host's dump directory.  All of it is removed
 * by hp_stage_remove once loaded (the mappings keep the files alive).
 *
 * Every write goes through descriptors with O_NOFOLLOW, one component at
 * a time: a symbolic link planted in the container cannot redirect it.
 */
#ifndef HP_CLI_STAGE_H
#define HP_CLI_STAGE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "needed.h"

struct hp_stage {
	pid_t pid;
	int root;                  /* /proc/PID/root, O_PATH */
	int parent;                /* the process's /dev/shm, /tmp or /var/tmp */
	int dir;                   /* ours in it */
	char name[64];             /* ours, in parent */
	char inside[PATH_MAX];     /* ours, as the process names it */
	char files[HP_NEEDED_MAX + 2][160];   /* what we made in dir */
	int nfiles;
	unsigned uid, gid;         /* the process's, as this host numbers them */
	char why[PATH_MAX + 256];  /* when a step failed */
};

/* Makes the directory: in the first of the process's /dev/shm, /tmp and
 * /var/tmp that is a real directory (no symbolic link on the way), not
 * read-only and not noexec, where it first removes the unlocked
 * directories of attaches that were killed; a fresh name .heapprof-attach.XXXXXXXXXXXX,
 * mode 0700, made as uid:gid (the process's user: its permissions apply),
 * locked until hp_stage_remove.  Returns 0, or -1 with s->why (s is then
 * clean). */
int hp_stage_make(struct hp_stage *s, pid_t pid, unsigned uid, unsigned gid);

/* Copies the file from (a path here) into the directory as name, mode
 * 0500, made as uid:gid; its path in the process's filesystem goes to
 * inside.  Returns 0, or -1 with s->why. */
int hp_stage_copy(struct hp_stage *s, const char *from, const char *name, char *inside, size_t cap);

/* A listening unix stream socket "s" in the directory (made as uid:gid);
 * its path in the process's filesystem goes to inside.  Returns the
 * descriptor, or -1 with s->why. */
int hp_stage_listen(struct hp_stage *s, char *inside, size_t cap);

/* Whether the process has a library of that soname: mapped already, or a
 * regular file of that name in its loader's directories (its own
 * symbolic links resolved against its own root). */
bool hp_stage_root_has(pid_t pid, const char *soname);

/* stat(2) of path as the process resolves it (its symbolic links against
 * its own root, never this host's).  False with errno. */
struct stat;
bool hp_stage_root_stat(pid_t pid, const char *path, struct stat *st);

/* Removes what the directory holds and the directory; closes its
 * descriptors.  Safe to call twice. */
void hp_stage_remove(struct hp_stage *s);

#endif
