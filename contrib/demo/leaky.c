/*
 * leaky.c -- the program `make demo` profiles: a toy request handler with
 * two leaks.  Each request parses a header into a record and frees it,
 * except that error responses keep their formatted message, and every
 * tenth request adds its record to a cache that is never trimmed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct record {
	char key[32];
	char *body;
	struct record *next;
};

static struct record *cache;

static struct record *parse_request(int id)
{
	struct record *r = calloc(1, sizeof(*r));

	snprintf(r->key, sizeof(r->key), "req-%d", id);
	r->body = malloc(512 + (size_t)(id % 7) * 64);
	memset(r->body, 'x', 512);
	return r;
}

static char *format_error(int id)
{
	char *msg = malloc(256);

	snprintf(msg, 256, "request %d failed: upstream timeout", id);
	return msg;
}

static void handle(int id)
{
	struct record *r = parse_request(id);

	if (id % 10 == 0) {
		r->next = cache;   /* cached forever: a leak that grows */
		cache = r;
		return;
	}
	if (id % 13 == 0)
		(void)format_error(id);   /* the message is never freed */
	free(r->body);
	free(r);
}

int main(void)
{
	for (int id = 1; id <= 5000; id++)
		handle(id);
	printf("leaky: handled 5000 requests\n");
	return 0;
}
