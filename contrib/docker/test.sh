#!/bin/sh
# contrib/docker/test.sh -- builds the two images of contrib/docker and
# runs the service one: the mounted profiler.ini is read, heapprof dump
# writes a dump into the volume, heapprof report names the leak.  Not part
# of `make check` (it needs a Docker daemon and the network, and takes
# minutes).  From the tree's top:
#
#     sh contrib/docker/test.sh
#
# Prints TAP; exits 0 when everything passed.  Leaves no container, image
# tag or volume behind but the two images' layers.
set -u
cd "$(dirname "$0")/../.." || exit 1
top=$PWD
n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
if ! docker info >/dev/null 2>&1; then
	echo "1..0 # SKIP docker info fails: no Docker daemon to talk to"
	exit 1
fi
echo "1..8"
tag=heapprof-test-$$
vol=heapdumps-$$
name=heapprof-svc-$$
log=
cleanup() {
	docker rm -f "$name" >/dev/null 2>&1
	docker volume rm "$vol" >/dev/null 2>&1
	docker rmi "$tag" "$tag-service" >/dev/null 2>&1
	rm -f "$log"
}
trap cleanup EXIT

log=$(mktemp)
# build FILE TAG DESCRIPTION: the build's output is shown when it fails.
build() {
	docker build -f "$1" -t "$2" . >"$log" 2>&1
	r=$?
	ok $r "$3"
	[ $r -eq 0 ] || tail -n 40 "$log" | sed 's/^/# /'
}
build contrib/docker/Dockerfile "$tag" "contrib/docker/Dockerfile builds heapprof on Debian bookworm"
docker run --rm "$tag" sh -c 'cd /tmp && heapprof run -c prof_final:true,lg_prof_sample:0 ls / >/dev/null &&
	heapprof report /tmp/heapprof-run.*/ls.*.f.*.heap' 2>&1 | grep -q '^Total: '
ok $? "heapprof run works in it: heapprof report reads its final dump of ls"

build contrib/docker/Dockerfile.service "$tag-service" \
	"contrib/docker/Dockerfile.service builds the service image"
docker volume create "$vol" >/dev/null
docker run -d --name "$name" -p 127.0.0.1::8080 \
	-v "$top/contrib/docker/profiler.ini:/etc/heapprof/profiler.ini:ro" \
	-v "$vol:/var/lib/heapprof" "$tag-service" >/dev/null
ok $? "the service runs with the mounted profiler.ini and the volume"
port=$(docker port "$name" 8080 | sed -n '1s/.*://p')
sleep 1
python3 contrib/docker/load.py "$port"
ok $? "20000 requests served"
dump=$(docker exec "$name" heapprof dump 1)
ok $? "heapprof dump 1 in the container: $dump"
case $dump in /var/lib/heapprof/service.1.*.heap) r=0 ;; *) r=1 ;; esac
ok $r "the dump is in the volume, named after the program (prof_prefix of the mounted file)"
docker exec "$name" heapprof report "$dump" | grep -q 'session_new'
ok $? "heapprof report in the container names the leaking function"
docker stop "$name" >/dev/null
exit $((failed > 0))
