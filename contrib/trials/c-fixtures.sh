#!/bin/bash
# The C fixtures of src/c: process and thread plumbing that a preloaded
# profiler sits inside.  Usage: c-fixtures.sh [NAME...] (default: all).
. "$(dirname "$0")/lib.sh"
BIN=$TRIAL_OUT/bin; mkdir -p "$BIN"
S=$TRIALS_DIR/src/c
build() { cc -O1 -g -pthread -o "$BIN/$1" "$S/$1.c" "${@:2}" || exit 2; }
for f in spawnstorm closerange sigfork jmp malloctune forkmt cancel cancel_min smallstack usr1kill; do build $f; done
cc -O1 -g -shared -fPIC -o "$BIN/libtrialA.so" "$S/dlclose_lib.c" || exit 2
cc -O1 -g -shared -fPIC -DPADFN -o "$BIN/libtrialB.so" "$S/dlclose_lib.c" || exit 2
build dlclose -ldl
HAVE_URING=0
# t/prog/uring.c: the fixture t/0706 runs since the finding was fixed.
cc -O1 -g -o "$BIN/uring" "$TRIALS_DIR/../../t/prog/uring.c" -luring 2>/dev/null && HAVE_URING=1
cd "$(trial_scratch c-fixtures)"
want() { [ $# -eq 0 ] && return 0; for w in "${ARGS[@]}"; do [ "$w" = "$1" ] && return 0; done; [ ${#ARGS[@]} -eq 0 ]; }
ARGS=("$@")
want spawnstorm && trial spawnstorm -- "$BIN/spawnstorm" 200
want closerange && trial closerange -- "$BIN/closerange"
want sigfork    && trial sigfork -- "$BIN/sigfork"
want sigfork    && trial sigfork-nomalloc -- "$BIN/sigfork" nomalloc
want jmp        && trial jmp -- "$BIN/jmp"
want malloctune && trial malloctune -- "$BIN/malloctune"
want dlclose    && trial dlclose -- "$BIN/dlclose" "$BIN"
want forkmt     && trial forkmt -- "$BIN/forkmt" 100
LU="bare default exact exact-lu check"
want cancel     && trial cancel -- --modes "$LU" "$BIN/cancel"
want cancel     && trial cancel-sleep --filter "sed 's/[0-9]* threads finished/N threads finished/'" -- --modes "$LU" "$BIN/cancel" sleep
want cancel     && trial cancel-min -- --modes "$LU" "$BIN/cancel_min"
want smallstack && trial smallstack -- "$BIN/smallstack"
want usr1kill   && trial usr1kill --timeout 40 -- "$BIN/usr1kill"
if [ $HAVE_URING = 1 ]; then
    want uring && trial uring -- "$BIN/uring"
    want uring && trial uring-sqpoll -- "$BIN/uring" sqpoll
else echo "uring: liburing-dev not installed"; fi
