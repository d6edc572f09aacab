#!/bin/bash
# Raw clone3 (no glibc wrapper, no fork handlers): vfork+exec on our own
# stack, fork-like children that allocate and exit(), a raw CLONE_THREAD
# task alive at exit; and glibc's pthread_create (clone3) storm.
. "$(dirname "$0")/lib.sh"
BIN=$TRIAL_OUT/bin; mkdir -p "$BIN"
cc -O1 -g -pthread -o "$BIN/clone3" "$TRIALS_DIR/src/c/clone3.c" || exit 2
cc -O1 -g -pthread -o "$BIN/threadstorm" "$TRIALS_DIR/src/c/threadstorm.c" || exit 2
cd "$(trial_scratch clone3)"
trial clone3-vfork-exec --filter sort -- "$BIN/clone3" vfork-exec
trial clone3-fork -- "$BIN/clone3" fork
trial clone3-thread -- "$BIN/clone3" thread
trial pthread-storm -- "$BIN/threadstorm" 20000
