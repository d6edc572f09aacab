#!/bin/sh
# The heapprof command's placeholder and the library's exported symbols.
. "$(dirname "$0")/lib.sh"
plan 8

out=$("$BIN" --version)
like "$out" '^heapprof [0-9]+\.[0-9]+\.[0-9]+$' "heapprof --version prints the version"
"$BIN" --help >help.out
is $? 0 "heapprof --help exits 0"
like "$(cat help.out)" 'LD_PRELOAD' "help says how to preload the library"
"$BIN" frobnicate >out 2>err
is $? 2 "an unknown command exits 2"
like "$(cat err)" "unknown command 'frobnicate'" "and names the command"

# Exactly the allocation API, the C++ operators, _exit and _Exit (leaks
# before them are checked), mmap, munmap, mremap and sbrk (the leak scan
# learns what a non-glibc allocator maps, or takes from the break), the sigaction family (the program's
# view of heapprof's signals), pipe2 (libunwind's pipe is kept out of the
# program's way), pthread_getattr_np (no deadlock on the thread's own lock)
# and pthread_create (the helper thread starts with the program's first
# thread), prctl and syscall (a seccomp filter seen before it is active)
# and the placeholder frame.
nm -D --defined-only "$LIB" | awk '{print $3}' | sort >exports
unexpected=$(grep -vE '^(malloc|free|calloc|realloc|reallocarray|posix_memalign|aligned_alloc|memalign|valloc|pvalloc|malloc_usable_size|_exit|_Exit|mmap|mmap64|munmap|mremap|sbrk|sigaction|signal|bsd_signal|ssignal|sysv_signal|__sysv_signal|sigset|sigignore|siginterrupt|pipe2|pthread_getattr_np|pthread_create|prctl|syscall|_Z(nw|na|dl|da)[A-Za-z0-9_]*|mallctl|heapprof_mallctl|heapprof_unwind_failed|heapprof_attach|heapprof_detach|heapprof_attach_fd)$' exports)
is "$unexpected" "" "the library exports nothing but its API"
is "$(grep -c '^_Z' exports)" 20 "all 20 C++ allocation operators are interposed"
is "$(grep -cE '^(sigaction|signal|bsd_signal|ssignal|sysv_signal|__sysv_signal|sigset|sigignore|siginterrupt)$' exports)" 9 \
	"all 9 functions that set a signal's action are interposed"
done_testing
