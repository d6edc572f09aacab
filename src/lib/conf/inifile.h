/*
 * inifile.h -- profiler.ini: the ops-edited configuration file.
 *
 * Keys are the option names of options.def.  Global settings go in
 * [heapprof]; a [program:NAME] section overrides them for the program
 * whose executable's basename is NAME, so that one file serves every
 * program in a container.  Keys outside any section count as global.
 *
 * The file is read with read(2) into our own memory and handed to inih
 * line by line through a reader that numbers and checks each line first,
 * so that every complaint names the file and the line.  A bad line, key or
 * value costs one message; the rest of the file still applies.  A file
 * that is missing (at the default location), unreadable, not a regular
 * file, binary or over 1 MiB is ignored with one message.
 */
#ifndef HP_INIFILE_H
#define HP_INIFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "conf/conf.h"

#ifndef HP_INIFILE_DEFAULT_PATH   /* the GNUmakefile's SYSCONFDIR */
#define HP_INIFILE_DEFAULT_PATH "/etc/heapprof/profiler.ini"
#endif
#define HP_INIFILE_MAX_BYTES (1u << 20)

struct hp_inifile {
	struct hp_conf_values opts;   /* defaults, then the file's settings */
	uint8_t set[HP_CONF_NOPTS];   /* the file sets this key (for us) */
	unsigned line[HP_CONF_NOPTS]; /* where */
	bool found;                   /* the file exists and was read */
	unsigned problems;            /* lines, keys or values refused */
	/* The gate keys (HP_CONF_GATE) whose setting in force for us was
	 * refused, or meant by an unknown key: the line as hp_conf_gate_mark
	 * takes it; empty for a key set properly or not at all. */
	char fault[HP_CONF_NOPTS][HP_CONF_FAULT_MAX];
	char path[PATH_MAX];
	struct stat st;               /* stat(path) just before reading it
				       * (zeros: none), the baseline of the
				       * helper thread's change check */
};

/* The file to read: $HEAPPROF_CONFIG, or the default path.  explicit is
 * set when it came from the environment (then a missing file is worth a
 * message). */
const char *hp_inifile_path(bool *explicit);

/* Reads path for the program named prog into ini.  Messages are printed
 * unless quiet.  Never fails: problems leave keys unset. */
void hp_inifile_read(struct hp_inifile *ini, const char *path, bool explicit, const char *prog,
		 bool quiet);

/* The basename of this process's executable, for [program:NAME]. */
const char *hp_inifile_program(void);

#endif
