# t/replib.sh -- the two sources that t/0415 and t/0418 build their own
# ways (a shared library, PIE and non-PIE programs, with and without debug
# information): lib.c, whose lib_static() makes 7 blocks of 2048 bytes
# through lib_entry(), and main.c, whose local_leak() makes 3 of 5000.
# Sourced after lib.sh.

# replib_sources: writes lib.c and main.c in the current folder.
replib_sources() {
	cat >lib.c <<'EOF'
#include <stdlib.h>
void *volatile lib_sink;
__attribute__((noinline)) static void lib_static(int n)
{
	for (int i = 0; i < n; i++)
		lib_sink = malloc(2048);
}
__attribute__((noinline)) void lib_entry(int n) { lib_static(n); }
EOF
	cat >main.c <<'EOF'
#include <stdlib.h>
void lib_entry(int n);
static void *volatile sink;
__attribute__((noinline)) static void local_leak(void)
{
	for (int i = 0; i < 3; i++)
		sink = malloc(5000);
}
int main(void)
{
	lib_entry(7);
	local_leak();
	return 0;
}
EOF
}
