/*
 * uring.c -- io_uring (liburing): reads a file through io_uring, some with
 * IOSQE_ASYNC so that the kernel's io-wq workers (iou-wrk-N, threads of
 * this process in /proc/self/task) serve them, while the program
 * allocates; then leaves a read on an empty pipe pending in an io-wq
 * worker (or poll) and exits with it in flight: the leak scan's
 * stop-the-world lists /proc/self/task, where the worker shows up, and a
 * kernel worker never runs a signal handler.  "sqpoll" also starts an
 * SQPOLL thread (iou-sqp-N).  For t/0706 (from contrib/trials).
 */
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct io_uring ring;
	struct io_uring_params par;
	memset(&par, 0, sizeof par);
	if (argc > 1 && !strcmp(argv[1], "sqpoll")) {
		par.flags |= IORING_SETUP_SQPOLL;
		par.sq_thread_idle = 100;
	}
	int err = io_uring_queue_init_params(64, &ring, &par);
	if (err) { fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-err)); return 2; }
	int fd = open("/proc/self/exe", O_RDONLY);
	long total = 0;
	for (int round = 0; round < 200; round++) {
		char *bufs[16];
		for (int i = 0; i < 16; i++) {
			bufs[i] = malloc(4096);
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			io_uring_prep_read(sqe, fd, bufs[i], 4096, (off_t)i * 4096);
			if (i & 1)
				sqe->flags |= IOSQE_ASYNC;   /* to an io-wq worker */
			sqe->user_data = i;
		}
		io_uring_submit(&ring);
		for (int i = 0; i < 16; i++) {
			struct io_uring_cqe *cqe;
			io_uring_wait_cqe(&ring, &cqe);
			total += cqe->res;
			io_uring_cqe_seen(&ring, cqe);
			free(malloc(100 + i));
		}
		for (int i = 0; i < 16; i++) free(bufs[i]);
	}
	printf("read %ld bytes in 3200 io_uring reads\n", total);
	/* a read that never completes, in an io-wq worker, at exit */
	int p[2];
	pipe(p);
	static char never[16];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], never, sizeof never, 0);
	sqe->flags |= IOSQE_ASYNC;
	io_uring_submit(&ring);
	usleep(20000);
	char path[64];
	int workers = 0;
	snprintf(path, sizeof path, "/proc/self/task");
	FILE *ls = popen("ls /proc/$PPID/task | wc -l", "r");
	if (ls) { if (fscanf(ls, "%d", &workers) != 1) workers = 0; pclose(ls); }
	fprintf(stderr, "tasks at exit (with io-wq workers): %d\n", workers);
	char *leak = malloc(77);      /* reachable: no leak */
	static char *volatile keep;
	keep = leak;
	(void)keep;
	return 0;
}
