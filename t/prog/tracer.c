/*
 * tracer.c -- a stand-in debugger: seizes process PID with ptrace (no
 * stop), prints "tracing PID" and sleeps until killed; the kernel then
 * lets PID go.  For heapprof attach's refusal of a traced process.
 *
 * usage: tracer PID
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t pid = argc > 1 ? (pid_t)atoi(argv[1]) : 0;

	if (pid <= 0 || ptrace(PTRACE_SEIZE, pid, 0, 0) != 0) {
		perror("tracer: PTRACE_SEIZE");
		return 1;
	}
	printf("tracing %d\n", (int)pid);
	fflush(stdout);
	for (;;)
		pause();
}
