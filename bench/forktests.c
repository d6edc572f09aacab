/*
 * forktests.c -- a test harness in libcheck's CK_FORK style for the leak
 * gate's benchmark (bench/gate.sh): the parent builds a fixture of
 * argv[1] blocks (default 1,000,000: a linked list of 64-byte nodes, held
 * by a global), then runs argv[2] tests (default 20), each in a child of
 * its own that allocates a little (1,000 blocks), leaks one block in
 * every third test, and exits; the parent waits for each and exits too.
 * So each child's exit is a leak check of the whole inherited heap.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct node {
	struct node *next;
	char pad[56];
};

static struct node *volatile fixture;
static void *volatile sink;

static void run_test(unsigned t)
{
	struct node *mine = NULL;

	for (int i = 0; i < 1000; i++) {
		struct node *b = calloc(1, sizeof(*b));
		b->next = mine;
		mine = b;
	}
	if (t % 3 == 0)
		sink = malloc(100 + t);   /* the leak: overwritten below */
	sink = NULL;
	while (mine) {
		struct node *next = mine->next;
		free(mine);
		mine = next;
	}
}

int main(int argc, char **argv)
{
	size_t blocks = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	unsigned tests = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 20;
	int failed = 0;

	for (size_t i = 0; i < blocks; i++) {
		struct node *b = calloc(1, sizeof(*b));
		if (!b)
			return 1;
		b->next = fixture;
		fixture = b;
	}
	for (unsigned t = 0; t < tests; t++) {
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			run_test(t);
			exit(0);
		}
		int status;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	}
	printf("forktests: %u tests on %zu blocks, %d failed (leaks)\n", tests, blocks, failed);
	return 0;
}
