#!/bin/sh
# heapprof serve never serves another user's process: root's server
# refuses a user's process (403, and asks it nothing) unless run with
# --all-users, which then asks it as that user; a user's server refuses
# root's process and lists only its own (the one there is, to which
# /debug/pprof/heap redirects and go tool pprof follows).  The user is one
# no other process has, so that what a list holds is known.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
plan 21

export PPROF_TMPDIR=$T_DIR/pprof
if [ "$(id -u)" != 0 ]; then
	for i in $(seq 1 21); do echo "ok $i # SKIP another user's processes need root (setpriv)"; done
	exit 0
fi
# A user ID no process has.
u=$((40000 + $$ % 20000))
while ps -e -o uid= | grep -qx " *$u"; do u=$((u + 1)); done
# (a command, not a function: "$as_u prog &" leaves prog's pid in $!)
as_u="setpriv --reuid=$u --regid=$u --clear-groups"
chmod 711 "$T_DIR"
mkdir u
chown $u:$u u

# The user's process and root's.
$as_u env HEAPPROF_RUNTIME_DIR=$T_DIR/u/run HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/u/a \
	LD_PRELOAD=$LIB "$TP/served" 60 >a.out 2>a.err &
a=$!
HEAPPROF_RUNTIME_DIR=$T_DIR/run HEAPPROF_CONF=lg_prof_sample:0,prof_prefix:$T_DIR/r \
	LD_PRELOAD=$LIB "$TP/served" 60 >r.out 2>r.err &
r=$!
wait_for a.out '^ready'
wait_for r.out '^ready'
wait_for "u/run/$a" '^signal_control='
wait_for "run/$r" '^signal_control='
# And one of the user's without heapprof.
$as_u sleep 60 &
bare=$!

# start NAME RUNNER [OPTION...]: heapprof serve on a free port, run by
# RUNNER (env, $as_u); $srv, $url.
start() {
	_name=$1
	_run=$2
	shift 2
	$_run timeout --foreground 60 "$BIN" serve --listen 127.0.0.1:0 "$@" >"$_name.out" 2>"$_name.err" &
	srv=$!
	wait_for "$_name.out" 'listening'
	url=$(sed -n 's|^heapprof serve: listening on \(http://.*\)/$|\1|p' "$_name.out")
}
status() { curl -s -o body -w '%{http_code}' "$@"; }
# has LIST PID: whether the space-separated LIST holds PID
has() { case " $1 " in *" $2 "*) return 0;; esac; return 1; }
pids() { curl -s "$1/?format=json" | python3 -c '
import json, sys
print(" ".join(str(p["pid"]) for p in json.load(sys.stdin)["processes"]))'; }

# ---- root's server: root's processes only ---------------------------------
start root env
root=$srv
is "$(status "$url/debug/pprof/heap?pid=$a")" 403 "root's server: the user's process is refused, 403"
is "$(cat body)" "process $a ($TP/served) belongs to user $u: this server serves the processes of user 0 only (--all-users serves every user's)" \
	"saying whose it is and what the server serves"
is "$(ls u | grep -c '^a\.')" 0 "no dump was asked for"
is "$(ls u/run | grep -c '^ctl\.')" 0 "no control file was made"
is "$(status "$url/debug/pprof/heap?pid=$bare")" 403 "nor told whether the user's other process is profiled"
is "$(status "$url/debug/pprof/heap?pid=$r")" 200 "root's own process is served"
list=$(pids "$url")
ok "$(has "$list" $r && ! has "$list" $a; echo $?)" "the list has root's process and not the user's"
kill -TERM $root
wait $root

# ---- the user's server: the user's processes only -------------------------
start user "$as_u"
user=$srv
is "$(status "$url/debug/pprof/heap?pid=$r")" 403 "the user's server: root's process is refused, 403"
# (the user may not read where root's program is: its name, then)
like "$(cat body)" "^process $r \\(($TP/)?served\\) belongs to user 0: this server serves the processes of user $u only\$" \
	"saying so"
is "$(status "$url/debug/pprof/heap?pid=$bare")" 404 "the user's process without heapprof: 404"
is "$(cat body)" "process $bare (/usr/bin/sleep) is not profiled: heapprof is not loaded into it" "not profiled"
is "$(pids "$url")" "$a" "the list is the user's one profiled process"
curl -s -D - -o /dev/null "$url/debug/pprof/heap" | tr -d '\r' >redir.hdr
like "$(head -n 1 redir.hdr)" '^HTTP/1.1 302 Found' "/debug/pprof/heap without a pid: 302 to the only process"
like "$(cat redir.hdr)" "^Location: /debug/pprof/heap\\?pid=$a\$" "at /debug/pprof/heap?pid=$a"
like "$(timeout 60 go tool pprof -top "$url/debug/pprof/heap" 2>/dev/null)" ' hold_big$' \
	"go tool pprof http://.../debug/pprof/heap follows it to the profile"
is "$(curl -s "$url/targets" | python3 -c '
import json, sys
print(" ".join(g["labels"]["__param_pid"] for g in json.load(sys.stdin)))')" "$a" "/targets: that one process"
kill -TERM $user
wait $user

# ---- root with --all-users: anyone's, as its user -------------------------
start all env --all-users
all=$srv
curl -s -D all.hdr -o all.pb.gz "$url/debug/pprof/heap?pid=$a"
like "$(head -n 1 all.hdr)" '^HTTP/1.1 200 OK' "root with --all-users: the user's process is served"
dump=$(sed -n 's/^X-Heapprof-Dump: \(.*\)\r$/\1/p' all.hdr)
is "$(stat -c %u "$dump" 2>&1)" "$u" "its dump written by the process, as the user"
list=$(pids "$url")
ok "$(has "$list" $r && has "$list" $a; echo $?)" "the list has both users' processes"
kill -TERM $all
wait $all

$as_u "$BIN" serve --all-users --listen 127.0.0.1:0 >/dev/null 2>err
is $? 2 "--all-users is root's: a usage error for the user"
is "$(head -n 1 err)" "heapprof serve: --all-users is for root (every user's processes)" "saying so"

kill -TERM $a $r $bare
wait $a $r $bare 2>/dev/null
done_testing
