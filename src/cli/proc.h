/*
 * proc.h -- what the heapprof command knows about a running process:
 * whether heapprof is loaded into it, its published state (see the
 * library's src/lib/output/statefile.h), and whether it catches a signal.
 */
#ifndef HP_CLI_PROC_H
#define HP_CLI_PROC_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct hp_proc_state {
	bool found;                 /* a state file was read */
	char path[PATH_MAX];        /* of the state file */
	pid_t pid;
	unsigned long long starttime;   /* of the process that wrote it; 0: unknown */
	char program[PATH_MAX];
	char prefix[PATH_MAX];
	int active;
	int lg_prof_sample;
	int signal_dump;
	int signal_toggle;
	bool has_control;           /* reads control files (signal_control= present) */
	int signal_control;         /* wakes it to read them; 0: none */
	unsigned dumps;
	char last_dump[PATH_MAX];
	long long live_bytes;
	char started[32];
	bool attached;              /* loaded by heapprof attach (attached=1) */
	pid_t nspid;                /* pid in its own pid namespace (a
				     * container's), which its files name */
};

/* pid as the process itself sees it: the last NSpid of /proc/pid/status
 * (its pid namespace's, a container's), or pid. */
pid_t hp_proc_nspid(pid_t pid);
/* True if pid's filesystem is not ours: another root directory (a
 * container's, a chroot) or another mount namespace (a private /tmp):
 * the paths it names must be read through /proc/pid/root. */
bool hp_proc_other_fs(pid_t pid);
/* A path pid names in its own filesystem, as this command reaches it:
 * unchanged when pid shares our filesystem; else an absolute one under
 * /proc/pid/root and a relative one under /proc/pid/cwd.  A path under
 * /proc/self/fd/N/ (the host's dump directory heapprof attach passed a
 * process in a container) becomes that directory's path here. */
void hp_proc_host_path(pid_t pid, const char *in, char *out, size_t cap);

/* True if libheapprof is mapped into pid (reads /proc/pid/maps), and not
 * left inert there by heapprof detach.  When
 * false, errno says why the maps could not be read (EACCES: another
 * user's process), or is 0. */
bool hp_proc_has_heapprof(pid_t pid);
/* The effective user ID of pid (from /proc/pid/status). */
bool hp_proc_owner(pid_t pid, unsigned *uid);
/* True if every thread of pid, heapprof's own helper thread aside, blocks
 * sig: no handler could run, and a program that takes its signals with
 * sigwait(3) would be handed it. */
bool hp_proc_blocked_everywhere(pid_t pid, int sig);
/* The program's path (/proc/pid/exe), or its comm, into buf. */
void hp_proc_program(pid_t pid, char *buf, size_t cap);
/* Whether program (a path) is one of names[0..n): by its file name or its
 * whole path; true when n is 0 (none asked for: every program). */
bool hp_proc_program_named(char *const *names, size_t n, const char *program);
/* True if pid catches sig (SigCgt in /proc/pid/status). */
bool hp_proc_catches(pid_t pid, int sig);
/* The path of pid's bell (src/bellpage.h) and its inode, from its memory
 * map (inode may be NULL), as this command reaches it (through
 * /proc/pid/root for a process in a container). */
bool hp_proc_bell_path(pid_t pid, char *buf, size_t cap, unsigned long *inode);
/* Reads pid's state file in its runtime directory: its bell's (from its
 * memory map), else $HEAPPROF_RUNTIME_DIR of the process (from its
 * environment, when readable), else /tmp/heapprof-<its uid>; each in
 * the process's own filesystem, and under its own pid (a container's).
 * st->pid is then pid, st->nspid the process's own, and st->prefix and
 * st->last_dump are paths here (hp_proc_host_path). */
bool hp_proc_read_state(pid_t pid, struct hp_proc_state *st);
/* Parses a state file at path. */
bool hp_proc_parse_state(const char *path, struct hp_proc_state *st);
/* The runtime directories to scan for state files: ours and, as root,
 * every /tmp/heapprof-*.  Calls fn for each file found. */
void hp_proc_each_state(void (*fn)(const char *path, void *arg), void *arg);
/* The same directories' temporaries (".<pid>.<pid>.<n>.tmp", left by a
 * process killed while it rewrote its state file). */
void hp_proc_each_temp(void (*fn)(const char *path, void *arg), void *arg);
/* True if pid is a zombie: it has exited and its parent (*parent, when
 * not NULL) has not reaped it. */
bool hp_proc_is_zombie(pid_t pid, pid_t *parent);
/* When pid started (field 22 of /proc/pid/stat, clock ticks since boot);
 * 0 if unknown. */
unsigned long long hp_proc_starttime(pid_t pid);

/* st's live bytes from the process's bell, fresher than its state file's
 * (written when a request is answered). */
void hp_proc_fresh_live(struct hp_proc_state *st);
/* Calls fn for each bell ("bell.<pid>") in the runtime directories. */
void hp_proc_each_bell(void (*fn)(const char *path, void *arg), void *arg);

#endif
