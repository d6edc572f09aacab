/*
 * kidstorm.c -- a storm of short-lived children (t/0742): forks N
 * children (argv[1]) one after another; each allocates, then child i
 * ends by i % 3: 0, _exit(0); 1, exit(0); 2, it waits to be killed, and
 * the parent SIGKILLs it after argv[2] microseconds (0: at once), often
 * while the child's helper thread is still publishing its state file;
 * with argv[2] = -1 none is killed: those children _exit(0) too.
 * The parent reaps every child and exits 0.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile sink;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	int delay = argc > 2 ? atoi(argv[2]) : 1000;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			sink = malloc(1000);
			if (i % 3 == 0)
				_exit(0);
			if (i % 3 == 1)
				exit(0);
			if (delay < 0)
				_exit(0);
			for (;;)
				pause();
		}
		if (i % 3 == 2 && delay >= 0) {
			if (delay)
				usleep((useconds_t)delay);
			kill(pid, SIGKILL);
		}
		waitpid(pid, NULL, 0);
	}
	return 0;
}
