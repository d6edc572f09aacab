/* A parent ends its worker with SIGUSR1, whose default action terminates
 * (Erlang's inet_gethost does exactly this to its forked workers at
 * shutdown).  Bare: the child dies of SIGUSR1.  Prints how the child
 * ended. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int p[2];
	pipe(p);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		write(p[1], "r", 1);      /* ready */
		for (int i = 0; i < 30; i++) {
			free(malloc(1000));
			sleep(1);
		}
		_exit(0);
	}
	char c;
	read(p[0], &c, 1);
	kill(pid, SIGUSR1);
	int st;
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st))
		printf("worker killed by signal %d\n", WTERMSIG(st));
	else
		printf("worker exited with %d\n", WEXITSTATUS(st));
	return 0;
}
