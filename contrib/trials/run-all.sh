#!/bin/bash
# Runs every trial script of this folder; REPEAT, MODES, TIMEOUT as in lib.sh.
cd "$(dirname "$0")" || exit 2
for t in go-cgo node erlang python-perl sandboxes clone3 c-fixtures; do
    ./$t.sh
done
