/*
 * service.c -- the example service of contrib/docker: a TCP service on
 * one port that answers each line with "ok <n>".  Each request allocates
 * a buffer per line and a session it frees; every tenth request leaves its
 * session in a list that only grows: a slow leak for heapprof to find.
 * SIGTERM (docker stop) ends it with exit(0), so that heapprof writes its
 * final dump.
 */
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct session {
	struct session *next;
	char *line;
	size_t len;
};

static struct session *kept;   /* grows forever: the leak */
static volatile sig_atomic_t stop;
static unsigned long served;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

__attribute__((noinline)) static struct session *session_new(const char *line, size_t len)
{
	struct session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->line = malloc(len + 1);
	if (!s->line) {
		free(s);
		return NULL;
	}
	memcpy(s->line, line, len);
	s->line[len] = '\0';
	s->len = len;
	return s;
}

__attribute__((noinline)) static void handle(int fd)
{
	char buf[4096], reply[64];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		struct session *s = session_new(buf, (size_t)n);
		if (!s)
			break;
		served++;
		if (served % 10 == 0) {
			s->next = kept;   /* kept for good */
			kept = s;
		} else {
			free(s->line);
			free(s);
		}
		int m = snprintf(reply, sizeof(reply), "ok %lu\n", served);
		if (write(fd, reply, (size_t)m) != m)
			break;
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
	int one = 1;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	addr.sin_port = htons((unsigned short)(argc > 1 ? atoi(argv[1]) : 8080));
	int srv = socket(AF_INET, SOCK_STREAM, 0);
	if (srv < 0 || setsockopt(srv, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(srv, (struct sockaddr *)&addr, sizeof(addr)) || listen(srv, 16)) {
		perror("service");
		return 1;
	}
	fprintf(stderr, "service: listening on %d\n", ntohs(addr.sin_port));
	while (!stop) {
		int fd = accept(srv, NULL, NULL);
		if (fd < 0)
			continue;   /* EINTR from SIGTERM: the loop ends */
		handle(fd);
		close(fd);
	}
	fprintf(stderr, "service: served %lu requests\n", served);
	close(srv);
	return 0;
}
