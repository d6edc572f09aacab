#!/bin/sh
# heapprof attach's refusals: each one line naming the cause (and how to
# allow it), exit 1, and the process unchanged: alive, not traced, no
# heapprof mapped.  Not covered here: Yama's ptrace_scope (no Yama on
# this kernel: its message is the EPERM one with the setting), a shadow
# stack (no CET) and musl (not installed: nolibc stands for an unknown C
# library).  A process in another mount namespace is no longer refused:
# t/0806-t/0808 attach to containers (0808 has their refusals).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "Bail out! needs root: another user's process"; exit 1; }
plan 45

export HEAPPROF_RUNTIME_DIR=$T_DIR/run

# started PID EXE: waits until PID has exec'd EXE.
started() {
	n=0
	while [ "$(readlink /proc/$1/exe)" != "$2" ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n + 1)); done
}

# unchanged PID NAME: the process lives, untraced, without heapprof.
unchanged() {
	alive=1
	kill -0 "$1" 2>/dev/null && alive=0
	ok $alive "$2: the process lives on"
	is "$(sed -n 's/^TracerPid:[[:space:]]*//p' /proc/$1/status)" 0 "$2: not traced"
	unlike "$(cat /proc/$1/maps)" libheapprof "$2: no heapprof mapped"
}

"$BIN" attach 9999999999 >out 2>err
is $? 2 "a PID out of range is a usage error"
"$BIN" attach 4194303 >out 2>err
like "$(cat err)" '^heapprof attach: no process 4194303$' "no such process"

"$TP/staticsleeper" 30 &
st=$!
started $st "$TP/staticsleeper"
"$BIN" attach $st >out 2>err
is $? 1 "static: exit 1"
like "$(cat err)" "^heapprof attach: process $st is a static binary: .*rebuild it dynamically linked\$" "static: says so"
unchanged $st static
kill $st

as --32 -o a32.o - <<'ASM'
.globl _start
_start:
1:	mov $162, %eax
	lea ts, %ebx
	xor %ecx, %ecx
	int $0x80
	jmp 1b
.data
ts:	.long 1, 0
ASM
ld -m elf_i386 -o a32 a32.o
./a32 &
a32=$!
started $a32 "$T_DIR/a32"
"$BIN" attach $a32 >out 2>err
like "$(cat err)" "^heapprof attach: process $a32 is a 32-bit program: heapprof attach loads a 64-bit library\$" "32-bit: says so"
unchanged $a32 32-bit
kill $a32

"$TP/nolibc" &
nl=$!
started $nl "$TP/nolibc"
"$BIN" attach $nl >out 2>err
like "$(cat err)" "^heapprof attach: process $nl has no GNU C library \\(libc.so.6\\) mapped: heapprof attach knows glibc only\$" \
	"no glibc: says so"
unchanged $nl "no glibc"
kill $nl

sleep 30 &
sl=$!
started $sl "$(readlink -f "$(command -v sleep)")"
setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" attach $sl >out 2>err
is $? 1 "another user's process: exit 1"
like "$(cat err)" "^heapprof attach: not permitted to trace process $sl \\(.*\\): run as its user or with CAP_SYS_PTRACE" \
	"another user's process: names CAP_SYS_PTRACE"
unchanged $sl "another user's"

"$TP/tracer" $sl >tracer.out &
tr=$!
n=0
while ! grep -q tracing tracer.out 2>/dev/null && [ $n -lt 500 ]; do sleep 0.01; n=$((n + 1)); done
"$BIN" attach $sl >out 2>err
like "$(cat err)" "^heapprof attach: process $sl is already traced by process $tr \\(tracer\\): a process has one tracer; detach that debugger first\$" \
	"traced: names the tracer"
ok $(kill -0 $sl 2>/dev/null; echo $?) "traced: the process lives on"
kill $tr
wait $tr 2>/dev/null
unchanged $sl "traced, then let go"
kill $sl

# Stopped (SIGSTOP): it would run our call while its siblings stay stopped.
sleep 30 &
stp=$!
started $stp "$(readlink -f "$(command -v sleep)")"
kill -STOP $stp
# SIGSTOP lands when the kernel next schedules it: wait for the T state
# (under make check's load the attach came first once, and attached).
n=0
while ! grep -q '^State:[[:space:]]*T' /proc/$stp/status && [ $n -lt 500 ]; do sleep 0.01; n=$((n + 1)); done
"$BIN" attach $stp >out 2>err
like "$(cat err)" "^heapprof attach: process $stp is stopped \\(T \\(stopped\\)\\): continue it first \\(kill -CONT $stp\\)\$" \
	"stopped: says so"
kill -CONT $stp
unchanged $stp stopped
kill $stp

# No thread ever at a safe point (spinning, no system call): after 3 s,
# nothing changed.
cat >spin.c <<'C'
int main(void) { for (;;) __asm__ __volatile__("" ::: "memory"); }
C
cc -O1 -o spin spin.c
./spin &
spn=$!
started $spn "$T_DIR/spin"
"$BIN" attach $spn >out 2>err
like "$(cat err)" "^heapprof attach: process $spn: no thread reached a safe point .* within 3000 ms; nothing was changed, try again\$" \
	"no safe point: says so"
unchanged $spn "no safe point"
kill $spn

# Under a seccomp filter (one that kills on a call outside its list):
# the load's calls could be its death.
"$TP/sandboxed" kill linger >sb.out 2>sb.err &
sb=$!
n=0
while ! grep -q '^ready' sb.out 2>/dev/null && [ $n -lt 500 ]; do sleep 0.01; n=$((n + 1)); done
sleep 0.2
"$BIN" attach $sb >out 2>err
like "$(cat err)" "^heapprof attach: process $sb runs under a seccomp filter: .*start it under heapprof run instead\$" \
	"a seccomp filter: says so"
wait $sb
is $? 0 "and the process ends as it would (0)"

# heapprof there already: preloaded, or attached.
LD_PRELOAD=$LIB HEAPPROF_CONF=prof_prefix:$T_DIR/p "$TP/attachee" 2 30 >pre.out 2>pre.err &
pre=$!
while ! grep -q '^ready' pre.out 2>/dev/null; do sleep 0.01; done
"$BIN" attach $pre >out 2>err
is $? 1 "preloaded: exit 1"
like "$(cat err)" "^heapprof attach: process $pre has heapprof already, loaded at start-up: use heapprof dump, pause and resume on it\$" \
	"preloaded: says so"
"$BIN" detach $pre >out 2>err
like "$(cat err)" "^heapprof detach: process $pre has heapprof loaded at start-up, not attached: it stays\$" \
	"preloaded: detach refuses it too"
ok $(kill -0 $pre 2>/dev/null; echo $?) "preloaded: the process lives on"
kill $pre

"$TP/attachee" 2 30 >att.out 2>att.err &
att=$!
while ! grep -q '^ready' att.out 2>/dev/null; do sleep 0.01; done
"$BIN" attach $att >/dev/null
is $? 0 "attached once"
"$BIN" attach $att >out 2>err
like "$(cat err)" "^heapprof attach: process $att is attached already \\(heapprof detach $att first\\)\$" "attached twice: says so"
"$BIN" attach $att -c no_such_key:1 >out 2>err
is $? 2 "an unknown -c key is a usage error"
like "$(cat err)" "no_such_key" "and names the key"
"$BIN" detach $att >/dev/null
is $? 0 "detached"
ok $(kill -0 $att 2>/dev/null; echo $?) "attached and detached: the process lives on"
kill $att

done_testing
