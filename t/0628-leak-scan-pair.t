#!/bin/sh
# A large heap's leak scan builds its index of the recorded blocks on two
# threads (scan/pair.h): half the live table's shards each, then half the
# chunks each.  The verdict must not depend on it: the same leaks, byte
# for byte, as valgrind's, on two threads, on one CPU (taskset: one
# thread), and where no thread can start (a limit on the user's
# processes: the second half then runs on the scanning thread).  The fixture
# holds 340,000 blocks of mixed sizes (some past 64 KiB) in the main arena
# and a thread's, two chains with segments dropped from them.
. "$(dirname "$0")/lib.sh"
plan 26

cat >pairheap.c <<'EOF2'
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <heapprof.h>
/* A heap of blocks of mixed sizes, some past 64 KiB, in the main arena and
 * in a thread's: two chains held by globals, each block also pointing to
 * an earlier block of its own segment (start or interior).  The chains
 * are cut in places, each cut dropping a segment: its first block lost
 * directly, the rest indirectly (their pointers stay within it). */
struct node { struct node *next, *back; };
static struct node *volatile heads[2];
static uint64_t seed = 88172645463325252ULL;
static uint64_t rnd(void) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed; }
static size_t fixed_size;   /* "few": every block this size */
static size_t size_of(long i)
{
	if (fixed_size)
		return fixed_size;
	uint64_t r = rnd() % 1000;
	if (i % 20000 == 7)
		return 70000 + rnd() % 300000;          /* big */
	return r < 700 ? 16 + rnd() % 112 : r < 950 ? 128 + rnd() % 3968 : 4096 + rnd() % 20000;
}
static void chain(int which, long n, long cut_every, long seg)
{
	struct node *last = NULL, *lost_prev = NULL;
	long lost_left = 0;

	for (long i = 0; i < n; i++) {
		size_t sz = size_of(i);
		struct node *b = malloc(sz);
		memset(b, 0, sz);
		if (!lost_left && i % cut_every == cut_every / 2) {
			lost_left = seg;
			lost_prev = NULL;
		}
		if (lost_left) {   /* a dropped segment, chained */
			if (lost_prev)
				lost_prev->next = b;
			lost_prev = b;
			lost_left--;
			continue;
		}
		/* Also a pointer inside the block before it. */
		b->back = last ? (struct node *)((char *)last + 8) : NULL;
		if (last)
			last->next = b;
		else
			heads[which] = b;
		last = b;
	}
}
/* The second thread builds its chain, then waits, still there at the
 * exit (one process more for the user). */
static int ready[2], never[2];
static void *second(void *arg)
{
	char c = 1;
	(void)arg;
	chain(1, 60000, 15000, 5);
	if (write(ready[1], &c, 1) != 1)
		return NULL;
	while (read(never[0], &c, 1) < 0)
		;
	return NULL;
}
extern void *__libc_malloc(size_t);
static void **volatile unrecorded;
/* A block whose only pointer sits in a chunk heapprof never saw (glibc's
 * __libc_malloc, not interposed): a root of the walk of [heap]; and one
 * whose only pointers sit in a freed block: lost.  Before the chain is
 * built, so that no register or live stack slot still holds them. */
static void *volatile passing;
static __attribute__((noinline)) void odd_ones(void)
{
	unrecorded = __libc_malloc(64);
	unrecorded[0] = malloc(300);
	void **holder = malloc(200);
	passing = malloc(100);
	for (int k = 0; k < 25; k++)
		holder[k] = passing;
	passing = NULL;
	free(holder);
}
/* argv: "alone", no second thread (its chain neither); "check", a leak
 * check before the exit (heapprof_leak_check), its figures printed;
 * "few", the main chain of 2,500 blocks of 8 KiB (20 MiB of [heap], too
 * few blocks for the index's second thread). */
int main(int argc, char **argv)
{
	pthread_t t;
	char c;
	int alone = 0, check = 0, few = 0;
	for (int i = 1; i < argc; i++) {
		alone |= !strcmp(argv[i], "alone");
		check |= !strcmp(argv[i], "check");
		few |= !strcmp(argv[i], "few");
	}
	if (pipe(ready) || pipe(never))
		return 2;
	if (!alone && (pthread_create(&t, NULL, second, NULL) || read(ready[0], &c, 1) != 1))
		return 2;
	odd_ones();
	if (few) {
		fixed_size = 8192;
		chain(0, 2500, 1000, 3);
	} else {
		chain(0, 280000, 40000, 3);
	}
	struct heapprof_leaks l;
	if (check && heapprof_leak_check(&l) == 0)
		printf("check: %llu %llu / %llu %llu\n", l.direct_bytes, l.direct_objects, l.indirect_bytes,
		       l.indirect_objects);
	printf("built\n");
	return 0;
}
EOF2
cc -O1 -pthread -I"$SRC/include" -o pairheap pairheap.c || { echo "Bail out! cc cannot build pairheap.c"; exit 1; }
command -v valgrind >/dev/null || { echo "Bail out! valgrind is missing: make deps installs it"; exit 1; }
command -v prlimit >/dev/null && command -v taskset >/dev/null ||
	{ echo "Bail out! prlimit and taskset (util-linux) are missing"; exit 1; }
[ "$(nproc --all)" -gt 1 ] || { echo "Bail out! one CPU: the index's second thread needs two"; exit 1; }

REACH=lg_prof_sample:0,prof_leak:true,leak_check:reachable,prof_leak_error:true,log_level:debug
threads_of() {   # the index's threads in the debug line of the scan
	sed -n 's/.*leak scan: .* index [0-9]* ms (\([0-9]*\) threads*).*/\1/p' "$1"
}
leaks_of() {     # the report's leak lines, sorted
	grep -E '(Direct|Indirect) leak of|SUMMARY' "$1" | sort
}

valgrind --leak-check=full ./pairheap >/dev/null 2>vg.err
want="$(vg_of definitely vg.err) / $(vg_of indirectly vg.err)"
is "$want" "47308 12 / 34537 30" "valgrind: 12 blocks definitely lost, 30 indirectly"

prof "$REACH" ./pairheap >out 2>two.err
is "$?" 1 "two threads: the gate fails the program"
is "$(sum_of Direct two.err) / $(sum_of Indirect two.err)" "$want" \
	"two threads: heapprof's direct / indirect leaks are valgrind's"
is "$(threads_of two.err)" 2 "the index was built on two threads"
like "$(cat two.err)" 'leak scan: 340[0-9]{3} blocks,' "the scan read all 340,000 blocks"

prof "$REACH" taskset -c 0 ./pairheap >out 2>one.err
is "$?" 1 "one CPU: the gate fails the program"
is "$(threads_of one.err)" 1 "one CPU: the index is built on one thread"
is "$(leaks_of one.err)" "$(leaks_of two.err)" "one CPU: the same leaks, line for line"

# No thread can start: two processes for the user, which the program's
# two threads take (root is not held to it: nobody then).
if [ "$(id -u)" = 0 ]; then
	chmod 755 "$T_DIR"
	set -- setpriv --reuid=65534 --regid=65534 --clear-groups prlimit --nproc=2
else
	set -- prlimit --nproc=2
fi
HEAPPROF_CONF=$REACH LD_PRELOAD=$LIB "$@" ./pairheap >out 2>none.err
is "$?" 1 "no thread can start: the gate fails the program"
is "$(threads_of none.err)" 1 "no thread can start: the index is built on one thread"
is "$(leaks_of none.err)" "$(leaks_of two.err)" "no thread can start: the same leaks, line for line"

# A check of the running process: on two threads when the program has
# threads of its own; a single-threaded program stays single-threaded
# until its exit, whose scan may take two.
prof "$REACH" ./pairheap check >out 2>live.err
is "$(threads_of live.err | tr '\n' ' ')" "2 2 " "a check of a threaded process, then its exit: two threads each"
is "$(sed -n 's/^check: //p' out)" "$(sum_of Direct two.err) / $(sum_of Indirect two.err)" \
	"the check finds the leaks the exit does"
prof "$REACH" ./pairheap alone check >out 2>alone.err
is "$(threads_of alone.err | tr '\n' ' ')" "1 2 " \
	"a single-threaded program: its check on one thread, its exit's scan on two"
like "$(sed -n 's/^check: //p' out)" '^[0-9]+ 8 / [0-9]+ 14$' "its check: 8 blocks lost, 14 of them indirectly"

prof "$REACH,helper_thread:never" ./pairheap >out 2>never.err
is "$(threads_of never.err):$(leaks_of never.err | grep -c "leak of")" "1:5" \
	"helper_thread:never: no thread of heapprof's, not even for the exit's scan; the same five leak records"

# A large main heap of few blocks: the index on one thread, the walk of
# [heap] (for the chunks heapprof never saw, the 300-byte block's only
# holder among them) on a second one beside the marking.
beside_of() {   # 1 when the scan walked the main heap beside the marking
	grep -c 'leak scan: .*(the main heap walked beside the marking)' "$1"
}
valgrind --leak-check=full ./pairheap alone few >/dev/null 2>vg.err
want="$(vg_of definitely vg.err) / $(vg_of indirectly vg.err)"
prof "$REACH" ./pairheap alone few >out 2>few.err
is "$?:$(sum_of Direct few.err) / $(sum_of Indirect few.err)" "1:$want" \
	"20 MiB in 2,500 blocks: heapprof's direct / indirect leaks are valgrind's ($want)"
is "$(threads_of few.err):$(beside_of few.err)" "1:1" \
	"20 MiB in 2,500 blocks: the index on one thread, the main heap walked beside the marking"
prof "$REACH" taskset -c 0 ./pairheap alone few >out 2>fewone.err
is "$(threads_of fewone.err):$(beside_of fewone.err)" "1:0" "one CPU: the main heap walked after the marking"
is "$(leaks_of fewone.err)" "$(leaks_of few.err)" "one CPU: the same leaks, line for line"

# Programs nobody here wrote, freeing most of a large heap before they
# exit: few blocks left in many MB of [heap], walked beside the marking.
# perl's lexical hash of 100,000 entries (freed at exit; perl's own
# arenas stay), against valgrind; python3 with every object through
# malloc, its list of 300,000 strings deleted: no leak, as valgrind says.
# (PERL_HASH_SEED: the same run twice.)
export PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0
perl_leaks() {   # perl_leaks PROGRAM ERR: $want from valgrind, $got from heapprof
	valgrind --leak-check=full perl -e "$1" >/dev/null 2>vg.err
	want="$(vg_of definitely vg.err) / $(vg_of indirectly vg.err)"
	prof "$REACH" perl -e "$1" >out 2>"$2"
	got="$?:$(sum_of Direct "$2") / $(sum_of Indirect "$2")"
}
perl_leaks 'my %h; $h{$_} = "x" x 20 for 1..100000' pfreed.err
is "$got:$(beside_of pfreed.err)" "1:$want:1" \
	"perl's freed hash: heapprof's leaks are valgrind's ($want), the main heap walked beside the marking"
python=/usr/bin/python3   # not a shim on PATH: those are bash scripts
[ -x "$python" ] || python=$(command -v python3)
py_freed='x = [str(i) * 3 for i in range(300000)]; del x'
PYTHONMALLOC=malloc valgrind --leak-check=full "$python" -c "$py_freed" >/dev/null 2>vg.err
PYTHONMALLOC=malloc prof "$REACH" "$python" -c "$py_freed" >out 2>pyfreed.err
is "$?:$(sum_of Direct pyfreed.err) / $(sum_of Indirect pyfreed.err):$(beside_of pyfreed.err)" \
	"0:$(vg_of definitely vg.err) / $(vg_of indirectly vg.err):1" \
	"python3's deleted list: no leak, as valgrind says, the main heap walked beside the marking"

# A program nobody here wrote: perl's hash of 150,000 entries, kept in a
# global, 300,000 blocks at exit.
perl_leaks 'our %h; $h{$_} = "x" x 20 for 1..150000' perl.err
is "$got" "1:$want" \
	"perl: heapprof's direct / indirect leaks are valgrind's definitely / indirectly lost ($want)"
is "$(threads_of perl.err)" 2 "perl: the index was built on two threads"

# Under valgrind the process's mappings hold valgrind's own memory too,
# which it maps and unmaps as it goes, even while the scan runs (here,
# some time after the index's second thread ended: the scan then read a
# mapping it had listed, gone, and the program died of SIGSEGV).  The
# scan leaves valgrind's memory out (it is not the program's), and
# builds the index on one thread (valgrind runs one at a time).
[ -x "$HP_BUILD/bench/bigheap" ] || { echo "Bail out! $HP_BUILD/bench/bigheap is missing: run make check"; exit 1; }
HEAPPROF_CONF=$REACH LD_PRELOAD=$LIB valgrind --tool=callgrind --callgrind-out-file=/dev/null \
	"$HP_BUILD/bench/bigheap" 32 107 100 >out 2>vgrun.err
is "$?:$(grep -c 'Process terminating' vgrun.err):$(grep -o 'SUMMARY: heapprof: .*' vgrun.err)" \
	"1:0:SUMMARY: heapprof: 10700 byte(s) leaked in 100 allocation(s)." \
	"under callgrind: 313,000 blocks scanned, the 100 lost found, no crash"
is "$(threads_of vgrun.err)" 1 "under valgrind: the index is built on one thread"
