/*
 * leaktruth.c -- leaks whose exact size the program knows, for the truth
 * corpus of the leak gate (t/0612-leak-truth.t): heapprof's verdict
 * against valgrind memcheck's and LeakSanitizer's (the same source built
 * with gcc -fsanitize=leak as build/t/lsan/leaktruth).
 *
 *   leaktruth MODE N          one case in this process
 *   leaktruth MODE N1 N2 ...  one case per N, each in a child of its own
 *                             (forked, run, then returning from main), one
 *                             after the other: one valgrind or LSan
 *                             process gives every N's verdict
 *
 * Each case writes to stderr, first "leaktruth: case MODE N pid PID" and,
 * once its leaks are made, "leaktruth: truth MODE N total B/K direct B/K
 * indirect B/K" (bytes/blocks): what it dropped, which valgrind's
 * definitely and indirectly lost, LeakSanitizer's and heapprof's direct
 * and indirect leaks must equal.
 * The process then exits through main's return, so that every tool's
 * report follows its case line on stderr; the parent of several cases
 * writes "leaktruth: parent PID done" before its own exit (nothing
 * leaks there).  The modes are issue 20's mechanisms:
 *
 *   top        q = malloc(3000); free(q); p = malloc(N); p dropped.
 *              p's chunk ends at the top chunk, whose header (main_arena
 *              points at it) lies inside p's last 8 bytes when N % 16 is
 *              1..8                                   direct N/1
 *   indirect   the same start, then a 48-byte outer block holding the only
 *              pointer to an N-byte inner one, allocated last; outer dropped
 *                                                     direct 48/1, indirect N/1
 *   realloc    malloc(16), realloc to 100, 1000, then N, dropped: N/1
 *   interleave 8 rounds of: an N-byte leak, an N-byte neighbour after it,
 *              an N-byte block kept live in a global; then every neighbour
 *              is freed (tcache, fastbins or the unsorted bin, whose
 *              pointers at chunk headers land in the leaks' last bytes)
 *                                                     direct 8N/8
 *   member     10 structs (48 bytes, the buffer pointer at offset 16, past
 *              what tcache and fastbins write into a free chunk) each
 *              owning an N-byte buffer; the 10 structs freed, the buffers
 *              forgotten (7 structs go to tcache, 3 to a fastbin)
 *                                                     direct 10N/10
 *   ptrarray   10 arrays of 8 pointers, each element an N-byte block; the
 *              arrays freed, the elements forgotten    direct 80N/80
 *   environ    putenv() of an N-byte "LEAKTRUTH_ENV=xx..." string: reachable
 *              from environ only, not a leak              0/0.
 *              Valgrind is wrong here: it frees the environment array
 *              (__libc_freeres) before its scan and reports the string as
 *              definitely lost
 *   churn      N is a seed: 100,000 random operations on 2048 slots
 *              (sizes 1..4096 and 1 in 400 of 128 KiB..1 MiB, malloc,
 *              calloc, realloc, free) where 3% of the operations on a
 *              full slot drop its block.  A block of 24 bytes or more may
 *              hold, at offset 16, the one copy of a pointer to another
 *              live block; that copy is zeroed when the other block is
 *              freed, moved or dropped, and a block dropped points
 *              nowhere, so a dropped block is referenced from nowhere but
 *              freed memory.  The truth is the dropped bytes and blocks,
 *              all direct
 *
 * Every block is filled with a byte pattern that is no pointer, so no
 * stale address survives in a live block; a dropped pointer lives only in
 * a volatile global that is then overwritten, and clobber() overwrites
 * the dead stack below main before the case returns.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile sink;
static const char *mode = "";

/* Overwrites 64 KiB of dead stack: nothing left there from the case. */
__attribute__((noinline)) static void clobber(void)
{
	volatile char pad[64 * 1024];

	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = 0;
}

/* An allocation filled with a pattern, so that it holds no address. */
__attribute__((noinline)) static void *filled(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		perror("leaktruth: malloc");
		exit(1);
	}
	memset(p, 0xa5, n);
	return p;
}

/* What the case dropped: the direct and the indirect leaks. */
static void truth(size_t n, size_t db, size_t dk, size_t ib, size_t ik)
{
	fprintf(stderr, "leaktruth: truth %s %zu total %zu/%zu direct %zu/%zu indirect %zu/%zu\n",
		mode, n, db + ib, dk + ik, db, dk, ib, ik);
}

/* ---- 1. glibc's bookkeeping ------------------------------------------- */

/* A 3000-byte block freed back into the top chunk (or a bin). */
__attribute__((noinline)) static void churn_top(void)
{
	void *q = filled(3000);

	sink = q;
	free(q);
	sink = NULL;
}

__attribute__((noinline)) static void leak_top(size_t n)
{
	churn_top();
	sink = filled(n);
	sink = NULL;
	truth(n, n, 1, 0, 0);
}

struct outer {
	char pad[16];
	char *inner; /* past tcache's and fastbins' words: a free outer keeps it */
	char tail[24];
};

__attribute__((noinline)) static void leak_indirect(size_t n)
{
	churn_top();
	struct outer *o = filled(sizeof(*o));
	o->inner = filled(n);
	sink = o;
	o = NULL;
	sink = NULL;
	truth(n, sizeof(struct outer), 1, n, 1);
}

__attribute__((noinline)) static void leak_realloc(size_t n)
{
	static const size_t steps[] = { 100, 1000 };
	char *p = filled(16);

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		p = realloc(p, steps[i]);
		memset(p, 0xa5, steps[i]);
		sink = p;
	}
	p = realloc(p, n);
	memset(p, 0xa5, n);
	sink = p;
	sink = NULL;
	truth(n, n, 1, 0, 0);
}

#define ROUNDS 8
static void *volatile live[ROUNDS];

__attribute__((noinline)) static void leak_interleave(size_t n)
{
	void *next[ROUNDS];

	for (int i = 0; i < ROUNDS; i++) {
		sink = filled(n);    /* the leak */
		next[i] = filled(n); /* its neighbour, freed below */
		live[i] = filled(n); /* live until exit */
	}
	sink = NULL;
	for (int i = 0; i < ROUNDS; i++) {
		free(next[i]);
		next[i] = NULL;
	}
	truth(n, ROUNDS * n, ROUNDS, 0, 0);
}

/* ---- 2. freed memory that held the only pointer ------------------------ */

struct rec {
	long id;
	long tag;
	char *buf; /* offset 16: tcache writes next and key at 0 and 8 */
	char name[24];
};

#define RECS 10

__attribute__((noinline)) static void leak_member(size_t n)
{
	struct rec *r[RECS];

	for (int i = 0; i < RECS; i++) {
		r[i] = filled(sizeof(*r[i]));
		r[i]->buf = filled(n);
	}
	for (int i = 0; i < RECS; i++) {
		free(r[i]); /* the buffer forgotten */
		r[i] = NULL;
	}
	truth(n, RECS * n, RECS, 0, 0);
}

#define ARRAYS 10
#define ELEMS 8

__attribute__((noinline)) static void leak_ptrarray(size_t n)
{
	void **a[ARRAYS];

	for (int i = 0; i < ARRAYS; i++) {
		a[i] = filled(ELEMS * sizeof(void *));
		for (int j = 0; j < ELEMS; j++)
			a[i][j] = filled(n);
	}
	for (int i = 0; i < ARRAYS; i++) {
		free(a[i]); /* the elements forgotten */
		a[i] = NULL;
	}
	truth(n, ARRAYS * ELEMS * n, ARRAYS * ELEMS, 0, 0);
}

/* ---- valgrind's blind spot: a block only environ reaches --------------- */

__attribute__((noinline)) static void hold_environ(size_t n)
{
	static const char name[] = "LEAKTRUTH_ENV=";
	char *s = filled(n);

	if (n < sizeof(name) + 1) {
		fprintf(stderr, "leaktruth: environ: N must be at least %zu\n", sizeof(name) + 1);
		exit(2);
	}
	memcpy(s, name, sizeof(name) - 1);
	s[n - 1] = '\0';
	putenv(s);
	s = NULL;
	truth(n, 0, 0, 0, 0);
}

/* ---- 4. random churn ------------------------------------------------- */

#define SLOTS 2048
#define OPS 100000
#define REF 16 /* where a block of REF + 8 bytes or more keeps its reference */

static char *volatile slot[SLOTS];
static size_t size[SLOTS];
static int refto[SLOTS];    /* the slot this slot's block references, or -1 */
static int referrer[SLOTS]; /* the slot whose block references this one, or -1 */
static uint64_t rng;

static uint64_t next_random(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static size_t random_size(void)
{
	if (next_random() % 400 == 0)
		return 128 * 1024 + 1 + next_random() % (896 * 1024);
	return 1 + next_random() % 4096;
}

/* The block in slot s goes (freed, moved or dropped): nothing live may
 * still point at it, and what it pointed at is free to be referenced. */
static void unlink_slot(int s)
{
	if (referrer[s] >= 0) {
		memset(slot[referrer[s]] + REF, 0xa5, sizeof(void *));
		refto[referrer[s]] = -1;
		referrer[s] = -1;
	}
	if (refto[s] >= 0) {
		referrer[refto[s]] = -1;
		refto[s] = -1;
	}
}

/* Maybe stores in slot s's block the one live copy of another's address. */
static void link_slot(int s)
{
	int t = (int)(next_random() % SLOTS);

	if (size[s] < REF + sizeof(void *) || t == s || !slot[t] || referrer[t] >= 0)
		return;
	memcpy(slot[s] + REF, (const void *)&slot[t], sizeof(void *));
	refto[s] = t;
	referrer[t] = s;
}

__attribute__((noinline)) static void churn(size_t seed)
{
	size_t dropped = 0, drops = 0;

	rng = 0x9e3779b97f4a7c15ULL ^ (seed * 0xbf58476d1ce4e5b9ULL);
	for (int s = 0; s < SLOTS; s++)
		refto[s] = referrer[s] = -1;
	for (int op = 0; op < OPS; op++) {
		int s = (int)(next_random() % SLOTS);
		unsigned r = (unsigned)(next_random() % 100);

		if (!slot[s]) {
			size[s] = random_size();
			if (r < 10) {
				slot[s] = calloc(1, size[s]);
				memset(slot[s], 0xa5, size[s]);
			} else {
				slot[s] = filled(size[s]);
			}
			link_slot(s);
		} else if (r < 70) {
			unlink_slot(s);
			free(slot[s]);
			slot[s] = NULL;
		} else if (r < 97) {
			unlink_slot(s);
			size[s] = random_size();
			slot[s] = realloc(slot[s], size[s]);
			memset(slot[s], 0xa5, size[s]);
			link_slot(s);
		} else {
			/* a dropped block points nowhere: one that did could
			 * point into a block made later where the first was
			 * (valgrind: "possibly lost") */
			if (refto[s] >= 0)
				memset(slot[s] + REF, 0xa5, sizeof(void *));
			unlink_slot(s);
			dropped += size[s];
			drops++;
			slot[s] = NULL;
		}
	}
	truth(seed, dropped, drops, 0, 0);
}

/* ---- the cases --------------------------------------------------------- */

static const struct {
	const char *name;
	void (*run)(size_t n);
} modes[] = {
	{ "top", leak_top },
	{ "indirect", leak_indirect },
	{ "realloc", leak_realloc },
	{ "interleave", leak_interleave },
	{ "member", leak_member },
	{ "ptrarray", leak_ptrarray },
	{ "environ", hold_environ },
	{ "churn", churn },
};

static int usage(void)
{
	fprintf(stderr, "usage: leaktruth top|indirect|realloc|interleave|member|ptrarray"
			"|environ|churn N [N...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	void (*run)(size_t) = NULL;

	if (argc < 3)
		return usage();
	mode = argv[1];
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(modes[i].name, mode))
			run = modes[i].run;
	if (!run)
		return usage();
	for (int i = 2; i < argc; i++) {
		size_t n = strtoul(argv[i], NULL, 10);
		pid_t pid = 0;
		int status;

		if (argc > 3) {
			fflush(NULL);
			pid = fork();
			if (pid < 0) {
				perror("leaktruth: fork");
				return 1;
			}
		}
		if (pid == 0) {
			fprintf(stderr, "leaktruth: case %s %zu pid %d\n", mode, n, (int)getpid());
			run(n);
			clobber();
			return 0;
		}
		if (waitpid(pid, &status, 0) != pid) {
			perror("leaktruth: waitpid");
			return 1;
		}
	}
	fprintf(stderr, "leaktruth: parent %d done\n", (int)getpid());
	return 0;
}
