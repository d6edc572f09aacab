#include <stdlib.h>
#include <string.h>
struct node;
struct node *make_node(char *buf);
void *volatile sink;
__attribute__((noinline)) void build(void)
{
	char *buf = malloc(496);
	memset(buf, 1, 496);
	sink = make_node(buf);
	sink = NULL;
}
int main(void) { build(); return 0; }
