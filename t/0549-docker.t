#!/bin/sh
# contrib/docker's two Dockerfiles, built and run without a Docker daemon
# (none runs where CI does): contrib/docker/nodaemon.sh builds each stage
# with debootstrap and chroot, runs the service image's CMD with the
# mounted profiler.ini and the dump volume, and checks what test.sh checks
# through Docker.  The debootstrap'ed base is kept in build/docker.
src=$(cd "$(dirname "$0")/.." && pwd)
exec sh "$src/contrib/docker/nodaemon.sh" "${HP_BUILD:-$src/build}/docker"
