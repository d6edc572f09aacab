/*
 * leaksvc.c -- a service for heapprof leaks: one request path loses a
 * session (lose_session: a direct leak, -n of them, -s bytes each), the
 * other fills a bounded cache (cache_put: 64 entries, the oldest freed;
 * reachable, never a leak).  After the first requests it writes its pid
 * to ./pid and waits (polling every 10 ms) for ./go; then serves the rest,
 * prints what it served to stdout (the same with heapprof or without) and
 * exits 0.
 *
 *   -n N  sessions lost (default 100)     -s B  their size (default 48)
 *   -c N  cache requests (default 1000)   -b    a thread blocked in read(2)
 *   -y    a thread busy computing          -u    a thread blocking every
 *                                               signal (it cannot stop)
 *   -t N  N blocks "in flight": their only pointers hidden (XORed) until
 *         the first leak check's verdict ($HEAPPROF_RUNTIME_DIR/leaks.PID)
 *         appears; then half come back and half are freed
 *   -A    call heapprof_leak_check() once ready, and print what it says
 *         to stderr
 *   -L N  when ./lose appears while waiting, lose N more sessions, then
 *         make ./lost (heapprof attach: the sessions lost after it)
 */
#include <heapprof.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CACHE_SIZE 64
#define HIDE 0x5a5a5a5a5a5a5a5aull

static char *cache[CACHE_SIZE];
static unsigned long cache_next, served;
static volatile int stop_busy;
static int blocker_pipe[2];
static uintptr_t *in_flight;   /* pointers XORed with HIDE */
static int nflight;
static void *volatile sink;

__attribute__((noinline)) static void lose_session(size_t size, unsigned long id)
{
	char *s = malloc(size);
	memset(s, (int)(id & 0x7f), size);
	sink = s;      /* (or the compiler drops the allocation) */
	sink = NULL;   /* the session is dropped: nothing points to it */
	served++;
}

__attribute__((noinline)) static void cache_put(unsigned long key)
{
	char *e = malloc(100);
	snprintf(e, 100, "entry %lu", key);
	unsigned long slot = cache_next++ % CACHE_SIZE;
	free(cache[slot]);
	cache[slot] = e;
	served++;
}

__attribute__((noinline)) static void hide_in_flight(int n)
{
	in_flight = calloc((size_t)n, sizeof(*in_flight));
	for (int i = 0; i < n; i++)
		in_flight[i] = (uintptr_t)malloc(333) ^ HIDE;
	nflight = n;
}

static void land_in_flight(void)
{
	for (int i = 0; i < nflight; i++) {
		in_flight[i] ^= HIDE;
		if (i % 2) {
			free((void *)in_flight[i]);
			in_flight[i] = 0;
		}
	}
}

/* Stale copies of the requests' pointers below the wait loop's frame. */
__attribute__((noinline)) static void scrub(void)
{
	volatile char buf[32768];
	memset((char *)buf, 0, sizeof(buf));
}

static void *blocked(void *arg)
{
	char *mine = malloc(2000), c;
	pthread_setname_np(pthread_self(), "blocked");
	memset(mine, 2, 2000);
	while (read(blocker_pipe[0], &c, 1) < 0)
		;
	free(mine);
	return arg;
}

static void *busy(void *arg)
{
	double *mine = malloc(4096), x = 0;
	pthread_setname_np(pthread_self(), "busy");
	while (!stop_busy)
		for (int i = 0; i < 512; i++)
			x += (mine[i] = x * 0.5 + i);
	free(mine);
	return arg;
}

static void *unstoppable(void *arg)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "unstoppable");
	char *volatile mine = malloc(3000);
	memset(mine, 3, 3000);
	for (;;)
		pause();
	return arg;
}

static void pause_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int lost = 100, cached = 1000, opt, want_blocked = 0, want_busy = 0, want_unstoppable = 0, api = 0;
	int flight = 0, later = 0;
	size_t size = 48;
	pthread_t tb, ty, tu;
	char verdict[4096];

	while ((opt = getopt(argc, argv, "n:s:c:byut:AL:")) != -1) {
		switch (opt) {
		case 'n': lost = atoi(optarg); break;
		case 's': size = (size_t)atol(optarg); break;
		case 'c': cached = atoi(optarg); break;
		case 'b': want_blocked = 1; break;
		case 'y': want_busy = 1; break;
		case 'u': want_unstoppable = 1; break;
		case 't': flight = atoi(optarg); break;
		case 'A': api = 1; break;
		case 'L': later = atoi(optarg); break;
		default: return 2;
		}
	}
	if (want_blocked && (pipe(blocker_pipe) || pthread_create(&tb, NULL, blocked, NULL)))
		return 1;
	if (want_busy && pthread_create(&ty, NULL, busy, NULL))
		return 1;
	if (want_unstoppable && pthread_create(&tu, NULL, unstoppable, NULL))
		return 1;
	for (int i = 0; i < lost || i < cached; i++) {
		if (i < lost)
			lose_session(size, (unsigned long)i);
		if (i < cached)
			cache_put((unsigned long)i);
	}
	if (flight)
		hide_in_flight(flight);
	scrub();
	if (api) {
		struct heapprof_leaks l;
		int rc = heapprof_leak_check(&l);
		fprintf(stderr, "api: rc=%d direct_bytes=%llu direct_objects=%llu indirect_bytes=%llu check=%u "
			"estimated=%d not_stopped=%u\n", rc, l.direct_bytes, l.direct_objects, l.indirect_bytes,
			l.check, l.estimated, l.threads_not_stopped);
	}
	FILE *f = fopen("pid", "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	const char *rd = getenv("HEAPPROF_RUNTIME_DIR");
	snprintf(verdict, sizeof(verdict), "%s/leaks.%d", rd ? rd : ".", (int)getpid());
	while (access("go", F_OK) != 0) {
		if (later && access("lose", F_OK) == 0) {
			for (int i = 0; i < later; i++)
				lose_session(size, (unsigned long)i);
			later = 0;
			scrub();
			fclose(fopen("lost", "w"));
		}
		if (nflight && access(verdict, F_OK) == 0) {
			land_in_flight();
			nflight = 0;
		}
		pause_ms(10);
	}
	for (int i = 0; i < cached; i++)
		cache_put((unsigned long)(cached + i));
	unsigned long sum = 0;
	for (int i = 0; i < CACHE_SIZE; i++)
		for (const char *p = cache[i]; p && *p; p++)
			sum = sum * 31 + (unsigned char)*p;
	printf("served %lu requests; cache checksum %lu\n", served, sum);
	if (want_busy) {
		stop_busy = 1;
		pthread_join(ty, NULL);
	}
	if (want_blocked) {
		(void)!write(blocker_pipe[1], "x", 1);
		pthread_join(tb, NULL);
	}
	for (int i = 0; i < CACHE_SIZE; i++)
		free(cache[i]);
	return 0;
}
