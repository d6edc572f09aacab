#!/bin/bash
# Go with cgo: C mallocs on goroutines locked to 32 OS threads, 200 plain
# goroutines calling C.malloc/C.free, and 8 pthreads started from C.
. "$(dirname "$0")/lib.sh"
BIN=$TRIAL_OUT/bin; mkdir -p "$BIN"
(cd "$TRIALS_DIR/src/gocgo" && GO111MODULE=off GOCACHE=$TRIAL_OUT/gocache go build -o "$BIN/gocgo" main.go) || exit 2
cd "$(trial_scratch go-cgo)"
trial go-cgo -- "$BIN/gocgo"
# The same with GODEBUG that makes Go start threads eagerly.
trial go-cgo-gomaxprocs32 -- env GOMAXPROCS=32 "$BIN/gocgo"
