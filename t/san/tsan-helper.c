/*
 * tsan-helper.c -- the signal and helper-thread paths, started as the
 * library starts (control/lifecycle.c's hp_init, minus the interposer):
 * options from HEAPPROF_CONF, the signal handlers, the thread registry,
 * the state file, the helper thread.
 *
 * Then, at once: four threads allocate and free through the slow paths
 * (record/sampled.c) in exact mode, so that every block goes through the
 * stack table, the counters, the live table and the triggers (with
 * dump_at_bytes and lg_prof_interval armed); short-lived threads come and
 * go; two threads ask for dumps (hp_trigger_request, as the handlers do)
 * and one through the dump writer directly (as the API does); the main
 * thread sends SIGUSR1 (dump) and SIGUSR2 (toggle) to the process and to
 * the workers, and asks as heapprof dump/pause/resume do: a control file
 * in the runtime directory (control/remote.h), then the control signal
 * the state file names.  The helper thread takes the requests and writes
 * dumps.  At the end some signal dumps must have been written, and every
 * control file taken.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf/conf.h"
#include "conf/sources.h"
#include "control/helperthread.h"
#include "control/settings.h"
#include "next/next.h"
#include "output/dump.h"
#include "output/statefile.h"
#include "record/sampled.h"
#include "record/switches.h"
#include "record/threads.h"
#include "record/tls.h"
#include "record/trigger.h"
#include "stack/stack.h"

#include "tsan.h"

#define WORKERS 4
#define ALLOCS  20000
#define SIGNALS 200

static char dir[] = "/tmp/heapprof-tsan.XXXXXX";
static pthread_t workers[WORKERS];
static int stop;

/* hp_init, without the interposer's constructor and exit handler. */
static void start(void)
{
	char conf[512];
	struct hp_tls *t = &hp_tls;

	snprintf(conf, sizeof(conf),
		 "lg_prof_sample:0,prof_prefix:%s/d,dump_at_bytes:1M,lg_prof_interval:22,"
		 "prof_final:false,log_level:error", dir);
	setenv("HEAPPROF_CONF", conf, 1);
	setenv("HEAPPROF_RUNTIME_DIR", dir, 1);
	unsetenv("HEAPPROF_CONFIG");
	hp_next_resolve();
	hp_tls_guard_enter(t);
	hp_sources_load();
	hp_switches.enabled = hp_conf.prof;
	hp_switches.lg_sample = (int)hp_conf.lg_prof_sample;
	hp_settings_apply();
	hp_threads_init();
	hp_stack_init();
	hp_statefile_init();
	if (hp_helperthread_start())
		check(0, "the helper thread starts");
	hp_tls_guard_leave(t);
	HP_STORE_REL(&hp_switches.ready, 1);
}

__attribute__((noinline)) static void churn(int me, int n)
{
	void *keep[512] = { 0 };

	for (int i = 0; i < n; i++) {
		int k = i % 512;
		if (keep[k])
			hp_sampled_free(keep[k]);
		keep[k] = hp_sampled_malloc((size_t)(16 + (i * 37 + me) % 2000));
		if (i % 7 == 0)
			keep[k] = hp_sampled_realloc(keep[k], (size_t)(32 + i % 300));
	}
	for (int k = 0; k < 512; k++)
		hp_sampled_free(keep[k]);
}

static void *worker(void *arg)
{
	churn((int)(long)arg, ALLOCS);
	return NULL;
}

static void *short_lived(void *arg)
{
	churn((int)(long)arg, 20);
	return NULL;
}

static void *spawner(void *arg)
{
	(void)arg;
	for (int i = 0; i < 40 && !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); i++)
		run_threads(2, short_lived);
	return NULL;
}

static void *requester(void *arg)
{
	int me = (int)(long)arg;

	for (int i = 0; i < 300 && !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); i++) {
		if (me == 2 && i % 50 == 0) {
			char path[4096];
			hp_dump_auto('m', HP_DUMP_QUIET, path, sizeof(path), NULL);
		} else {
			hp_trigger_request(i % 3 ? HP_REQ_SIGNAL_DUMP : HP_REQ_STATE);
		}
		usleep(500);
	}
	return NULL;
}

/* signal_control in our state file (output/statefile.h), or 0. */
static int control_signal(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4200], line[256];
	int sig = 0;

	while (d && !sig && (e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = e->d_name[0] != '.' ? fopen(path, "re") : NULL;
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "signal_control=", 15))
				sig = atoi(line + 15);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return sig;
}

/* Asks as heapprof dump, pause and resume do. */
static void control(int sig, const char *what)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/ctl.%d.%s", dir, (int)getpid(), what);
	FILE *f = fopen(path, "we");
	if (f)
		fclose(f);
	if (sig)
		kill(getpid(), sig);
}

static int count_ctl(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, "ctl.", 4);
	if (d)
		closedir(d);
	return n;
}

static int count_dumps(char trigger)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char want[8];
	int n = 0;

	/* d.<pid>.<seq>.<trigger>[<n>].<UTC>.heap */
	snprintf(want, sizeof(want), ".%c", trigger);
	while (d && (e = readdir(d))) {
		const char *t = strstr(e->d_name, want);
		n += e->d_name[0] == 'd' && t && (t[2] == '.' || (t[2] >= '0' && t[2] <= '9'));
	}
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	pthread_t sp, rq[3];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	start();
	int ctl = control_signal();
	check(ctl > 0, "the state file names a control signal (%d)", ctl);
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&workers[i], NULL, worker, (void *)(long)i);
	pthread_create(&sp, NULL, spawner, NULL);
	for (int i = 0; i < 3; i++)
		pthread_create(&rq[i], NULL, requester, (void *)(long)i);
	for (int i = 0; i < SIGNALS; i++) {
		int sig = i % 5 == 4 ? SIGUSR2 : SIGUSR1;
		if (i % 2)
			kill(getpid(), sig);
		else
			pthread_kill(workers[i % WORKERS], sig);
		if (i % 10 == 3)
			control(ctl, i % 30 == 3 ? "dump" : i % 30 == 13 ? "pause" : "resume");
		usleep(1000);
	}
	for (int i = 0; i < WORKERS; i++)
		pthread_join(workers[i], NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(sp, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(rq[i], NULL);
	/* A last request, and time for the helper to take it. */
	hp_trigger_request(HP_REQ_SIGNAL_DUMP);
	int s = 0;
	for (int i = 0; i < 100 && !(s = count_dumps('s')); i++)
		usleep(20000);
	usleep(200000);
	s = count_dumps('s');
	for (int i = 0; i < 100 && count_ctl(); i++)
		usleep(20000);
	check(!count_ctl(), "every control file taken (%d left)", count_ctl());
	check(s > 0, "signal dumps written by the helper thread: %d (and %d by the API, %d interval, "
	      "%d threshold)", s, count_dumps('m'), count_dumps('i'), count_dumps('h'));
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (!tsan_failed && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return tsan_failed;
}
