#!/bin/sh
# contrib/docker/nodaemon.sh -- contrib/docker's two Dockerfiles built and
# checked without a Docker daemon, as root: each stage is a directory made
# by debootstrap (Debian bookworm, minbase: what debian:bookworm and
# -slim hold), its RUN lines run in it with chroot, COPY and COPY --from
# copy into it, ENV and WORKDIR apply to what follows.  Then the service
# stage's CMD runs in its directory, with the mounted profiler.ini and the
# dump volume bound where the image has them, and the checks of test.sh
# are made: so the build steps and the runtime image are tried on a fresh
# Debian, the part a daemon adds (layers, isolation) aside.
#
#     sh contrib/docker/nodaemon.sh [WORKDIR]      (make check-docker)
#
# WORKDIR (build/docker) keeps the debootstrap'ed base between runs (about
# 200 MB); the stages (about 1.5 GB at the peak) are removed at the end.
# The build context is the tree's files that git knows or does not ignore
# (as the .dockerignore files leave out build/ and .git).  Prints TAP;
# exits 0 when everything passed.
set -u
cd "$(dirname "$0")/../.." || exit 1
top=$PWD
me=contrib/docker/nodaemon.sh
. "$top/contrib/docker/chroot-tap.sh"
echo "1..9"
mkdir -p "$work"
mounted=
svc_pid= spid=
cleanup() {
	# The service itself (chroot and env exec it), then the subshell.
	[ -z "$spid" ] || kill "$spid" 2>/dev/null
	[ -z "$svc_pid" ] || kill "$svc_pid" 2>/dev/null
	for m in $mounted; do umount -l "$m" 2>/dev/null; done
	# The stages (1.5 GB); the base stays.  --one-file-system: never
	# into a bind mount that is somehow still there (/dev, /sys).
	rm -rf --one-file-system "$work"/stage-*
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The base: debootstrap once, kept; each stage starts from a copy.
base=$work/base-bookworm
if [ ! -e "$base/.done" ]; then
	rm -rf "$base"
	debootstrap --variant=minbase bookworm "$base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
		{ echo "Bail out! debootstrap failed: $work/debootstrap.log"; tail -n 20 "$work/debootstrap.log"; exit 1; }
	touch "$base/.done"
fi

# The build context, as a tar of the tree's files.
ctx=$work/context.tar
git ls-files -z -co --exclude-standard | grep -zv '^build/' | tar -cf "$ctx" --null -T -

bind() {   # bind SRC DST [ro]
	[ -e "$2" ] || mkdir -p "$2"
	mount --bind "$1" "$2" && mounted="$2 $mounted"
	[ "${3:-}" != ro ] || mount -o remount,bind,ro "$2"
}

# build DOCKERFILE: every stage into $work/stage-NAME (or -N); the last
# stage's directory, ENV and CMD in last_root, last_env, last_cmd.  Each
# instruction's output goes to $work/build.log.
build() {
	_file=$1 _i=0 root= env= wd=/
	: >"$work/build.log"
	# One instruction per line: continuations joined, comments dropped.
	sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$_file" | grep -v '^[[:space:]]*#' | grep . >"$work/instr"
	while IFS= read -r line; do
		set -f
		# shellcheck disable=SC2086
		set -- $line
		set +f
		op=$1
		shift
		rest=${line#*[[:space:]]}
		echo "== $op $rest" >>"$work/build.log"
		case $op in
		FROM)
			_i=$((_i + 1))
			name=$_i
			[ "${2:-}" != AS ] || name=$3
			case $1 in debian:bookworm | debian:bookworm-slim) ;;
			*) echo "unsupported base image $1" >>"$work/build.log"; return 1 ;;
			esac
			for m in $mounted; do umount -l "$m" 2>/dev/null; done
			mounted=
			root=$work/stage-$name env= wd=/
			rm -rf --one-file-system "$root" && cp -a "$base" "$root" || return 1
			cp /etc/resolv.conf "$root/etc/resolv.conf"
			mount -t proc proc "$root/proc" && mounted="$root/proc"
			bind /dev "$root/dev"
			bind /sys "$root/sys"
			;;
		WORKDIR)
			case $1 in /*) wd=$1 ;; *) wd=$wd/$1 ;; esac
			mkdir -p "$root$wd"
			;;
		ENV)
			env="$env $*"
			;;
		COPY)
			from=
			case $1 in --from=*) from=$work/stage-${1#--from=}; shift ;; esac
			eval "_dst=\${$#}"
			case $_dst in /*) ;; *) _dst=$wd/$_dst ;; esac
			if [ -z "$from" ] && [ "$1" = . ]; then
				mkdir -p "$root$_dst" && tar -xf "$ctx" -C "$root$_dst" || return 1
			else
				_k=1
				while [ $_k -lt $# ]; do
					eval "_src=\${$_k}"
					# Docker creates the destination's directories.
					case $_dst in */) mkdir -p "$root$_dst" ;; *) mkdir -p "$root${_dst%/*}" ;; esac
					cp -a "${from:-$top}/${_src#/}" "$root$_dst" >>"$work/build.log" 2>&1 || return 1
					_k=$((_k + 1))
				done
			fi
			;;
		RUN)
			# shellcheck disable=SC2086
			chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
				HOME=/root DEBIAN_FRONTEND=noninteractive $env /bin/sh -c "cd '$wd' && $rest" \
				>>"$work/build.log" 2>&1 </dev/null || return 1
			;;
		CMD)
			last_cmd=$(printf '%s\n' "$rest" | python3 -c 'import json, shlex, sys; print(shlex.join(json.load(sys.stdin)))')
			;;
		VOLUME)
			mkdir -p "$root$1"
			;;
		EXPOSE | LABEL | ARG) ;;
		*) echo "unsupported instruction $op" >>"$work/build.log"; return 1 ;;
		esac
	done <"$work/instr"
	last_root=$root last_env=$env
}

# in_root CMD...: CMD in the last stage's directory, with its ENV.
in_root() {
	# shellcheck disable=SC2086
	chroot "$last_root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root $last_env "$@"
}

# give_up WHY: the checks left can't run (their image did not build):
# each is not ok, and the script ends (never with a half-built root, whose
# paths would be the host's).
give_up() {
	while [ "$n" -lt 9 ]; do ok 1 "$1"; done
	exit 1
}

last_root= last_env= last_cmd=
build contrib/docker/Dockerfile
r=$?
ok $r "contrib/docker/Dockerfile builds heapprof on Debian bookworm (debootstrap + chroot)"
[ $r -eq 0 ] || { tail -n 30 "$work/build.log" | diag; give_up "not run: contrib/docker/Dockerfile did not build"; }
rm -rf "$last_root"/tmp/heapprof-run.*
in_root sh -c 'cd /tmp && heapprof run -c prof_final:true,lg_prof_sample:0 ls / >/dev/null 2>&1
	heapprof report /tmp/heapprof-run.*/ls.*.f.*.heap' >"$work/run.out" 2>&1
grep -q '^Total: ' "$work/run.out"
ok $? "heapprof run works in it: heapprof report reads its final dump of ls"
[ $? -eq 0 ] || diag <"$work/run.out"
[ -f "$last_root/etc/heapprof/profiler.ini" ]
ok $? "make install put the sample profiler.ini at /etc/heapprof/profiler.ini"

last_cmd=
build contrib/docker/Dockerfile.service
r=$?
ok $r "contrib/docker/Dockerfile.service builds the service image (build stage, then bookworm-slim)"
[ $r -eq 0 ] || { tail -n 30 "$work/build.log" | diag; give_up "not run: contrib/docker/Dockerfile.service did not build"; }
[ -n "$last_cmd" ] || give_up "not run: contrib/docker/Dockerfile.service has no CMD"
bind "$top/contrib/docker/profiler.ini" "$last_root/etc/heapprof/profiler.ini" ro
rm -rf "$work/volume" && mkdir -m 0700 "$work/volume"
bind "$work/volume" "$last_root/var/lib/heapprof"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The image's CMD, on a free port (the image's is 8080).
cmd=$(printf '%s\n' "$last_cmd" | sed "s/ 8080\$/ $port/")
# shellcheck disable=SC2086
in_root $cmd >"$work/service.out" 2>"$work/service.err" &
svc_pid=$!
tries=0
until python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])))' "$port" 2>/dev/null; do
	tries=$((tries + 1))
	[ $tries -lt 100 ] && kill -0 "$svc_pid" 2>/dev/null || break
	sleep 0.1
done
spid=$(pgrep -f -n "^/usr/bin/service $port\$")
[ -n "$spid" ]
ok $? "the service runs with the mounted profiler.ini and the volume (pid $spid)"
python3 contrib/docker/load.py "$port"
ok $? "20000 requests served"
dump=$(in_root heapprof dump "$spid" 2>"$work/dump.err")
ok $? "heapprof dump in the image: $dump"
[ $? -eq 0 ] || diag <"$work/dump.err"
case $dump in /var/lib/heapprof/service."$spid".*.heap) r=0 ;; *) r=1 ;; esac
ok $r "the dump is in the volume, named after the program (prof_prefix of the mounted file)"
in_root heapprof report "$dump" 2>&1 | grep -q 'session_new'
ok $? "heapprof report in the image names the leaking function"
kill "$spid" 2>/dev/null
wait "$svc_pid" 2>/dev/null
exit $((failed > 0))
