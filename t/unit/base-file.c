/*
 * base-file.c -- unit tests of base/file: a file is created under a
 * temporary name and renamed into place, never through a planted symlink.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/fmt.h"
#include "base/out.h"

#include "tap.h"

int main(void)
{
	char dir[] = "/tmp/heapprof-unit.XXXXXX";
	char victim[256], dst[256], tmp[256];
	struct hp_file f;

	ok(mkdtemp(dir) != NULL, "scratch directory");
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	FILE *v = fopen(victim, "w");
	fputs("precious\n", v);
	fclose(v);
	snprintf(dst, sizeof(dst), "%s/out.heap", dir);
	/* Symlinks at the final name and at every temporary name this
	 * process could use next. */
	symlink(victim, dst);
	for (int k = 0; k < 64; k++) {
		snprintf(tmp, sizeof(tmp), "%s/.out.heap.%d.%d.tmp", dir, (int)getpid(), k);
		symlink(victim, tmp);
	}
	int err = hp_file_create(&f, dst);
	if (!err) {
		hp_out_write_all(f.fd, "dump\n", 5);
		err = hp_file_commit(&f);
	}
	char buf[64] = "";
	FILE *r = fopen(victim, "r");
	fgets(buf, sizeof(buf), r);
	fclose(r);
	struct stat st;
	ok(!err && !strcmp(buf, "precious\n"), "the symlinks' target is untouched");
	ok(!lstat(dst, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
	   "the dump replaced the planted link with a regular file, mode 0600");
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ok(system(cmd) == 0, "cleaned up");
	return done_testing();
}
