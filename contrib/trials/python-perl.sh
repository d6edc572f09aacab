#!/bin/bash
# python3 (Debian's /usr/bin/python3.11) with threads and multiprocessing
# (fork, spawn, forkserver, ProcessPoolExecutor, fork while threads
# allocate); perl ithreads and fork from a threaded perl.
. "$(dirname "$0")/lib.sh"
cd "$(trial_scratch python-perl)"
trial python-threads-mp -- /usr/bin/python3 "$TRIALS_DIR/src/py_threads_mp.py"
trial perl-threads -- /usr/bin/perl "$TRIALS_DIR/src/perl_threads.pl"
