/*
 * explore.c -- heapprof serve's explorer page (/ui): explore.html, its
 * style and script inline, built into the command with .incbin (the
 * GNUmakefile rebuilds this file when the page changes).  The routes it
 * calls are cmd_serve.c's.
 */
__asm__(".pushsection .rodata\n"
	".balign 16\n"
	".globl hp_explore_html\n"
	".type hp_explore_html, @object\n"
	"hp_explore_html:\n"
	".incbin \"src/cli/explore.html\"\n"
	".byte 0\n"
	".popsection\n");
