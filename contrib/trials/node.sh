#!/bin/bash
# node (Debian/nodesource nodejs): worker_threads, the libuv pool (zlib),
# child_process execSync/spawnSync/fork.
. "$(dirname "$0")/lib.sh"
cd "$(trial_scratch node)"
trial node-workers -- node "$TRIALS_DIR/src/node-workers.js"
trial node-version -- node --version
