/*
 * file.h -- creating output files safely.
 *
 * A file is written under a hidden temporary name in its final directory
 * (".<name>.<pid>.<n>.tmp", opened O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC,
 * mode 0600) and renamed over its final name only when complete, so a
 * reader never sees a partial file and a symlink planted at either name is
 * never followed.  The descriptor is never 0, 1 or 2: if the host closed
 * its standard streams, our file must not become its stderr (jemalloc
 * #1977).  Nothing here allocates.
 */
#ifndef HP_FILE_H
#define HP_FILE_H

#include <limits.h>
#include <signal.h>

/* Writing past RLIMIT_FSIZE raises SIGXFSZ, whose default action ends the
 * process (a program that runs fine bare would die of our dump or log
 * line).  Between block and restore the signal is blocked in this
 * thread, so the write fails with EFBIG instead, and one raised meanwhile
 * is taken back before the mask is restored. */
struct hp_file_xfsz {
	sigset_t old;
	int was_pending;
};
void hp_file_xfsz_block(struct hp_file_xfsz *g);
void hp_file_xfsz_restore(struct hp_file_xfsz *g);

/* A file being written: SIGXFSZ stays blocked from create to commit or
 * abort (see above), which must run on the same thread. */
struct hp_file {
	int fd;
	char tmp[PATH_MAX];
	char dst[PATH_MAX];
	struct hp_file_xfsz xfsz;
};

/* Opens a temporary file for path.  Returns 0 or an errno value. */
int hp_file_create(struct hp_file *f, const char *path);
/* Closes and renames into place.  Returns 0 or an errno value (the
 * temporary is removed on failure). */
int hp_file_commit(struct hp_file *f);
/* Closes and removes the temporary. */
void hp_file_abort(struct hp_file *f);

/* Reads the file at path with read(2) in chunks of up to 4 KiB, calling
 * fn on each until the end or an error; no allocation.  Returns 0, or the
 * errno of open. */
int hp_file_each_chunk(const char *path, void (*fn)(const char *buf, size_t n, void *arg), void *arg);

/* Reads the file at path into buf (cap bytes) with read(2); *len is what
 * was read.  Returns 0, the errno of open or read, or EFBIG when the file
 * does not fit (buf then holds its first cap bytes). */
int hp_file_read_all(const char *path, char *buf, size_t cap, size_t *len);

/* Creates the missing directories of path's dirname, mode 0700, from
 * the top.  Returns 0 or an errno value. */
int hp_file_mkdirs(const char *path);

/* What a file of st_mode mode is, for messages: "a FIFO", "a directory",
 * "a symbolic link"... */
const char *hp_file_kind(unsigned mode);

/* Moves fd above the standard descriptors if it is one of them.  Returns
 * the descriptor to use (fd itself, or a duplicate), -1 on failure. */
int hp_file_fd_above_stdio(int fd);

#endif
