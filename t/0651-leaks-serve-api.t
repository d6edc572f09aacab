#!/bin/sh
# A leak check of a running process from heapprof serve
# (/debug/leaks?pid=N) and from the program itself, on several threads at
# once (heapprof_leak_check(): one check at a time, each complete).
. "$(dirname "$0")/lib.sh"
plan 16

export HEAPPROF_RUNTIME_DIR=$T_DIR/run
mkdir -p run s
(cd s && LD_PRELOAD=$LIB HEAPPROF_CONF=lg_prof_sample:0 "$TP/leaksvc" -b >out 2>err; echo $? >status.t; mv status.t status) &
n=0
while [ ! -s s/pid ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
pid=$(cat s/pid)

timeout --foreground 60 "$BIN" serve --listen 127.0.0.1:0 >serve.out 2>serve.err &
serve=$!
n=0
while ! grep -q listening serve.out 2>/dev/null && [ $n -lt 500 ]; do sleep 0.01; n=$((n + 1)); done
url=$(sed -n 's|^heapprof serve: listening on \(http://.*\)/$|\1|p' serve.out)

curl -s -D hdr -o body.txt "$url/debug/leaks?pid=$pid"
like "$(head -n 1 hdr)" '^HTTP/1.1 200 OK' "/debug/leaks?pid=N: 200"
like "$(cat hdr)" '^X-Heapprof-Leaked: yes' "a header says something leaked"
like "$(cat body.txt)" '^    #0 0x[0-9a-f]+ in lose_session .*leaksvc\.c:[0-9]+$' "the report names the leak with file:line"
like "$(cat body.txt)" '^SUMMARY: heapprof: 4800 byte\(s\) leaked in 100 allocation\(s\)\.$' "exactly"
curl -s -o body.json "$url/debug/leaks?pid=$pid&format=json"
is "$(python3 -c 'import json; d = json.load(open("body.json")); print(d["leaked_bytes"], d["leaks"][0]["frames"][0]["function"])')" \
	"4800 lose_session" "format=json: the JSON of heapprof leaks --json"
curl -s -o conf.txt "$url/debug/leaks?pid=$pid&confirm=2&interval=0.2"
like "$(cat conf.txt)" '^confirmed: only the blocks unreachable in each of 2 checks 0.2 s apart' "confirm=2&interval=0.2"
like "$(curl -s "$url/")" "<a href=\"/debug/leaks\\?pid=$pid\">leaks</a>" "the list at / links each process's leak check"
code=$(curl -s -o bad.txt -w '%{http_code}' "$url/debug/leaks?pid=x")
is "$code:$(cat bad.txt)" "400:pid: want a process ID, as in /debug/leaks?pid=4242" "a bad pid: 400, one line"
code=$(curl -s -o bad.txt -w '%{http_code}' "$url/debug/leaks?pid=$pid&interval=3")
is "$code" 400 "interval without confirm: 400"
sleep 30 & spid=$!
code=$(curl -s -o bad.txt -w '%{http_code}' "$url/debug/leaks?pid=$spid")
like "$code:$(cat bad.txt)" "^404:process $spid .*not .*heapprof" "a process without heapprof: 404"
kill $spid
touch s/go
n=0
while [ ! -e s/status ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
is "$(cat s/status)" 0 "the service ends normally"
kill $serve
wait $serve 2>/dev/null

# ---- the API from 4 threads at once -------------------------------------
cat >apithreads.c <<'C'
#include <heapprof.h>
#include <pthread.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void *volatile sink;
static struct heapprof_leaks got[4];
static int rc[4];
static void *check(void *arg)
{
	int i = (int)(long)arg;
	rc[i] = heapprof_leak_check(&got[i]);
	return NULL;
}
__attribute__((noinline)) static void lose(void)
{
	for (int i = 0; i < 10; i++) {
		sink = malloc(111);
		sink = NULL;
	}
}
__attribute__((noinline)) static void scrub(void)
{
	volatile char b[16384];
	memset((char *)b, 0, sizeof(b));
}
static void *losing(void *arg)
{
	lose();
	return arg;
}
int main(void)
{
	pthread_t t[4], l;
	/* Lost on a thread that ends: no register of the checked threads
	 * (the vector registers included, which the scan reads in their
	 * signal frames) keeps a stale copy of a lost pointer.  On a stack
	 * of its own, unmapped after: glibc would give its cached stack to
	 * the next thread, whose frames' unwritten slots would still hold
	 * copies of the lost pointers (a scan of a live stack reads them,
	 * as LeakSanitizer's does: a leak missed, never one invented). */
	pthread_attr_t la;
	size_t lsz = 1 << 20;
	void *lstk = mmap(NULL, lsz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (lstk == MAP_FAILED)
		return 1;
	pthread_attr_init(&la);
	pthread_attr_setstack(&la, lstk, lsz);
	pthread_create(&l, &la, losing, NULL);
	pthread_join(l, NULL);
	munmap(lstk, lsz);
	scrub();
	/* New threads start with this thread's registers: none may carry a
	 * copy of a pointer the library's own copies left in a vector
	 * register. */
	__asm__ volatile("pxor %%xmm0, %%xmm0\n pxor %%xmm1, %%xmm1\n pxor %%xmm2, %%xmm2\n"
			 "pxor %%xmm3, %%xmm3\n pxor %%xmm4, %%xmm4\n pxor %%xmm5, %%xmm5\n"
			 "pxor %%xmm6, %%xmm6\n pxor %%xmm7, %%xmm7\n pxor %%xmm8, %%xmm8\n"
			 "pxor %%xmm9, %%xmm9\n pxor %%xmm10, %%xmm10\n pxor %%xmm11, %%xmm11\n"
			 "pxor %%xmm12, %%xmm12\n pxor %%xmm13, %%xmm13\n pxor %%xmm14, %%xmm14\n"
			 "pxor %%xmm15, %%xmm15\n" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			 "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, check, (void *)i);
	unsigned seen = 0;
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		printf("rc=%d bytes=%llu objects=%llu\n", rc[i], got[i].direct_bytes, got[i].direct_objects);
		seen |= 1u << got[i].check;
	}
	printf("checks %s\n", seen == 0x1e ? "1-4" : "overlap");
	return 0;
}
C
cc -O2 -I"$SRC/include" -o apithreads apithreads.c -lpthread
LD_PRELOAD=$LIB HEAPPROF_CONF=lg_prof_sample:0 ./apithreads >api.out 2>api.err
is $? 0 "heapprof_leak_check() from 4 threads at once"
is "$(grep -c '^rc=0 bytes=1110 objects=10$' api.out)" 4 "each gets the whole verdict: 1110 bytes in 10 objects"
is "$(tail -n 1 api.out)" "checks 1-4" "the checks ran one after another, numbered 1 to 4"
is "$(cat api.err)" "" "and the program's output is its own"

# ---- fork while a check runs: the child's own checks do not wait -------------
cat >forkcheck.c <<'C'
#include <heapprof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile int done;
static void *checker(void *arg)
{
	struct heapprof_leaks l;
	while (!done)
		heapprof_leak_check(&l);
	return arg;
}
int main(void)
{
	pthread_t t;
	int ok = 0;
	for (int i = 0; i < 1000; i++)
		free(malloc(100 + i));   /* a heap to scan */
	pthread_create(&t, NULL, checker, NULL);
	for (int i = 0; i < 40; i++) {
		pid_t p = fork();
		if (p == 0) {
			struct heapprof_leaks l;
			alarm(10);   /* a child that waits for ever dies of SIGALRM */
			_exit(heapprof_leak_check(&l) == 0 && l.check == 1 ? 0 : 1);
		}
		int st;
		waitpid(p, &st, 0);
		ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	done = 1;
	pthread_join(t, NULL);
	printf("%d children checked\n", ok);
	return 0;
}
C
cc -O2 -I"$SRC/include" -o forkcheck forkcheck.c -lpthread
LD_PRELOAD=$LIB HEAPPROF_CONF=lg_prof_sample:0 timeout 120 ./forkcheck >fork.out 2>fork.err
is "$?:$(cat fork.out)" "0:40 children checked" \
	"40 children forked while a thread checks again and again: each child's own check runs (its first), none waits for ever"

done_testing
