/*
 * fuzz.h -- what the fuzz targets in t/fuzz/ share.
 *
 * Each target is one file, t/fuzz/NAME.c, defining LLVMFuzzerTestOneInput:
 * libFuzzer drives it in `make fuzz` (clang, -fsanitize=fuzzer,address,
 * undefined), and t/fuzz/driver.c runs it on files in `make check`
 * (t/0760-fuzz-regress.t: the seed corpora and every input that once
 * crashed).  Test code, not library code: stdio and malloc are fine.
 *
 * support.c: the scratch directory and helpers every target uses.
 * support-lib.c: for targets linked with the library's objects; hp_log is
 *   wrapped (-Wl,--wrap=hp_log) so that every message is formatted, past
 *   the library's cap on warnings, and none is printed.
 * support-report.c: for targets linked with the report engine;
 *   hp_util_die is wrapped (-Wl,--wrap=hp_util_die) so that a refused
 *   input returns to the target instead of ending the process.
 */
#ifndef HP_FUZZ_H
#define HP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes size bytes at data to the file name (a relative path; its
 * directories are created) under this process's scratch directory, and
 * returns its path (malloc'd).  Dies on failure. */
char *fuzz_file(const char *name, const void *data, size_t size);

/* The scratch directory (made by LLVMFuzzerInitialize, under $TMPDIR,
 * removed at exit). */
const char *fuzz_dir(void);

/* A 64-bit hash of the input: targets take the options they exercise
 * from it, so that a given input always runs the same way. */
uint64_t fuzz_hash(const void *data, size_t size);

/* A copy of data with every "@GOLDEN@" replaced by $HP_SRC/t/golden (as
 * t/0460-report-golden.t does), NUL-terminated; *n gets its length.
 * Without HP_SRC, a plain copy. */
char *fuzz_golden(const uint8_t *data, size_t size, size_t *n);

/* A finding: prints "fuzz: WHAT" and aborts (the fuzzer saves the input). */
__attribute__((noreturn, format(printf, 1, 2))) void fuzz_fail(const char *fmt, ...);

/* Report targets: runs fn(arg); returns 0, or 1 when it called
 * hp_util_die (the message is formatted and dropped).  Memory it
 * allocated before dying is the caller's to free. */
int fuzz_try(void (*fn)(void *), void *arg);

/* fuzz_try for a call whose hp_util_die is a normal end (report --list
 * with no function to list): what fn allocates is not counted as leaked
 * by LeakSanitizer, when there is one. */
int fuzz_try_may_die(void (*fn)(void *), void *arg);

#endif
